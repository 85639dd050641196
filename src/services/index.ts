// Every documented path is a service; each registers itself, its access rules and its hooks.
import type { Application } from '../declarations'
import type { Deps, Stores } from '../deps'
import { accounts } from './accounts/accounts'
import { organizations } from './organizations/organizations'
import { organizationMembers } from './organization-members/organization-members'
import { organizationInvitations } from './organization-invitations/organization-invitations'
import { medicalRecords } from './medical-records/medical-records'
import { medicalEncounters } from './medical-encounters/medical-encounters'
import { facilityServices } from './services/services'
import { billingInvoices } from './billing-invoices/billing-invoices'
import { billingItems } from './billing-items/billing-items'
import { billingPayments } from './billing-payments/billing-payments'
import { billingCustomers } from './billing-customers/billing-customers'
import { billingPaymentIntents } from './billing-payment-intents/billing-payment-intents'
import { idempotencyStore } from '../billing/idempotency'
import { webhooks } from './webhooks/webhooks'
import { webhookEvents } from './webhook-events/webhook-events'
import { auditEvents } from './audit-events/audit-events'
import { unifiedDirectory } from './unified-directory/unified-directory'
import { inventoryVariants } from './inventory-variants/inventory-variants'
import { inventoryStockrooms } from './inventory-stockrooms/inventory-stockrooms'
import { inventoryStocks } from './inventory-stocks/inventory-stocks'
import { inventoryStockMovements } from './inventory-stock-movements/inventory-stock-movements'
import { requestOrders } from './request-orders/request-orders'
import { schedules } from './schedules/schedules'
import { appointmentSlots } from './appointment-slots/appointment-slots'
import { appointments } from './appointments/appointments'
import { queues } from './queues/queues'
import { queueItems } from './queue-items/queue-items'
import { subscriptionPackages } from './subscription-packages/subscription-packages'
import { subscriptions } from './subscriptions/subscriptions'
import { sessions } from './sessions/sessions'
import { patients } from './patients/patients'
import { notifications } from './notifications/notifications'
import { notificationSettings } from './notification-settings/notification-settings'
import { notificationTemplates } from './notification-templates/notification-templates'
import { sandboxClock } from './sandbox-clock/sandbox-clock'
import { attachments } from './attachments/attachments'
import { fhir } from './fhir/fhir'

export const services = (app: Application, deps: Deps) => {
  organizationMembers(app, deps)
  accounts(app, deps)
  organizations(app, deps)
  // Members by email: invitations with a mailed single-use code (docs/api-basics.md, "Invitations").
  organizationInvitations(app, deps)
  medicalRecords(app, deps)
  // Billing (docs/billing.md): encounters, the service catalogue, invoices, items, payments.
  medicalEncounters(app, deps)
  // Files on medical records and encounters (docs/attachments.md).
  attachments(app, deps)
  facilityServices(app, deps)
  billingInvoices(app, deps)
  billingItems(app, deps)
  billingPayments(app, deps)
  // Customers with cards saved at the card processor (src/providers/processor).
  billingCustomers(app, deps)
  // Payment intents through gateways (src/providers/gateways), with the sandbox approval page.
  billingPaymentIntents(app, deps)
  // Inventory (variants, stockrooms, stocks and their movement ledger) and request orders (docs/orders-inventory.md).
  inventoryVariants(app, deps)
  inventoryStockrooms(app, deps)
  inventoryStocks(app, deps)
  inventoryStockMovements(app, deps)
  requestOrders(app, deps)
  // Providers' weekly windows, free slots and appointments (docs/appointments.md).
  schedules(app, deps)
  appointmentSlots(app, deps)
  appointments(app, deps)
  // Waiting-room queues and their tickets (docs/appointments.md, "Queues").
  queues(app, deps)
  queueItems(app, deps)
  // What a facility pays for and may use (docs/subscriptions.md); the status effects are in src/subscriptions/enforce.ts.
  subscriptionPackages(app, deps)
  subscriptions(app, deps)
  // Sign-in sessions and their refresh tokens (src/auth/refresh.ts).
  sessions(app, deps)
  // What patients are told, by email and SMS (src/notifications/).
  notifications(app, deps)
  // A facility's notification settings and its message templates (with their preview).
  notificationSettings(app, deps)
  notificationTemplates(app, deps)
  // The movable clock of development and tests (SANDBOX_CLOCK=true only).
  sandboxClock(app, deps)
  webhooks(app, deps)
  webhookEvents(app, deps)
  // The audit trail (docs/audit-trail.md): read-only, written by src/hooks/record-audit.ts.
  auditEvents(app, deps)
  // The public directory search; its entries follow organizations and their catalogues (src/directory).
  unifiedDirectory(app, deps)
  // FHIR R4 (docs/fhir.md): bulk export jobs and import journals; the /fhir routes are src/services/fhir/routes.ts.
  fhir(app, deps)
  // A facility's patients and their search (src/patients): who is whose patient, for the staff's console.
  patients(app, deps)
}

/**
 * Every service's store, typed by its schemas, for the domain functions (the composition root puts it into `Deps`
 * once the services are registered). The `_` methods of each are internal: no hooks, no events.
 */
export const storesOf = (app: Application): Stores => ({
  accounts: app.service('accounts'),
  sessions: app.service('sessions'),
  organizations: app.service('organizations'),
  members: app.service('organization-members'),
  invitations: app.service('organization-invitations'),
  records: app.service('medical-records'),
  encounters: app.service('medical-encounters'),
  services: app.service('services'),
  invoices: app.service('billing-invoices'),
  items: app.service('billing-items'),
  payments: app.service('billing-payments'),
  customers: app.service('billing/customers'),
  intents: app.service('billing-payment-intents'),
  variants: app.service('inventory-variants'),
  stockrooms: app.service('inventory-stockrooms'),
  stocks: app.service('inventory-stocks'),
  movements: app.service('inventory-stock-movements'),
  orders: app.service('request/orders'),
  schedules: app.service('schedules'),
  appointments: app.service('appointments'),
  queues: app.service('queues'),
  queueItems: app.service('queue-items'),
  packages: app.service('subscription/packages'),
  subscriptions: app.service('subscriptions'),
  webhooks: app.service('webhooks'),
  deliveries: app.service('webhook-events').deliveries,
  auditEvents: app.service('audit-events').events,
  notifications: app.service('notifications'),
  notificationSettings: app.service('notification-settings'),
  notificationTemplates: app.service('notification-templates'),
  idempotencyKeys: idempotencyStore(app),
  attachments: app.service('attachments'),
  patients: app.service('patients')
})
