// The medical record types as people read and fill them: a label per type, its fields in a sensible order with
// readable labels and the control each needs — lists as rows you add and remove, yes/no answers as a choice,
// dates as date inputs, never a JSON box. Field names are the API's (docs/medical-records.md): the server's field
// errors land beside them. `summary` names the fields that describe a record in a list, first present wins.
import type { MedicalRecordType } from '../../../src/services/medical-records/medical-records.schema'

export type FieldKind =
  /** One line of text. */
  | 'text'
  /** Several lines. */
  | 'textarea'
  | 'number'
  /** A timestamp (milliseconds), chosen as a date. */
  | 'date'
  /** true / false, or left unanswered. */
  | 'yesno'
  /** One of `options`. */
  | 'select'
  /** A list of strings: one row per item. */
  | 'list'
  /** A list of objects: one row per item, a column per `columns` entry. */
  | 'rows'
  /** An object of free keys: one row per key and value. */
  | 'pairs'

export interface FieldDef {
  /** The API's field name (a path with dots for nested ones: 'data.values'). */
  name: string
  label: string
  kind: FieldKind
  required?: boolean
  options?: Array<[value: string, label: string]>
  columns?: FieldDef[]
  hint?: string
}

export interface RecordTypeDef {
  label: string
  fields: FieldDef[]
  summary: string[]
}

const text = (name: string, label: string, extra: Partial<FieldDef> = {}): FieldDef => ({
  name,
  label,
  kind: 'text',
  ...extra
})
const area = (name: string, label: string): FieldDef => ({ name, label, kind: 'textarea' })
const date = (name: string, label: string): FieldDef => ({ name, label, kind: 'date' })
const num = (name: string, label: string, hint?: string): FieldDef => ({ name, label, kind: 'number', hint })
const list = (name: string, label: string, hint?: string): FieldDef => ({ name, label, kind: 'list', hint })
const subtype = (label = 'Kind'): FieldDef => text('subtype', label)
const notes = area('notes', 'Notes')
const source = text('source', 'Source', {
  hint: 'Who gave this history (the patient, a relative, a previous record).'
})

const audiogram = (name: string, label: string, kind: 'number' | 'text' = 'number'): FieldDef => ({
  name,
  label,
  kind: 'rows',
  columns: [
    { name: 'frequency', label: 'Frequency (Hz)', kind },
    { name: 'hearingLevel', label: 'Hearing level (dB)', kind },
    { name: 'audiogramKey', label: 'Audiogram symbol', kind: 'text' }
  ]
})

