// Schemas for /medical-records (docs/medical-records.md): the full record per type, its create
// body ("data"), its patch body, the query, and validators that return every problem instead of throwing.
import { randomBytes } from 'crypto'
import { Type, StringEnum, querySyntax } from '@feathersjs/typebox'
import { QueryNullable } from '../../schema/common'
import type { Static, TProperties, TSchema } from '@feathersjs/typebox'
import type { ValidateFunction } from 'ajv'
import { dataValidator, fieldErrors, WHOLE_BODY, type FieldError } from '../../schema/validators'

// ---------------------------------------------------------------------------------------------------------
// Record types (in the documented order)

export const medicalRecordTypes = [
  'ape-report',
  'allergy',
  'assessment',
  'attachment',
  'audiometry-report',
  'birth-history',
  'dental-history',
  'dental-note',
  'developmental-milestone',
  'discharge-note',
  'ent-note',
  'family-history',
  'gynecological-history',
  'hospitalization-history',
  'hypertension-history'
] as const

export type MedicalRecordType = (typeof medicalRecordTypes)[number]

export const isMedicalRecordType = (value: unknown): value is MedicalRecordType =>
  typeof value === 'string' && (medicalRecordTypes as readonly string[]).includes(value)

// ---------------------------------------------------------------------------------------------------------
// Small building blocks

const str = () => Type.Optional(Type.String())
const num = () => Type.Optional(Type.Number())
const bool = () => Type.Optional(Type.Boolean())
const strArray = () => Type.Optional(Type.Array(Type.String()))
/** A free-form JSON object (spec type "Object" without described fields). */
const freeObject = () => Type.Unsafe<Record<string, unknown>>({ type: 'object' })

/** A random hex id, the default id of generated sub-documents. */
export const generateId = (): string => randomBytes(12).toString('hex')

// ---------------------------------------------------------------------------------------------------------
// Permissions element. Every field is optional in the schema; each element names a uid or an organization
// (permissionSelectorProblems).

export const permissionSchema = Type.Object(
  {
    uid: str(),
    organization: str(),
    roles: strArray(),
    privileges: strArray(),
    write: bool(),
    share: bool()
  },
  { additionalProperties: false }
)
export type Permission = Static<typeof permissionSchema>

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const permissionSelectorProblems = (permissions: unknown): FieldError[] => {
  if (!Array.isArray(permissions)) return []
  const problems: FieldError[] = []
  permissions.forEach((element, index) => {
    if (!isPlainObject(element)) return
    const hasUid = typeof element.uid === 'string' && element.uid !== ''
    const hasOrganization = typeof element.organization === 'string' && element.organization !== ''
    if (!hasUid && !hasOrganization) {
      problems.push({ field: `permissions.${index}`, message: 'must have a uid or an organization' })
    }
  })
  return problems
}

// ---------------------------------------------------------------------------------------------------------
// Shared fields

/** Fields only the server sets; they are part of stored records and rejected in create/patch bodies. */
export const serverOwnedFields = ['id', 'createdAt', 'createdBy', 'finalizedAt', 'finalizedBy'] as const
/** Additional server-owned fields of ape-report records. */
export const apeReportServerOwnedFields = ['classifiedAt', 'classifiedBy', 'doneAt', 'doneBy'] as const

/** Shared fields a client may send (create and patch). */
export const sharedDataProperties = {
  account: str(),
  facility: str(),
  patient: str(),
  encounter: str(),
  attachmentURLs: strArray(),
  originalCreationAt: num(),
  provider: str(),
  providerFee: num(),
  providerFeeType: Type.Optional(StringEnum(['amount', 'percentage'])),
  permissions: Type.Optional(Type.Array(permissionSchema))
}

/** Shared fields the server owns; present on every stored record. */
export const serverProperties = {
  id: Type.String(),
  createdAt: Type.Number(),
  createdBy: Type.String(),
  finalizedAt: num(),
  finalizedBy: str()
}

// ---------------------------------------------------------------------------------------------------------
// Each type's own fields (client-writable)

const audiogramPoint = Type.Object(
  { frequency: num(), hearingLevel: num(), audiogramKey: str() },
  { additionalProperties: false }
)
const audiogramPointFF = Type.Object(
  { frequency: str(), hearingLevel: str(), audiogramKey: str() },
  { additionalProperties: false }
)

