// A typed Feathers client for browser apps and scripts: `createClient(socketio(io(url)))` or with REST.
// Over Socket.IO it also ends the session the server says has ended (the `session-ended` event before the server
// cuts the connection: `logout` with the reason), and never leaves a call waiting on a socket that will not
// connect again: such a call fails at once.
import {
  feathers,
  type TransportConnection,
  type Application,
  type ClientService,
  type HookContext,
  type NextFunction,
  type Paginated
} from '@feathersjs/feathers'
import { NotAuthenticated, Unavailable } from '@feathersjs/errors'
import type { Static } from '@feathersjs/typebox'
import type { AuthenticationRequest, AuthenticationResult } from '@feathersjs/authentication'
import authenticationClient from '@feathersjs/authentication-client'
import type { AuthenticationClientOptions } from '@feathersjs/authentication-client'
import { accountMethods, accountPath } from './services/accounts/accounts.shared'
import { organizationMethods, organizationPath } from './services/organizations/organizations.shared'
import {
  organizationMemberMethods,
  organizationMemberPath
} from './services/organization-members/organization-members.shared'
import {
  organizationInvitationMethods,
  organizationInvitationPath
} from './services/organization-invitations/organization-invitations.shared'
import { medicalRecordMethods, medicalRecordPath } from './services/medical-records/medical-records.shared'
import { attachmentMethods, attachmentPath } from './services/attachments/attachments.shared'
import {
  medicalEncounterMethods,
  medicalEncounterPath
} from './services/medical-encounters/medical-encounters.shared'
import { serviceMethods, servicePath } from './services/services/services.shared'
import {
  billingInvoiceMethods,
  billingInvoicePath
} from './services/billing-invoices/billing-invoices.shared'
import { billingItemMethods, billingItemPath } from './services/billing-items/billing-items.shared'
import {
  billingPaymentMethods,
  billingPaymentPath
} from './services/billing-payments/billing-payments.shared'
import { webhookMethods, webhookPath } from './services/webhooks/webhooks.shared'
import { webhookEventMethods, webhookEventPath } from './services/webhook-events/webhook-events.shared'
import { auditEventMethods, auditEventPath } from './services/audit-events/audit-events.shared'
import {
  unifiedDirectoryMethods,
  unifiedDirectoryPath
} from './services/unified-directory/unified-directory.shared'
import {
  inventoryVariantMethods,
  inventoryVariantPath
} from './services/inventory-variants/inventory-variants.shared'
import {
  inventoryStockroomMethods,
  inventoryStockroomPath
} from './services/inventory-stockrooms/inventory-stockrooms.shared'
import {
  inventoryStockMethods,
  inventoryStockPath
} from './services/inventory-stocks/inventory-stocks.shared'
import {
  inventoryStockMovementMethods,
  inventoryStockMovementPath
} from './services/inventory-stock-movements/inventory-stock-movements.shared'
import { requestOrderMethods, requestOrderPath } from './services/request-orders/request-orders.shared'
import { scheduleMethods, schedulePath } from './services/schedules/schedules.shared'
import {
  appointmentSlotMethods,
  appointmentSlotPath
} from './services/appointment-slots/appointment-slots.shared'
import { appointmentMethods, appointmentPath } from './services/appointments/appointments.shared'
import { sandboxClockMethods, sandboxClockPath } from './services/sandbox-clock/sandbox-clock.shared'
import { queueMethods, queuePath } from './services/queues/queues.shared'
import { queueItemMethods, queueItemPath } from './services/queue-items/queue-items.shared'
import {
  notificationSettingsMethods,
  notificationSettingsPath
} from './services/notification-settings/notification-settings.shared'
import {
  notificationTemplateMethods,
  notificationTemplatePath,
  templatePreviewMethods,
  templatePreviewPath
} from './services/notification-templates/notification-templates.shared'
import { notificationMethods, notificationPath } from './services/notifications/notifications.shared'
import type { ClientParams } from './services/client-params'
import type {
  AuditEventDoc,
  AuditSubscription,
  auditEventQuerySchema
} from './services/audit-events/audit-events.schema'
import type { DirectoryQuery, DirectoryResult } from './services/unified-directory/unified-directory.schema'
import {
  subscriptionPackageMethods,
  subscriptionPackagePath
} from './services/subscription-packages/subscription-packages.shared'
import { subscriptionMethods, subscriptionPath } from './services/subscriptions/subscriptions.shared'
import { SESSION_ENDED_EVENT, type SessionEnded } from './schema/session-ended.shared'
import { sessionMethods, sessionPath } from './services/sessions/sessions.shared'
import { patientMethods, patientPath } from './services/patients/patients.shared'

