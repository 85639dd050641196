// Who sees and registers a facility's patients. Every member of the facility (its superadmins included) reads its
// patient list: the staff must find the person in front of them. Registering a new patient (which may create an
// account) is for the facility's superadmins and the members holding the `patients` or `scheduling` privilege (the
// front desk); another member gets 403, anyone else (application admins included: patient data is private to the
// facility) 404.
import { Forbidden, NotFound } from '@feathersjs/errors'
import type { AccessContext } from '../access/context'
import { organizationIds } from '../access/context'
import type { PatientData } from '../services/patients/patients.shared'

/** The privileges that let a member register patients (besides being a superadmin of the facility). */
export const patientRegistrarPrivileges = ['patients', 'scheduling'] as const

/** Read rule: the patients of the caller's facilities. */
export const patientReadScope = (access: AccessContext) => ({ facility: { $in: organizationIds(access) } })

/** Facilities in which the caller registers patients. */
export const registrarFacilities = (access: AccessContext) =>
  access.memberships
    .filter((m) => m.superadmin || patientRegistrarPrivileges.some((p) => (m.privileges ?? []).includes(p)))
    .map((m) => m.organization)

/** Create rule: a stranger to the facility gets 404, a member who may not register 403. */
export const checkPatientCreate = (access: AccessContext, data: PatientData) => {
  if (!organizationIds(access).includes(data.facility))
    throw new NotFound(`No facility found for id '${data.facility}'`)
  if (!registrarFacilities(access).includes(data.facility))
    throw new Forbidden("Registering patients needs the 'patients' or 'scheduling' privilege or superadmin")
}
