// Every documented path is a service; each registers itself, its access rules and its hooks.
import type { Application } from '../declarations'
import { accounts } from './accounts/accounts'
import { organizations } from './organizations/organizations'
import { organizationMembers } from './organization-members/organization-members'
import { medicalRecords } from './medical-records/medical-records'

export const services = (app: Application) => {
  app.configure(organizationMembers)
  app.configure(accounts)
  app.configure(organizations)
  app.configure(medicalRecords)
}
