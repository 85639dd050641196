// ape-report (annual physical examination) → DiagnosticReport (the report text as conclusion, the classification
// as conclusion code) + QuestionnaireResponse holding the examination form's answers (`data.values`): one item per
// value (linkId = its id); `answer` and each of `answers` as answer entries labelled `answer` / `answers-<i>`.
// Answers that are no FHIR string, number or boolean (objects, lists, null, '') are JSON text flagged by the
// `json` extension. The report refers to its QuestionnaireResponse by the `data` extension.
import type { FhirResource } from '../../types'
import { compact, decodeExtension, extensionUrl, fhirId, isObj, metaOf, type Obj } from '../common'
import { finality, refTo, type RecordMapping } from '../record'
import { recordCode } from './shared'

const JSON_FLAG = extensionUrl('json')

const answerOf = (id: string, value: unknown): Obj => {
  if (typeof value === 'string' && value !== '') return { id, valueString: value }
  if (typeof value === 'boolean') return { id, valueBoolean: value }
  if (typeof value === 'number' && Number.isFinite(value)) return { id, valueDecimal: value }
  return { id, valueString: JSON.stringify(value), extension: [{ url: JSON_FLAG, valueBoolean: true }] }
}
const valueOfAnswer = (answer: Obj): unknown => {
  const json =
    Array.isArray(answer.extension) && answer.extension.some((ext) => isObj(ext) && ext.url === JSON_FLAG)
  if (json && typeof answer.valueString === 'string') return JSON.parse(answer.valueString)
  return answer.valueString ?? answer.valueBoolean ?? answer.valueDecimal ?? answer.valueInteger
}

export const apeReport: RecordMapping = {
  type: 'ape-report',
  resourceType: 'DiagnosticReport',
  secondary: ['QuestionnaireResponse'],
  patient: 'subject',
  encounter: 'encounter',
  provider: 'performer[]',
  fields: [
    { field: 'report', path: 'conclusion', kind: 'string' },
    { field: 'classification', path: 'conclusionCode#classification.text', kind: 'string' }
  ],
  fixed: (record) => ({
    status: finality(record),
    code: recordCode('ape-report', 'Annual physical examination')
  }),
  custom: {
    fields: ['data'],
    describe: {
      data: "QuestionnaireResponse (item per data.values element: linkId = id, answer entries 'answer' / 'answers-<i>'), referenced by the report's extension '…/data'"
    },
    build(record, primary) {
      if (!isObj(record.data)) return []
      const values = Array.isArray(record.data.values) ? record.data.values.filter(isObj) : undefined
      const id = fhirId(String(record.id), 'data')
      const response = compact({
        resourceType: 'QuestionnaireResponse',
        id,
        meta: metaOf(record, 'ape-report'),
        status: 'completed',
        subject: refTo('Patient', String(record.patient)),
        encounter:
          typeof record.encounter === 'string' && record.encounter !== ''
            ? refTo('Encounter', record.encounter)
            : undefined,
        item: (values ?? []).map((value) => ({
          linkId: String(value.id),
          answer: [
            ...('answer' in value ? [answerOf('answer', value.answer)] : []),
            ...(Array.isArray(value.answers)
              ? value.answers.map((answer, i) => answerOf(`answers-${i}`, answer))
              : [])
          ],
          extension: Array.isArray(value.answers)
            ? [{ url: extensionUrl('answers'), valueInteger: value.answers.length }]
            : undefined
        })),
        // Whether `data.values` was given (an empty list has no items to show it).
        extension: values ? [{ url: extensionUrl('values'), valueInteger: values.length }] : undefined
      }) as FhirResource
      primary.extension = [
        ...(Array.isArray(primary.extension) ? primary.extension : []),
        { url: extensionUrl('data'), valueReference: { reference: `QuestionnaireResponse/${id}` } }
      ]
      return [response]
    },
    parse(primary, related, body) {
      const link = Array.isArray(primary.extension)
        ? primary.extension.find((ext) => isObj(ext) && ext.url === extensionUrl('data'))
        : undefined
      const response = isObj(link) ? related.take(link.valueReference) : undefined
      if (!response) return
      const items = Array.isArray(response.item) ? response.item.filter(isObj) : []
      const hasValues =
        decodeExtension('values', 'number', response.extension) !== undefined || items.length > 0
      if (!hasValues) {
        body.data = {}
        return
      }
      body.data = {
        values: items.map((item) => {
          const answers = Array.isArray(item.answer) ? item.answer.filter(isObj) : []
          const single = answers.find((answer) => answer.id === 'answer')
          const count = decodeExtension('answers', 'number', item.extension)
          const many = answers.filter(
            (answer) => typeof answer.id === 'string' && answer.id.startsWith('answers-')
          )
          return {
            id: item.linkId,
            ...(single ? { answer: valueOfAnswer(single) } : {}),
            ...(count !== undefined || many.length > 0 ? { answers: many.map(valueOfAnswer) } : {})
          }
        })
      }
    }
  }
}