export const apeReportProperties = {
  subtype: str(),
  contract: str(),
  classification: str(),
  report: str(),
  template: str(),
  data: Type.Optional(
    Type.Object(
      {
        values: Type.Optional(
          Type.Array(
            Type.Object(
              {
                id: Type.String(),
                answer: Type.Optional(Type.Any()),
                answers: Type.Optional(Type.Array(Type.Any()))
              },
              { additionalProperties: false }
            )
          )
        )
      },
      { additionalProperties: false }
    )
  ),
  examinedBy: str(),
  reviewedBy: str(),
  deliveryAcknowldgement: str(),
  deliveredAt: num()
}

export const allergyProperties = {
  name: Type.String(),
  subtype: str(),
  description: str(),
  supplement: str(),
  startedAt: num()
}

export const assessmentProperties = {
  subtype: StringEnum(['impression', 'diagnosis']),
  text: str(),
  icd10: str(),
  recommendedProcedures: Type.Optional(
    Type.Array(Type.Object({ id: str(), ref: str(), text: str() }, { additionalProperties: false }))
  )
}

export const attachmentProperties = {
  subtype: str(),
  title: str(),
  description: str()
}

export const audiometryReportProperties = {
  subtype: str(),
  order: str(),
  airRightEar: Type.Optional(Type.Array(audiogramPoint)),
  airLeftEar: Type.Optional(Type.Array(audiogramPoint)),
  boneRightEar: Type.Optional(Type.Array(audiogramPoint)),
  boneLeftEar: Type.Optional(Type.Array(audiogramPoint)),
  boneFF: Type.Optional(Type.Array(audiogramPointFF)),
  audiogramKeyAirLeftEar: str(),
  audiogramKeyAirRightEar: str(),
  audiogramKeyBoneLeftEar: str(),
  audiogramKeyBoneRightEar: str(),
  audiogramKeyBoneFF: str(),
  remarks: str(),
  ent: str()
}

export const birthHistoryProperties = {
  subtype: str(),
  methodOfDelivery: str(),
  attendedBy: str(),
  complications: str(),
  notes: str(),
  deliveredAt: num(),
  source: str()
}

export const dentalHistoryProperties = {
  subtype: str(),
  gingivae: str(),
  palate: str(),
  frenum: str(),
  profile: str(),
  hygiene: str(),
  abrasions: str(),
  recededGums: str(),
  mouthOpening: str(),
  prevDentist: str(),
  prevDentistContactNo: str(),
  oropharynx: str(),
  teethDiscoloration: str(),
  calculus: str(),
  tongue: str(),
  malocclusion: str(),
  mentalis: str(),
  swallowing: str(),
  gagFlex: str(),
  notes: str(),
  medicalConditionAt: num(),
  teeth: strArray(),
  habits: strArray(),
  complications: strArray(),
  source: str()
}

export const dentalNoteProperties = {
  subtype: Type.Optional(StringEnum(['baseline', 'order', 'result'])),
  ageGroup: Type.Optional(StringEnum(['adult', 'mixed', 'child'])),
  teeth: strArray(),
  service: str(),
  materials: str(),
  cc: str(),
  hx: str(),
  ss: str(),
  dx: str(),
  notes: str(),
  status: Type.Optional(freeObject()),
  surfaces: Type.Optional(
    Type.Array(Type.Object({ name: str(), icdas: str(), cast: str() }, { additionalProperties: false }))
  ),
  doneAt: num(),
  doneBy: str(),
  order: str()
}

export const developmentalMilestoneProperties = {
  category: StringEnum(['grossmotor', 'adaptivefinemotor', 'language', 'personalandsocial']),
  age: Type.String(),
  milestone: Type.String(),
  subtype: str(),
  accomplishedAt: num()
}

export const dischargeNoteProperties = {
  subtype: str(),
  diagnosis: str(),
  instructions: str(),
  disposition: str(),
  residents: strArray(),
  interns: strArray()
}

export const entNoteProperties = {
  subtype: str(),
  psgDiagnostic: str(),
  psgTherapeutic: str(),
  psgSplit: str(),
  cpapPressure: num(),
  lsatPressure: num(),
  bipapInspiration: num(),
  bipapExpiration: num(),
  ahi: num(),
  rampTime: num()
}

export const familyHistoryProperties = {
  subtype: str(),
  medicalCondition: str(),
  medicalConditionAt: num(),
  relationship: str(),
  deceased: bool(),
  deathCause: str(),
  source: str(),
  notes: str()
}