export {
  SESSION_ENDED_EVENT,
  sessionEndMessages,
  type SessionEnded,
  type SessionEndReason
} from './schema/session-ended.shared'

/** Every service a client may call, by path: each `<name>.shared.ts` adds its entry, typed by the service's schemas. */
export interface ServiceTypes {
  /** POST /authentication (sign in, MFA steps) and DELETE (sign out), as @feathersjs/authentication-client calls them. */
  authentication: Pick<ClientService<AuthenticationResult, AuthenticationRequest>, 'create' | 'remove'>
  // The audit trail and the directory search are typed here, beside the other entries' `<name>.shared.ts`.
  [auditEventPath]: Pick<
    ClientService<
      AuditEventDoc,
      never,
      never,
      Paginated<AuditEventDoc>,
      // `$names: true`: each event with its actor's display name and role (who accessed my record).
      ClientParams<Static<typeof auditEventQuerySchema> & { $names?: boolean }>
    >,
    'find' | 'get'
  > & {
    /** Socket.IO, application admins: receive `created` for every audit event from now on (others 403). */
    subscribe(
      data?: Record<string, never>,
      params?: ClientParams<Record<string, never>>
    ): Promise<AuditSubscription>
    unsubscribe(
      data?: Record<string, never>,
      params?: ClientParams<Record<string, never>>
    ): Promise<AuditSubscription>
  }
  [unifiedDirectoryPath]: Pick<
    ClientService<DirectoryResult, never, never, Paginated<DirectoryResult>, ClientParams<DirectoryQuery>>,
    (typeof unifiedDirectoryMethods)[number]
  >
}

export type ClientApplication = Application<ServiceTypes, Record<string, unknown>>

/** What the client reads of a socket.io-client socket (the app brings its own socket.io-client). */
interface ClientSocket {
  connected: boolean
  /** False once the socket will not connect again by itself (cut by the server, or closed by the app). */
  active: boolean
  connect(): unknown
  // (`never[]`: a listener of whichever arguments its event carries)
  on(event: string, listener: (...args: never[]) => void): unknown
  off(event: string, listener: (...args: never[]) => void): unknown
}

/**
 * The client's side of the server ending a session (src/auth/sessions.ts) on a Socket.IO connection:
 * - on the `session-ended` event (sent just before the server disconnects the socket) the client forgets its
 *   session (stored token included) and emits `logout` with `{ reason, message }`;
 * - a call on a socket that will not connect again fails at once instead of waiting for ever: with 401
 *   NotAuthenticated (`data.reason`: why) after a session end, else 503 Unavailable; a call waiting for its answer
 *   when such a disconnect happens fails the same way. A new sign-in (`authenticate`) after a session end connects
 *   the socket again.
 */
const followSessionEnd = (client: ClientApplication, socket: ClientSocket) => {
  let ended: SessionEnded | undefined
  socket.on(SESSION_ENDED_EVENT, (event: SessionEnded) => {
    ended = { reason: event?.reason, message: event?.message }
    // Synchronous first: signed out before the disconnect, so the authentication client does not sign in again.
    void client.authentication.reset()
    void client.authentication.removeAccessToken()
    client.emit('logout', ended)
  })
  client.on('login', () => (ended = undefined))
  const closed = () =>
    ended
      ? new NotAuthenticated(ended.message, { reason: ended.reason })
      : new Unavailable('The connection to the server is closed; connect again to make calls', {
          reason: 'disconnected'
        })
  client.hooks({
    around: {
      all: [
        async (context: HookContext, next: NextFunction) => {
          if (!socket.connected && !socket.active) {
            const signIn = context.path === 'authentication' && context.method === 'create'
            if (ended && signIn) socket.connect()
            // Signing in again on a socket the app closed waits for the app to connect it, as before.
            else if (!signIn) throw closed()
          }
          let cut: () => void = () => undefined
          try {
            await new Promise<void>((resolve, reject) => {
              cut = () => {
                if (!socket.active) reject(closed())
              }
              socket.on('disconnect', cut)
              next().then(resolve, reject)
            })
          } finally {
            socket.off('disconnect', cut)
          }
        }
      ]
    }
  })
}