export const recordTypes: Record<MedicalRecordType, RecordTypeDef> = {
  'ape-report': {
    label: 'Annual physical exam report',
    summary: ['classification', 'subtype', 'report'],
    fields: [
      subtype('Exam kind'),
      text('contract', 'Contract'),
      text('classification', 'Classification'),
      text('template', 'Template'),
      area('report', 'Report'),
      {
        name: 'data.values',
        label: 'Answers',
        kind: 'rows',
        columns: [
          { name: 'id', label: 'Question', kind: 'text', required: true },
          { name: 'answer', label: 'Answer', kind: 'text' }
        ]
      },
      text('examinedBy', 'Examined by'),
      text('reviewedBy', 'Reviewed by'),
      text('deliveryAcknowldgement', 'Delivery acknowledgement'),
      date('deliveredAt', 'Delivered on')
    ]
  },
  allergy: {
    label: 'Allergy',
    summary: ['name', 'description'],
    fields: [
      text('name', 'Allergen', { required: true, hint: 'What the patient is allergic to, e.g. penicillin.' }),
      subtype('Kind (food, drug, environment…)'),
      area('description', 'Reaction'),
      text('supplement', 'Supplement'),
      date('startedAt', 'Since')
    ]
  },
  assessment: {
    label: 'Assessment',
    summary: ['text', 'icd10'],
    fields: [
      {
        name: 'subtype',
        label: 'Assessment',
        kind: 'select',
        required: true,
        options: [
          ['impression', 'Impression'],
          ['diagnosis', 'Diagnosis']
        ]
      },
      area('text', 'Finding'),
      text('icd10', 'ICD-10 code'),
      {
        name: 'recommendedProcedures',
        label: 'Recommended procedures',
        kind: 'rows',
        columns: [
          { name: 'ref', label: 'Code or reference', kind: 'text' },
          { name: 'text', label: 'Procedure', kind: 'text' }
        ]
      }
    ]
  },
  attachment: {
    label: 'Attachment',
    summary: ['title', 'description'],
    fields: [
      text('title', 'Title'),
      subtype('Kind (consent, lab result, imaging…)'),
      area('description', 'Description')
    ]
  },
  'audiometry-report': {
    label: 'Audiometry report',
    summary: ['remarks', 'subtype'],
    fields: [
      subtype('Test kind'),
      text('order', 'Order'),
      audiogram('airRightEar', 'Air conduction, right ear'),
      audiogram('airLeftEar', 'Air conduction, left ear'),
      audiogram('boneRightEar', 'Bone conduction, right ear'),
      audiogram('boneLeftEar', 'Bone conduction, left ear'),
      audiogram('boneFF', 'Bone conduction, free field', 'text'),
      area('remarks', 'Remarks'),
      text('ent', 'ENT physician')
    ]
  },
  'birth-history': {
    label: 'Birth history',
    summary: ['methodOfDelivery', 'notes'],
    fields: [
      subtype(),
      date('deliveredAt', 'Born on'),
      text('methodOfDelivery', 'Method of delivery'),
      text('attendedBy', 'Attended by'),
      area('complications', 'Complications'),
      notes,
      source
    ]
  },
  'dental-history': {
    label: 'Dental history',
    summary: ['notes', 'prevDentist'],
    fields: [
      subtype(),
      text('prevDentist', 'Previous dentist'),
      text('prevDentistContactNo', 'Previous dentist’s phone'),
      date('medicalConditionAt', 'Date of the medical condition'),
      text('gingivae', 'Gingivae'),
      text('palate', 'Palate'),
      text('frenum', 'Frenum'),
      text('profile', 'Profile'),
      text('hygiene', 'Hygiene'),
      text('abrasions', 'Abrasions'),
      text('recededGums', 'Receded gums'),
      text('mouthOpening', 'Mouth opening'),
      text('oropharynx', 'Oropharynx'),
      text('teethDiscoloration', 'Teeth discoloration'),
      text('calculus', 'Calculus'),
      text('tongue', 'Tongue'),
      text('malocclusion', 'Malocclusion'),
      text('mentalis', 'Mentalis'),
      text('swallowing', 'Swallowing'),
      text('gagFlex', 'Gag reflex'),
      list('teeth', 'Teeth', 'One tooth per row, e.g. 11 or 36.'),
      list('habits', 'Habits'),
      list('complications', 'Complications'),
      notes,
      source
    ]
  },
  'dental-note': {
    label: 'Dental note',
    summary: ['service', 'dx', 'notes'],
    fields: [
      {
        name: 'subtype',
        label: 'Note',
        kind: 'select',
        options: [
          ['baseline', 'Baseline'],
          ['order', 'Order'],
          ['result', 'Result']
        ]
      },
      {
        name: 'ageGroup',
        label: 'Age group',
        kind: 'select',
        options: [
          ['adult', 'Adult'],
          ['mixed', 'Mixed dentition'],
          ['child', 'Child']
        ]
      },
      list('teeth', 'Teeth', 'One tooth per row, e.g. 11 or 36.'),
      text('service', 'Service'),
      text('materials', 'Materials'),
      area('cc', 'Chief complaint'),
      area('hx', 'History'),
      area('ss', 'Signs and symptoms'),
      area('dx', 'Diagnosis'),
      {
        name: 'surfaces',
        label: 'Surfaces',
        kind: 'rows',
        columns: [
          { name: 'name', label: 'Surface', kind: 'text' },
          { name: 'icdas', label: 'ICDAS code', kind: 'text' },
          { name: 'cast', label: 'Cast', kind: 'text' }
        ]
      },
      {
        name: 'status',
        label: 'Tooth status',
        kind: 'pairs',
        hint: 'One row per tooth: the tooth and its status.'
      },
      date('doneAt', 'Done on'),
      text('doneBy', 'Done by'),
      text('order', 'Order'),
      notes
    ]
  },
  'developmental-milestone': {
    label: 'Developmental milestone',
    summary: ['milestone', 'age'],
    fields: [
      {
        name: 'category',
        label: 'Category',
        kind: 'select',
        required: true,
        options: [
          ['grossmotor', 'Gross motor'],
          ['adaptivefinemotor', 'Adaptive and fine motor'],
          ['language', 'Language'],
          ['personalandsocial', 'Personal and social']
        ]
      },
      text('age', 'Age', { required: true, hint: 'e.g. 6 months' }),
      text('milestone', 'Milestone', { required: true }),
      subtype(),
      date('accomplishedAt', 'Accomplished on')
    ]
  },
  'discharge-note': {
    label: 'Discharge note',
    summary: ['diagnosis', 'disposition'],
    fields: [
      subtype(),
      area('diagnosis', 'Diagnosis'),
      area('instructions', 'Instructions'),
      text('disposition', 'Disposition'),
      list('residents', 'Residents'),
      list('interns', 'Interns')
    ]
  },
  'ent-note': {
    label: 'Ear, nose and throat note',
    summary: ['psgDiagnostic', 'subtype'],
    fields: [
      subtype(),
      text('psgDiagnostic', 'Polysomnography, diagnostic'),
      text('psgTherapeutic', 'Polysomnography, therapeutic'),
      text('psgSplit', 'Polysomnography, split night'),
      num('ahi', 'Apnea–hypopnea index (events per hour)'),
      num('cpapPressure', 'CPAP pressure (cmH2O)'),
      num('lsatPressure', 'Lowest oxygen saturation (%)'),
      num('bipapInspiration', 'BiPAP inspiratory pressure (cmH2O)'),
      num('bipapExpiration', 'BiPAP expiratory pressure (cmH2O)'),
      num('rampTime', 'Ramp time (minutes)')
    ]
  },
  'family-history': {
    label: 'Family history',
    summary: ['medicalCondition', 'relationship'],
    fields: [
      subtype(),
      text('relationship', 'Relationship', { hint: 'e.g. mother, brother' }),
      text('medicalCondition', 'Medical condition'),
      date('medicalConditionAt', 'Diagnosed on'),
      { name: 'deceased', label: 'Deceased', kind: 'yesno' },
      text('deathCause', 'Cause of death'),
      notes,
      source
    ]
  },
  'gynecological-history': {
    label: 'Gynecological history',
    summary: ['currentContraception', 'notes'],
    fields: [
      subtype(),
      date('prevCervicSmearsDate', 'Previous cervical smear on'),
      text('prevCervicSmearsResult', 'Previous cervical smear result'),
      area('prevProblemsTreatments', 'Previous problems and treatments'),
      text('currentContraception', 'Current contraception'),
      notes,
      source
    ]
  },
  'hospitalization-history': {
    label: 'Hospitalization history',
    summary: ['hospitalName', 'diagnosis'],
    fields: [
      subtype(),
      text('hospitalName', 'Hospital'),
      date('hospitalizedAt', 'Hospitalized on'),
      area('diagnosis', 'Diagnosis'),
      area('treatment', 'Treatment'),
      notes,
      source
    ]
  },
  'hypertension-history': {
    label: 'Hypertension history',
    summary: ['usualBP', 'highestBP'],
    fields: [
      subtype(),
      text('usualBP', 'Usual blood pressure', { hint: 'e.g. 120/80' }),
      text('highestBP', 'Highest blood pressure'),
      notes,
      source
    ]
  }
}

/** The types in the order people look for them (alphabetical by label). */
export const recordTypeList = (Object.keys(recordTypes) as MedicalRecordType[]).sort((a, b) =>
  recordTypes[a].label.localeCompare(recordTypes[b].label)
)

/** A record type's label ("ape-report" → "Annual physical exam report"); the slug itself when unknown. */
export const recordTypeLabel = (type: string) =>
  (recordTypes as Record<string, RecordTypeDef | undefined>)[type]?.label ?? type

/** The words that describe a record in a list (its type's summary fields, first present). */
export const recordSummary = (record: Record<string, unknown>) => {
  const def = (recordTypes as Record<string, RecordTypeDef | undefined>)[String(record.type)]
  for (const name of def?.summary ?? []) {
    const value = record[name]
    if (typeof value === 'string' && value.trim()) return value
  }
  return ''
}
