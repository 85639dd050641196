// Every documented path is a service; each registers itself, its access rules and its hooks.
import type { Application } from '../declarations'
import { accounts } from './accounts/accounts'
import { organizations } from './organizations/organizations'
import { organizationMembers } from './organization-members/organization-members'
import { medicalRecords } from './medical-records/medical-records'
import { webhooks } from './webhooks/webhooks'
import { webhookEvents } from './webhook-events/webhook-events'

export const services = (app: Application) => {
  app.configure(organizationMembers)
  app.configure(accounts)
  app.configure(organizations)
  app.configure(medicalRecords)
  app.configure(webhooks)
  app.configure(webhookEvents)
}
