// FHIR test helpers: the mapping context tests use, and resources compared "ids aside".
import type { FhirResource } from '../../src/fhir/mapping'

const systemBase = 'https://clinic.test/fhir'

export const fhirRecordContext = {
  systemBase,
  identifierOf: (kind: string, id: string) => [{ system: `${systemBase}/${kind}`, value: id }]
}

/** The resources with a record's id (and what is derived from it) replaced, and meta and the creation date (server
 *  owned) left out: what must be equal between two exports of the same content stored under different ids. */
export const stripIds = (resources: FhirResource[], recordId: string): unknown =>
  JSON.parse(
    JSON.stringify(resources.map(({ meta: _meta, date: _date, ...rest }) => rest))
      .split(recordId)
      .join('<id>')
  )