/** Creates a client whose services know their methods; authentication uses POST /authentication. */
export const createClient = (
  connection: TransportConnection<ServiceTypes>,
  authenticationOptions: Partial<AuthenticationClientOptions> = {}
) => {
  const client: ClientApplication = feathers()
  client.configure(connection)
  // Registered before the authentication client's hooks, so they wrap them (a call on a closed socket never
  // waits for a sign-in that cannot happen).
  const socket = (client as ClientApplication & { io?: ClientSocket }).io // set by @feathersjs/socketio-client, untyped
  if (socket) followSessionEnd(client, socket)
  client.configure(authenticationClient(authenticationOptions))
  client.use(accountPath, connection.service(accountPath), { methods: [...accountMethods] })
  client.use(organizationPath, connection.service(organizationPath), { methods: [...organizationMethods] })
  client.use(organizationMemberPath, connection.service(organizationMemberPath), {
    methods: [...organizationMemberMethods]
  })
  client.use(organizationInvitationPath, connection.service(organizationInvitationPath), {
    methods: [...organizationInvitationMethods]
  })
  client.use(medicalRecordPath, connection.service(medicalRecordPath), { methods: [...medicalRecordMethods] })
  client.use(medicalEncounterPath, connection.service(medicalEncounterPath), {
    methods: [...medicalEncounterMethods]
  })
  client.use(attachmentPath, connection.service(attachmentPath), { methods: [...attachmentMethods] })
  client.use(servicePath, connection.service(servicePath), { methods: [...serviceMethods] })
  client.use(billingInvoicePath, connection.service(billingInvoicePath), {
    methods: [...billingInvoiceMethods]
  })
  client.use(billingItemPath, connection.service(billingItemPath), { methods: [...billingItemMethods] })
  client.use(billingPaymentPath, connection.service(billingPaymentPath), {
    methods: [...billingPaymentMethods]
  })
  client.use(webhookPath, connection.service(webhookPath), { methods: [...webhookMethods] })
  client.use(webhookEventPath, connection.service(webhookEventPath), { methods: [...webhookEventMethods] })
  client.use(auditEventPath, connection.service(auditEventPath), { methods: [...auditEventMethods] })
  client.use(unifiedDirectoryPath, connection.service(unifiedDirectoryPath), {
    methods: [...unifiedDirectoryMethods]
  })
  client.use(inventoryVariantPath, connection.service(inventoryVariantPath), {
    methods: [...inventoryVariantMethods]
  })
  client.use(inventoryStockroomPath, connection.service(inventoryStockroomPath), {
    methods: [...inventoryStockroomMethods]
  })
  client.use(inventoryStockPath, connection.service(inventoryStockPath), {
    methods: [...inventoryStockMethods]
  })
  client.use(inventoryStockMovementPath, connection.service(inventoryStockMovementPath), {
    methods: [...inventoryStockMovementMethods]
  })
  client.use(requestOrderPath, connection.service(requestOrderPath), { methods: [...requestOrderMethods] })
  client.use(schedulePath, connection.service(schedulePath), { methods: [...scheduleMethods] })
  client.use(appointmentSlotPath, connection.service(appointmentSlotPath), {
    methods: [...appointmentSlotMethods]
  })
  client.use(appointmentPath, connection.service(appointmentPath), { methods: [...appointmentMethods] })
  client.use(queuePath, connection.service(queuePath), { methods: [...queueMethods] })
  client.use(queueItemPath, connection.service(queueItemPath), { methods: [...queueItemMethods] })
  client.use(notificationSettingsPath, connection.service(notificationSettingsPath), {
    methods: [...notificationSettingsMethods]
  })
  client.use(notificationTemplatePath, connection.service(notificationTemplatePath), {
    methods: [...notificationTemplateMethods]
  })
  client.use(templatePreviewPath, connection.service(templatePreviewPath), {
    methods: [...templatePreviewMethods]
  })
  client.use(notificationPath, connection.service(notificationPath), { methods: [...notificationMethods] })
  client.use(subscriptionPackagePath, connection.service(subscriptionPackagePath), {
    methods: [...subscriptionPackageMethods]
  })
  client.use(subscriptionPath, connection.service(subscriptionPath), { methods: [...subscriptionMethods] })
  client.use(sessionPath, connection.service(sessionPath), { methods: [...sessionMethods] })
  client.use(patientPath, connection.service(patientPath), { methods: [...patientMethods] })
  // (SANDBOX_CLOCK=true servers only)
  client.use(sandboxClockPath, connection.service(sandboxClockPath), { methods: [...sandboxClockMethods] })
  return client
}