export const gynecologicalHistoryProperties = {
  subtype: str(),
  prevCervicSmearsResult: str(),
  prevProblemsTreatments: str(),
  currentContraception: str(),
  notes: str(),
  prevCervicSmearsDate: num(),
  source: str()
}

export const hospitalizationHistoryProperties = {
  subtype: str(),
  hospitalName: str(),
  diagnosis: str(),
  treatment: str(),
  notes: str(),
  hospitalizedAt: num(),
  source: str()
}

export const hypertensionHistoryProperties = {
  subtype: str(),
  usualBP: str(),
  highestBP: str(),
  notes: str(),
  source: str()
}

// ---------------------------------------------------------------------------------------------------------
// Per-type schemas: record (stored/returned), data (create body), patch (patch body)

/** An action flag: sent as `true` to perform it (there is no undoing, so `false` is refused). */
const action = () => Type.Optional(Type.Literal(true))

/** Patch-only action fields, accepted by every type: `finalize: true` stamps finalizedAt/finalizedBy. */
const patchActionProperties = { finalize: action() }

const defineRecordType = <
  T extends MedicalRecordType,
  P extends TProperties,
  S extends TProperties = Record<never, TSchema>,
  A extends TProperties = Record<never, TSchema>
>(
  type: T,
  own: P,
  extra: { server?: S; patchActions?: A } = {}
) => {
  const typeProperty = { type: Type.Literal(type) }
  const server = (extra.server ?? {}) as S
  const patchActions = (extra.patchActions ?? {}) as A
  return {
    /** The full record as stored and returned. */
    record: Type.Object(
      { ...serverProperties, ...server, ...sharedDataProperties, ...own, ...typeProperty },
      { additionalProperties: false }
    ),
    /** The create body. */
    data: Type.Object({ ...sharedDataProperties, ...own, ...typeProperty }, { additionalProperties: false }),
    /** The patch body: every client field optional, no `type`, plus the patch-only action fields. */
    patch: Type.Partial(
      Type.Object({ ...sharedDataProperties, ...own, ...patchActionProperties, ...patchActions }),
      { additionalProperties: false }
    )
  }
}

export const medicalRecordTypeSchemas = {
  'ape-report': defineRecordType('ape-report', apeReportProperties, {
    server: { classifiedAt: num(), classifiedBy: str(), doneAt: num(), doneBy: str() },
    patchActions: { done: action() }
  }),
  allergy: defineRecordType('allergy', allergyProperties),
  assessment: defineRecordType('assessment', assessmentProperties),
  attachment: defineRecordType('attachment', attachmentProperties),
  'audiometry-report': defineRecordType('audiometry-report', audiometryReportProperties),
  'birth-history': defineRecordType('birth-history', birthHistoryProperties),
  'dental-history': defineRecordType('dental-history', dentalHistoryProperties),
  'dental-note': defineRecordType('dental-note', dentalNoteProperties),
  'developmental-milestone': defineRecordType('developmental-milestone', developmentalMilestoneProperties),
  'discharge-note': defineRecordType('discharge-note', dischargeNoteProperties),
  'ent-note': defineRecordType('ent-note', entNoteProperties),
  'family-history': defineRecordType('family-history', familyHistoryProperties),
  'gynecological-history': defineRecordType('gynecological-history', gynecologicalHistoryProperties),
  'hospitalization-history': defineRecordType('hospitalization-history', hospitalizationHistoryProperties),
  'hypertension-history': defineRecordType('hypertension-history', hypertensionHistoryProperties)
}

type TypeSchemas = typeof medicalRecordTypeSchemas

/** Fields the server owns for a given type (rejected in create/patch bodies). */
export const serverOwnedFieldsOf = (type: MedicalRecordType): string[] =>
  type === 'ape-report' ? [...serverOwnedFields, ...apeReportServerOwnedFields] : [...serverOwnedFields]

// Full record: union over the types
export const medicalRecordSchema = Type.Union(
  medicalRecordTypes.map((type) => medicalRecordTypeSchemas[type].record) as Array<
    TypeSchemas[MedicalRecordType]['record']
  >
)
export type MedicalRecord = Static<typeof medicalRecordSchema>

// Create body: union over the types
export const medicalRecordDataSchema = Type.Union(
  medicalRecordTypes.map((type) => medicalRecordTypeSchemas[type].data) as Array<
    TypeSchemas[MedicalRecordType]['data']
  >
)
export type MedicalRecordData = Static<typeof medicalRecordDataSchema>

