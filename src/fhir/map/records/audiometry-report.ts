// audiometry-report → DiagnosticReport whose results are one Observation per audiogram point: the hearing level
// as the value (UCUM dB), the frequency as a component (UCUM Hz), the point's audiogram key in an extension; the
// series (air/bone conduction, right/left ear, bone free field) is the Observation's code. Remarks are the
// report's conclusion.
import type { FhirResource } from '../../types'
import {
  UCUM,
  compact,
  decodeExtension,
  encodeExtension,
  fhirId,
  getPath,
  isObj,
  metaOf,
  type Obj
} from '../common'
import { finality, refTo, type RecordMapping } from '../record'
import { codeSystemOf, observationCategory, recordCode } from './shared'

const series: [string, string][] = [
  ['airRightEar', 'Air conduction, right ear'],
  ['airLeftEar', 'Air conduction, left ear'],
  ['boneRightEar', 'Bone conduction, right ear'],
  ['boneLeftEar', 'Bone conduction, left ear'],
  ['boneFF', 'Bone conduction, free field']
]
/** boneFF holds its numbers as text: a quantity when the text is the number's own spelling, else a string. */
const textSeries = new Set(['boneFF'])

const quantity = (value: unknown, unit: string) => {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN
  if (typeof value === 'string' && (value === '' || String(number) !== value)) return { valueString: value }
  if (!Number.isFinite(number)) return undefined
  return { valueQuantity: { value: number, unit, system: UCUM, code: unit } }
}
const fromQuantity = (element: Obj, text: boolean): unknown => {
  if (typeof element.valueString === 'string') return element.valueString
  const value = isObj(element.valueQuantity) ? element.valueQuantity.value : undefined
  if (typeof value !== 'number') return undefined
  return text ? String(value) : value
}

const FREQUENCY = 'frequency'

export const audiometryReport: RecordMapping = {
  type: 'audiometry-report',
  resourceType: 'DiagnosticReport',
  secondary: ['Observation'],
  patient: 'subject',
  encounter: 'encounter',
  provider: 'performer[]',
  fields: [{ field: 'remarks', path: 'conclusion', kind: 'string' }],
  fixed: (record) => ({ status: finality(record), code: recordCode('audiometry-report', 'Audiometry') }),
  custom: {
    fields: series.map(([field]) => field),
    describe: Object.fromEntries(
      series.map(([field, label]) => [
        field,
        `Observation per point (code ${codeSystemOf('audiometry-report')}#${field} "${label}"; hearingLevel → valueQuantity dB, frequency → component frequency Hz, audiogramKey → extension), listed in DiagnosticReport.result`
      ])
    ),
    build(record, primary) {
      const observations: FhirResource[] = []
      for (const [field, label] of series) {
        const points = Array.isArray(record[field]) ? (record[field] as unknown[]).filter(isObj) : []
        points.forEach((point, position) => {
          const id = fhirId(String(record.id), field, position)
          const frequency = quantity(point.frequency, 'Hz')
          observations.push(
            compact({
              resourceType: 'Observation',
              id,
              meta: metaOf(record, 'audiometry-report'),
              status: finality(record),
              category: observationCategory('exam'),
              code: {
                coding: [{ system: codeSystemOf('audiometry-report'), code: field, display: label }],
                text: label
              },
              subject: refTo('Patient', String(record.patient)),
              encounter:
                typeof record.encounter === 'string' && record.encounter !== ''
                  ? refTo('Encounter', record.encounter)
                  : undefined,
              ...quantity(point.hearingLevel, 'dB'),
              component: frequency
                ? [
                    {
                      id: FREQUENCY,
                      code: {
                        coding: [{ system: codeSystemOf('audiometry-report'), code: FREQUENCY }],
                        text: 'Frequency'
                      },
                      ...frequency
                    }
                  ]
                : undefined,
              extension: encodeExtension('audiogramKey', 'string', point.audiogramKey)
            }) as FhirResource
          )
        })
      }
      primary.result = observations.map((observation) => ({ reference: `Observation/${observation.id}` }))
      return observations
    },
    parse(primary, related, body) {
      const results = Array.isArray(primary.result) ? primary.result : []
      for (const reference of results) {
        const observation = related.take(reference)
        if (!observation) continue
        const field = getPath(observation, 'code.coding[].code')
        if (typeof field !== 'string' || !series.some(([name]) => name === field)) continue
        const text = textSeries.has(field)
        const frequencyElement = getPath(observation, `component#${FREQUENCY}`)
        const point = compact({
          frequency: isObj(frequencyElement) ? fromQuantity(frequencyElement, text) : undefined,
          hearingLevel: fromQuantity(observation, text),
          audiogramKey: decodeExtension('audiogramKey', 'string', observation.extension)
        })
        const list = (Array.isArray(body[field]) ? body[field] : []) as unknown[]
        list.push(point)
        body[field] = list
      }
    }
  }
}