/** What `keepSessionAlive` answers: `stop()` ends the refreshing (signing out stops it too). */
export interface SessionKeeper {
  stop(): void
}

// The claims of an access token the client holds (read only to know when it expires; the server verifies it).
const expiryOf = (accessToken: unknown): number | undefined => {
  if (typeof accessToken !== 'string') return undefined
  try {
    const part = accessToken.split('.')[1] ?? ''
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'))
    const exp = (JSON.parse(json) as { exp?: unknown }).exp
    return typeof exp === 'number' ? exp * 1000 : undefined
  } catch {
    return undefined
  }
}

/**
 * Keeps a signed-in client signed in for as long as its session lives (a clinic shift), though access tokens are
 * short: before the access token expires it exchanges the refresh token (`POST /authentication { action:
 * "refreshAccessToken", refreshToken }`) for a new pair and re-authenticates with the new access token
 * (`authenticate({ strategy: "jwt", accessToken })`: over Socket.IO the same connection, keeping its channels and
 * subscriptions). Call it once after `createClient`; every later sign-in is followed. The refresh token is kept in
 * memory only (never in storage, never in a URL); `marginMs` is how long before expiry it refreshes (default: a
 * fifth of the token's lifetime, at most a minute). A refused refresh (the session ended) leaves the client as the
 * server's `session-ended` event or the next call's 401 says.
 */
export const keepSessionAlive = (
  client: ClientApplication,
  options: { marginMs?: number } = {}
): SessionKeeper => {
  let refreshToken: string | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  const clear = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const refresh = async () => {
    timer = undefined
    if (stopped || !refreshToken) return
    try {
      const pair = (await client.service('authentication').create({
        action: 'refreshAccessToken',
        refreshToken
      })) as { accessToken?: string; refreshToken?: string }
      if (!pair.accessToken || !pair.refreshToken) return
      refreshToken = pair.refreshToken
      await client.authenticate({ strategy: 'jwt', accessToken: pair.accessToken })
    } catch (error) {
      client.emit('session-refresh-failed', error)
    }
  }
  const schedule = (accessToken: unknown) => {
    clear()
    const expiresAt = expiryOf(accessToken)
    if (stopped || !refreshToken || expiresAt === undefined) return
    const lifetime = Math.max(expiresAt - Date.now(), 0)
    const margin = options.marginMs ?? Math.min(60_000, Math.max(lifetime / 5, 200))
    timer = setTimeout(() => void refresh(), Math.max(lifetime - margin, 0))
  }
  const onLogin = (result: { accessToken?: unknown; refreshToken?: unknown }) => {
    if (typeof result?.refreshToken === 'string') refreshToken = result.refreshToken
    schedule(result?.accessToken)
  }
  const onLogout = () => {
    clear()
    refreshToken = undefined
  }
  client.on('login', onLogin)
  client.on('logout', onLogout)
  return {
    stop() {
      stopped = true
      clear()
      client.off('login', onLogin)
      client.off('logout', onLogout)
    }
  }
}