// Patch body: union over the types (which one applies depends on the stored record's type)
export const medicalRecordPatchSchema = Type.Union(
  medicalRecordTypes.map((type) => medicalRecordTypeSchemas[type].patch) as Array<
    TypeSchemas[MedicalRecordType]['patch']
  >
)
export type MedicalRecordPatch = Static<typeof medicalRecordPatchSchema>

// ---------------------------------------------------------------------------------------------------------
// Query

export const medicalRecordQueryProperties = Type.Object(
  {
    id: Type.String(),
    type: StringEnum([...medicalRecordTypes]),
    account: QueryNullable(Type.String()),
    facility: QueryNullable(Type.String()),
    patient: QueryNullable(Type.String()),
    encounter: QueryNullable(Type.String()),
    createdAt: Type.Number(),
    createdBy: Type.String(),
    finalizedAt: QueryNullable(Type.Number()),
    provider: QueryNullable(Type.String())
  },
  { additionalProperties: false }
)
export const medicalRecordQuerySchema = querySyntax(medicalRecordQueryProperties)
export type MedicalRecordQuery = Static<typeof medicalRecordQuerySchema>

// ---------------------------------------------------------------------------------------------------------
// Defaults

/** Fills generated defaults in place (a missing `recommendedProcedures[].id` gets a random hex id) and returns the record. */
export const fillDefaults = <R>(record: R): R => {
  if (isPlainObject(record) && Array.isArray(record.recommendedProcedures)) {
    for (const procedure of record.recommendedProcedures) {
      if (
        isPlainObject(procedure) &&
        (procedure.id === undefined || procedure.id === null || procedure.id === '')
      ) {
        procedure.id = generateId()
      }
    }
  }
  return record
}

// ---------------------------------------------------------------------------------------------------------
// Validation that collects every problem

/** A valid body (cloned, defaults filled), or every problem found. */
export type ValidationResult =
  { value: Record<string, unknown>; errors?: undefined } | { value?: undefined; errors: FieldError[] }

// Compiled once at module load, with the one data validator of every service (src/schema/validators.ts).
const dataValidators = {} as Record<MedicalRecordType, ValidateFunction>
const patchValidators = {} as Record<MedicalRecordType, ValidateFunction>
for (const type of medicalRecordTypes) {
  dataValidators[type] = dataValidator.compile(medicalRecordTypeSchemas[type].data)
  patchValidators[type] = dataValidator.compile(medicalRecordTypeSchemas[type].patch)
}

const allowedTypesMessage = `must be one of: ${medicalRecordTypes.join(', ')}`

const runValidator = (
  validate: ValidateFunction,
  type: MedicalRecordType,
  body: Record<string, unknown>,
  patchTypeField: boolean
): ValidationResult => {
  const value = structuredClone(body)
  const valid = validate(value)
  const serverOwned = serverOwnedFieldsOf(type)
  const problems: FieldError[] = valid ? [] : fieldErrors(validate.errors, { serverOwned })
  if (patchTypeField) {
    // `type` is not a patch field; say why instead of the generic message.
    for (const problem of problems) {
      if (problem.field === 'type' && problem.message === 'is not an allowed field')
        problem.message = 'cannot be changed'
    }
  }
  problems.push(...permissionSelectorProblems(value.permissions))
  if (problems.length > 0) return { errors: problems }
  return { value: fillDefaults(value) }
}

/** Validates a create body; returns the (cloned, defaults-filled) value or every problem found. */
export const validateCreate = (body: unknown): ValidationResult => {
  if (!isPlainObject(body)) return { errors: [{ field: WHOLE_BODY, message: 'must be an object' }] }
  if (body.type === undefined || body.type === null || body.type === '') {
    return { errors: [{ field: 'type', message: 'is required' }] }
  }
  if (!isMedicalRecordType(body.type)) return { errors: [{ field: 'type', message: allowedTypesMessage }] }
  return runValidator(dataValidators[body.type], body.type, body, false)
}

/** Validates a patch body against the schema of `type` (the stored record's type). */
export const validatePatch = (type: string, body: unknown): ValidationResult => {
  if (type === undefined || type === null || type === '')
    return { errors: [{ field: 'type', message: 'is required' }] }
  if (!isMedicalRecordType(type)) return { errors: [{ field: 'type', message: allowedTypesMessage }] }
  if (!isPlainObject(body)) return { errors: [{ field: WHOLE_BODY, message: 'must be an object' }] }
  return runValidator(patchValidators[type], type, body, true)
}
