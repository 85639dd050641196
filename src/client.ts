// A typed Feathers client for browser apps and scripts: `createClient(socketio(io(url)))` or with REST.
import { feathers, type TransportConnection, type Application, type ClientService, type Paginated } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { AuthenticationRequest, AuthenticationResult } from '@feathersjs/authentication'
import authenticationClient from '@feathersjs/authentication-client'
import type { AuthenticationClientOptions } from '@feathersjs/authentication-client'
import { accountMethods, accountPath } from './services/accounts/accounts.shared'
import { organizationMethods, organizationPath } from './services/organizations/organizations.shared'
import { organizationMemberMethods, organizationMemberPath } from './services/organization-members/organization-members.shared'
import { medicalRecordMethods, medicalRecordPath } from './services/medical-records/medical-records.shared'
import { medicalEncounterMethods, medicalEncounterPath } from './services/medical-encounters/medical-encounters.shared'
import { serviceMethods, servicePath } from './services/services/services.shared'
import { billingInvoiceMethods, billingInvoicePath } from './services/billing-invoices/billing-invoices.shared'
import { billingItemMethods, billingItemPath } from './services/billing-items/billing-items.shared'
import { billingPaymentMethods, billingPaymentPath } from './services/billing-payments/billing-payments.shared'
import { webhookMethods, webhookPath } from './services/webhooks/webhooks.shared'
import { webhookEventMethods, webhookEventPath } from './services/webhook-events/webhook-events.shared'
import { auditEventMethods, auditEventPath } from './services/audit-events/audit-events.shared'
import { unifiedDirectoryMethods, unifiedDirectoryPath } from './services/unified-directory/unified-directory.shared'
import { inventoryVariantMethods, inventoryVariantPath } from './services/inventory-variants/inventory-variants.shared'
import { inventoryStockroomMethods, inventoryStockroomPath } from './services/inventory-stockrooms/inventory-stockrooms.shared'
import { inventoryStockMethods, inventoryStockPath } from './services/inventory-stocks/inventory-stocks.shared'
import { inventoryStockMovementMethods, inventoryStockMovementPath } from './services/inventory-stock-movements/inventory-stock-movements.shared'
import { requestOrderMethods, requestOrderPath } from './services/request-orders/request-orders.shared'
import type { ClientParams } from './services/client-params'
import type { AuditEventDoc, AuditSubscription, auditEventQuerySchema } from './services/audit-events/audit-events.schema'
import type { DirectoryQuery, DirectoryResult } from './services/unified-directory/unified-directory.schema'
import { subscriptionPackageMethods, subscriptionPackagePath } from './services/subscription-packages/subscription-packages.shared'
import { subscriptionMethods, subscriptionPath } from './services/subscriptions/subscriptions.shared'

/** Every service a client may call, by path: each `<name>.shared.ts` adds its entry, typed by the service's schemas. */
export interface ServiceTypes {
  /** POST /authentication (sign in, MFA steps) and DELETE (sign out), as @feathersjs/authentication-client calls them. */
  authentication: Pick<ClientService<AuthenticationResult, AuthenticationRequest>, 'create' | 'remove'>
  // The audit trail and the directory search are typed here, beside the other entries' `<name>.shared.ts`.
  [auditEventPath]: Pick<ClientService<AuditEventDoc, never, never, Paginated<AuditEventDoc>, ClientParams<Static<typeof auditEventQuerySchema>>>, 'find' | 'get'> & {
    /** Socket.IO, application admins: receive `created` for every audit event from now on (others 403). */
    subscribe(data?: Record<string, never>, params?: ClientParams<Record<string, never>>): Promise<AuditSubscription>
    unsubscribe(data?: Record<string, never>, params?: ClientParams<Record<string, never>>): Promise<AuditSubscription>
  }
  [unifiedDirectoryPath]: Pick<ClientService<DirectoryResult, never, never, Paginated<DirectoryResult>, ClientParams<DirectoryQuery>>, (typeof unifiedDirectoryMethods)[number]>
}

export type ClientApplication = Application<ServiceTypes, Record<string, unknown>>

/** Creates a client whose services know their methods; authentication uses POST /authentication. */
export const createClient = (connection: TransportConnection<ServiceTypes>, authenticationOptions: Partial<AuthenticationClientOptions> = {}) => {
  const client: ClientApplication = feathers()
  client.configure(connection)
  client.configure(authenticationClient(authenticationOptions))
  client.use(accountPath, connection.service(accountPath), { methods: [...accountMethods] })
  client.use(organizationPath, connection.service(organizationPath), { methods: [...organizationMethods] })
  client.use(organizationMemberPath, connection.service(organizationMemberPath), { methods: [...organizationMemberMethods] })
  client.use(medicalRecordPath, connection.service(medicalRecordPath), { methods: [...medicalRecordMethods] })
  client.use(medicalEncounterPath, connection.service(medicalEncounterPath), { methods: [...medicalEncounterMethods] })
  client.use(servicePath, connection.service(servicePath), { methods: [...serviceMethods] })
  client.use(billingInvoicePath, connection.service(billingInvoicePath), { methods: [...billingInvoiceMethods] })
  client.use(billingItemPath, connection.service(billingItemPath), { methods: [...billingItemMethods] })
  client.use(billingPaymentPath, connection.service(billingPaymentPath), { methods: [...billingPaymentMethods] })
  client.use(webhookPath, connection.service(webhookPath), { methods: [...webhookMethods] })
  client.use(webhookEventPath, connection.service(webhookEventPath), { methods: [...webhookEventMethods] })
  client.use(auditEventPath, connection.service(auditEventPath), { methods: [...auditEventMethods] })
  client.use(unifiedDirectoryPath, connection.service(unifiedDirectoryPath), { methods: [...unifiedDirectoryMethods] })
  client.use(inventoryVariantPath, connection.service(inventoryVariantPath), { methods: [...inventoryVariantMethods] })
  client.use(inventoryStockroomPath, connection.service(inventoryStockroomPath), { methods: [...inventoryStockroomMethods] })
  client.use(inventoryStockPath, connection.service(inventoryStockPath), { methods: [...inventoryStockMethods] })
  client.use(inventoryStockMovementPath, connection.service(inventoryStockMovementPath), { methods: [...inventoryStockMovementMethods] })
  client.use(requestOrderPath, connection.service(requestOrderPath), { methods: [...requestOrderMethods] })
  client.use(subscriptionPackagePath, connection.service(subscriptionPackagePath), { methods: [...subscriptionPackageMethods] })
  client.use(subscriptionPath, connection.service(subscriptionPath), { methods: [...subscriptionMethods] })
  return client
}
