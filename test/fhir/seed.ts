// Records of every type the mapping covers, filed under a facility for a patient (the fixtures' rich bodies, with
// this server's ids in place of the fixtures' placeholders).
import assert from 'node:assert/strict'
import { restClient, type SignedUp, type TestServer } from '../helpers/app'
import { validRecords } from '../fixtures/medical-records'
import { recordMappings } from '../../src/fhir/map/records'
import { createRecord } from './helpers'

/** The record types the mapping covers. */
export const mappedTypes = () => Object.keys(recordMappings).sort()

/** A create body of `type` about `patient` in `facility`, readable by the facility's members and the patient. */
export const recordBody = (type: string, facility: string, patient: string) => {
  const {
    encounter: _encounter,
    permissions: _permissions,
    ...body
  } = validRecords[type as keyof typeof validRecords]
  return {
    ...body,
    facility,
    patient,
    permissions: [{ organization: facility }, { uid: patient }]
  }
}

/**
 * For each patient: one encounter in the facility and one record of each mapped type filed under it; answers the
 * records created (`seeded.encounters` lists the encounters).
 */
export const seedRecords = async (
  server: TestServer,
  by: SignedUp,
  facility: string,
  patients: string[],
  seeded: { encounters: any[] } = { encounters: [] }
): Promise<any[]> => {
  const created: any[] = []
  for (const patient of patients) {
    const encounter = await restClient(server.url, by.token).post('/medical-encounters', {
      facility,
      patient,
      startedAt: 1767225600000,
      reason: 'Yearly check-up'
    })
    assert.equal(encounter.status, 201, JSON.stringify(encounter.body))
    seeded.encounters.push(encounter.body)
    for (const type of mappedTypes())
      created.push(
        await createRecord(server, by, {
          ...recordBody(type, facility, patient),
          encounter: encounter.body.id
        })
      )
  }
  return created
}
