// Records of every type the mapping covers, filed under a facility for a patient (the fixtures' rich bodies, with
// this server's ids in place of the fixtures' placeholders).
import type { SignedUp, TestServer } from '../helpers/app'
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

/** One record of each mapped type for each patient; answers the records created. */
export const seedRecords = async (
  server: TestServer,
  by: SignedUp,
  facility: string,
  patients: string[]
): Promise<any[]> => {
  const created: any[] = []
  for (const patient of patients)
    for (const type of mappedTypes())
      created.push(await createRecord(server, by, recordBody(type, facility, patient)))
  return created
}
