// What the OpenAPI document says about each service beyond its path and methods: the TypeBox schemas of its
// result, create/update/patch bodies and query, the body operators its patch accepts, and a summary. Services
// registered without an entry here still appear (every registered path is listed, with generic shapes); a
// service can also describe itself with a `docs` property of this shape on the service object.
import {
  appointmentDataSchema,
  appointmentPatchSchema,
  appointmentQuerySchema,
  appointmentSchema
} from '../../services/appointments/appointments.schema'
import { slotQuerySchema, slotSchema } from '../../services/appointment-slots/appointment-slots.schema'
import {
  attachmentAnswerSchema,
  attachmentDataSchema,
  attachmentInternals,
  attachmentPatchSchema,
  attachmentQuerySchema,
  attachmentSchema
} from '../../services/attachments/attachments.schema'
import {
  sandboxClockMoveSchema,
  sandboxClockMovedSchema,
  sandboxClockSchema
} from '../../services/sandbox-clock/sandbox-clock.schema'
import {
  scheduleDataSchema,
  schedulePatchSchema,
  scheduleQuerySchema,
  scheduleSchema
} from '../../services/schedules/schedules.schema'
import {
  queueDataSchema,
  queueInternals,
  queuePatchSchema,
  queueQuerySchema,
  queueSchema
} from '../../services/queues/queues.schema'
import {
  queueItemDataSchema,
  queueItemInternals,
  queueItemPatchSchema,
  queueItemQuerySchema,
  queueItemSchema
} from '../../services/queue-items/queue-items.schema'
import {
  notificationSettingsDataSchema,
  notificationSettingsPatchSchema,
  notificationSettingsQuerySchema,
  notificationSettingsSchema
} from '../../services/notification-settings/notification-settings.schema'
import {
  notificationTemplateDataSchema,
  notificationTemplateInternals,
  notificationTemplatePatchSchema,
  notificationTemplateQuerySchema,
  notificationTemplateSchema,
  templatePreviewDataSchema,
  templatePreviewSchema
} from '../../services/notification-templates/notification-templates.schema'
import {
  notificationInternals,
  notificationQuerySchema,
  notificationSchema
} from '../../services/notifications/notifications.schema'
import {
  patientDataSchema,
  patientGetQuerySchema,
  patientInternals,
  patientQuerySchema,
  patientSchema
} from '../../services/patients/patients.schema'
import { Type, type TSchema } from '@feathersjs/typebox'
import {
  accountDataSchema,
  accountPatchSchema,
  accountQuerySchema,
  accountSchema,
  accountSecrets
} from '../../services/accounts/accounts.schema'
import { auditEventQuerySchema, auditEventSchema } from '../../services/audit-events/audit-events.schema'
import {
  invoiceDataSchema,
  invoicePatchSchema,
  invoiceQuerySchema,
  invoiceSchema
} from '../../services/billing-invoices/billing-invoices.schema'
import {
  itemDataSchema,
  itemPatchSchema,
  itemQuerySchema,
  itemSchema
} from '../../services/billing-items/billing-items.schema'
import {
  customerDataSchema,
  customerPatchSchema,
  customerQuerySchema,
  customerSchema,
  operatorSchemas as customerOperators
} from '../../services/billing-customers/billing-customers.schema'
import {
  intentDataSchema,
  intentPatchSchema,
  intentQuerySchema,
  intentSchema
} from '../../services/billing-payment-intents/billing-payment-intents.schema'
import {
  paymentDataSchema,
  paymentPatchSchema,
  paymentQuerySchema,
  paymentSchema
} from '../../services/billing-payments/billing-payments.schema'
import {
  encounterDataSchema,
  encounterPatchSchema,
  encounterQuerySchema,
  encounterSchema,
  encounterUpdateSchema
} from '../../services/medical-encounters/medical-encounters.schema'
import {
  medicalRecordDataSchema,
  medicalRecordPatchSchema,
  medicalRecordQuerySchema,
  medicalRecordSchema
} from '../../services/medical-records/medical-records.schema'
import {
  memberDataSchema,
  memberPatchSchema,
  memberQuerySchema,
  memberSchema
} from '../../services/organization-members/organization-members.schema'
import {
  invitationAcceptSchema,
  invitationDataSchema,
  invitationQuerySchema,
  invitationSchema
} from '../../services/organization-invitations/organization-invitations.schema'
import {
  organizationDataSchema,
  organizationPatchSchema,
  organizationQuerySchema,
  organizationSchema
} from '../../services/organizations/organizations.schema'
import {
  serviceDataSchema,
  servicePatchSchema,
  serviceQuerySchema,
  serviceSchema
} from '../../services/services/services.schema'
import { directoryQuerySchema } from '../../services/unified-directory/unified-directory.schema'
import {
  deliveryQuerySchema,
  deliverySchema,
  pingSchema,
  retrySchema
} from '../../services/webhook-events/webhook-events.schema'
import {
  webhookDataSchema,
  webhookPatchSchema,
  webhookQuerySchema,
  webhookSchema
} from '../../services/webhooks/webhooks.schema'
import { sessionQuerySchema, sessionViewSchema } from '../../services/sessions/sessions.schema'
import { actionSchemas } from '../../auth/flows'
import {
  packageDataSchema,
  packagePatchSchema,
  packageQuerySchema,
  packageSchema
} from '../../services/subscription-packages/subscription-packages.schema'
import {
  packageChangeSchema,
  statusChangeSchema,
  subscriptionDataSchema,
  subscriptionQuerySchema,
  subscriptionSchema,
  toggleSchema
} from '../../services/subscriptions/subscriptions.schema'
import { customerGetQuerySchema } from '../../services/billing-customers/billing-customers.schema'
import {
  orderDataSchema,
  orderQuerySchema,
  orderSchema
} from '../../services/request-orders/request-orders.schema'
import {
  stockroomDataSchema,
  stockroomPatchSchema,
  stockroomQuerySchema,
  stockroomSchema
} from '../../services/inventory-stockrooms/inventory-stockrooms.schema'
import {
  variantDataSchema,
  variantPatchSchema,
  variantQuerySchema,
  variantSchema
} from '../../services/inventory-variants/inventory-variants.schema'
import {
  stockDataSchema,
  stockQuerySchema,
  stockSchema
} from '../../services/inventory-stocks/inventory-stocks.schema'
import {
  movementQuerySchema,
  movementSchema
} from '../../services/inventory-stock-movements/inventory-stock-movements.schema'
import { IdString, Text, Timestamp } from '../../schema/common'

export interface ServiceDoc {
  /** One line shown next to the service's name. */
  summary?: string
  /** The document as clients read it. */
  result?: TSchema
  /** Create bodies: one schema, or several accepted shapes (each documented as its own alternative). */
  data?: TSchema | Record<string, TSchema>
  update?: TSchema
  patch?: TSchema | Record<string, TSchema>
  query?: TSchema
  /** The query of GET /<path>/{id} (e.g. a `$populate…` flag), when it accepts one. */
  getQuery?: TSchema
  /** Create answers 200 instead of 201 (medical records, as the interface says). */
  createStatus?: number
  /** Find also answers `text/csv` (with `Accept: text/csv`): what the CSV holds. */
  findCsv?: string
  /** One object at the path, not a collection: GET answers `result`, PATCH (no id) takes `patch` and answers
   *  `patchResult`. */
  singleton?: { patchResult: TSchema }
}

/** An account as clients see it (what its external resolver leaves out is not documented). */
type Secret = (typeof accountSecrets)[number]
const isAccountField = (key: Secret): key is Extract<Secret, keyof typeof accountSchema.properties> =>
  key in accountSchema.properties
const accountWithoutSecrets = Type.Omit(accountSchema, accountSecrets.filter(isAccountField))

const finalizeOnly = Type.Object(
  { finalize: Type.Literal(true) },
  { additionalProperties: false, description: 'Body operator: finalize' }
)

// The one-operation PATCH bodies of orders and stocks (each accepted shape is its own alternative).
const orderPatches = {
  'change the status': Type.Object(
    {
      changeStatus: Text(50, {
        description:
          'Body operator: the next status (pending, preparing, ready, dispatched, completed, cancelled; only allowed moves)'
      }),
      stockroom: Type.Optional(
        IdString({
          description:
            'With changeStatus: dispatched, the stockroom whose stock the inventory-variant items consume'
        })
      )
    },
    { additionalProperties: false }
  ),
  'confirm an item': Type.Object(
    {
      confirmItem: Text(64, { description: "Body operator: the id of the order's item to mark as confirmed" })
    },
    { additionalProperties: false }
  ),
  'replace the notes': Type.Object({ notes: Text(5000) }, { additionalProperties: false })
}

const stockPatches = {
  'a movement': Type.Object(
    {
      adjust: Type.Integer({
        minimum: -1e9,
        maximum: 1e9,
        not: { const: 0 },
        description: 'Signed change of the quantity, recorded as a movement'
      }),
      reason: Type.Optional(Text(500, { minLength: 1 }))
    },
    { additionalProperties: false }
  ),
  'a movement ($inc)': Type.Object(
    {
      $inc: Type.Object(
        { quantity: Type.Integer({ not: { const: 0 } }) },
        { additionalProperties: false, description: 'Body operator: the same movement as adjust' }
      ),
      reason: Type.Optional(Text(500, { minLength: 1 }))
    },
    { additionalProperties: false }
  ),
  'the stock settings': Type.Object(
    {
      reorderLevel: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
      expiresAt: Type.Optional(Timestamp())
    },
    { additionalProperties: false }
  )
}

const populateStocks = Type.Union(
  [Type.Literal(true), Type.Object({ stockroom: IdString() }, { additionalProperties: false })],
  {
    description:
      "`true`, or `{ stockroom: <id> }` to keep only that stockroom: adds each variant's stocks as `$stocks`"
  }
)
const variantResult = Type.Object(
  {
    ...variantSchema.properties,
    $stocks: Type.Optional(Type.Array(stockSchema, { description: 'Only with $populateStocks' }))
  },
  { additionalProperties: false }
)

const directoryEntry = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ description: 'organization, account, service, …' }),
    ref: Type.Object({
      id: Type.String(),
      type: Type.Optional(Type.String()),
      types: Type.Optional(Type.Array(Type.String()))
    }),
    tags: Type.Array(Type.String(), {
      description: 'Facet values; the service types an organization offers are tags prefixed sto:'
    }),
    name: Type.String(),
    description: Type.String(),
    score: Type.Optional(Type.Number()),
    highlights: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.Union([Type.Literal('name'), Type.Literal('description')]),
          matched: Type.Array(Type.String())
        })
      )
    ),
    distanceKm: Type.Optional(Type.Number({ description: 'With location' }))
  },
  { additionalProperties: false }
)

const login = {
  password: Type.Object(
    {
      strategy: Type.Optional(Type.Literal('local')),
      email: Type.String({ format: 'email' }),
      password: Type.String(),
      mfaCode: Type.Optional(
        Type.String({ description: 'The current 6-digit code, once two-factor authentication is on' })
      )
    },
    { additionalProperties: false, title: 'Password login' }
  ),
  oauth: Type.Object(
    {
      strategy: Type.Union([Type.Literal('google'), Type.Literal('facebook')]),
      redirectURI: Type.String({
        description: 'Exactly the redirect_uri used to ask the provider for the code (facebook: ends with /)'
      }),
      code: Type.String({ description: "The provider's authorization code" })
    },
    { additionalProperties: false, title: 'OAuth login (registers on first login)' }
  ),
  jwt: Type.Object(
    { strategy: Type.Literal('jwt'), accessToken: Type.String() },
    { additionalProperties: false, title: 'Token re-authentication' }
  )
}

const authenticationResult = Type.Object(
  {
    accessToken: Type.Optional(Type.String()),
    authentication: Type.Optional(Type.Object({ strategy: Type.String() })),
    account: Type.Optional(accountWithoutSecrets),
    action: Type.Optional(Type.String({ description: 'Set on the answers of actions' }))
  },
  { description: 'A login answer (accessToken, account) or an action answer (action plus its fields)' }
)

export const serviceDocs: Record<string, ServiceDoc> = {
  authentication: {
    summary: 'Logins (password, OAuth, token) and account actions, all as POST bodies',
    result: authenticationResult,
    data: {
      ...login,
      ...Object.fromEntries(Object.entries(actionSchemas).map(([name, schema]) => [`action ${name}`, schema]))
    }
  },
  accounts: {
    summary: 'Accounts; POST is the public sign-up',
    result: accountWithoutSecrets,
    data: accountDataSchema,
    patch: accountPatchSchema,
    query: accountQuerySchema
  },
  organizations: {
    summary: 'Organizations (facilities)',
    result: organizationSchema,
    data: organizationDataSchema,
    patch: organizationPatchSchema,
    query: organizationQuerySchema
  },
  'organization-members': {
    summary: 'Members of organizations: roles, privileges, superadmin',
    result: memberSchema,
    data: memberDataSchema,
    patch: memberPatchSchema,
    query: memberQuerySchema
  },
  'organization-invitations': {
    summary:
      'Members by email: superadmins invite an address (a code is mailed); the invitee, signed in with it, POSTs { code } with the header X-Service-Method: accept and joins',
    result: Type.Omit(invitationSchema, ['codeHash']),
    data: {
      'an invitation': invitationDataSchema,
      'accept (X-Service-Method: accept)': invitationAcceptSchema
    },
    query: invitationQuerySchema
  },
  'medical-records': {
    summary: 'Medical records of 15 types with per-record permissions',
    result: medicalRecordSchema,
    data: medicalRecordDataSchema,
    patch: { fields: medicalRecordPatchSchema, finalize: finalizeOnly },
    query: medicalRecordQuerySchema,
    createStatus: 200
  },
  'medical-encounters': {
    summary:
      'Encounters; { invoice: true } creates a draft invoice with one; PATCH { finalize: true } finalizes it',
    result: encounterSchema,
    data: encounterDataSchema,
    update: encounterUpdateSchema,
    patch: { fields: encounterPatchSchema, finalize: finalizeOnly },
    query: encounterQuerySchema
  },
  services: {
    summary: 'The service catalogue of a facility (prices)',
    result: serviceSchema,
    data: serviceDataSchema,
    patch: servicePatchSchema,
    query: serviceQuerySchema
  },
  'billing-invoices': {
    summary: 'Invoices (draft → finalized)',
    result: invoiceSchema,
    data: invoiceDataSchema,
    patch: { fields: invoicePatchSchema, finalize: finalizeOnly },
    query: invoiceQuerySchema
  },
  'billing-items': {
    summary: 'Invoice lines (draft → finalized)',
    result: itemSchema,
    data: itemDataSchema,
    patch: { fields: itemPatchSchema, finalize: finalizeOnly },
    query: itemQuerySchema
  },
  'billing-payments': {
    summary: 'Payments against items (never above the item total)',
    result: paymentSchema,
    data: paymentDataSchema,
    patch: paymentPatchSchema,
    query: paymentQuerySchema
  },
  'billing/customers': {
    summary:
      'Payers (an account or an organization) with cards saved at the card processor; GET ?$populateProcessorCards=true lists the cards',
    result: customerSchema,
    data: customerDataSchema,
    patch: {
      'a new card (the new default) or a new email': customerPatchSchema,
      'delete a card': customerOperators.$deleteProcessorCard,
      'set the default card': customerOperators.$setDefaultProcessorCard
    },
    query: customerQuerySchema,
    getQuery: customerGetQuerySchema
  },
  'billing-payment-intents': {
    summary:
      'Payments through a gateway: POST prices the items and answers checkout.approvalURL; PATCH { capture: true } captures an approved intent',
    result: intentSchema,
    data: intentDataSchema,
    patch: intentPatchSchema,
    query: intentQuerySchema
  },
  sessions: {
    summary:
      'Your sign-in sessions (the asking one `current`); DELETE ends one: its refresh token and access tokens are refused, its sockets cut',
    result: sessionViewSchema,
    query: sessionQuerySchema
  },
  webhooks: {
    summary: 'Installed webhooks (created through POST /webhook-events)',
    result: webhookSchema,
    patch: webhookPatchSchema,
    query: webhookQuerySchema
  },
  'webhook-events': {
    summary: 'POST a webhook to install it, or { webhook, event: "ping" }; read and retry deliveries',
    result: deliverySchema,
    data: { 'install a webhook': webhookDataSchema, ping: pingSchema },
    patch: { retry: retrySchema },
    query: deliveryQuerySchema
  },
  'audit-events': {
    summary:
      'The audit trail: accesses to patient data, authentication, privilege and configuration changes (read-only; sort by a filter field; Accept: text/csv for reports; GET /audit-events/verify?seq=&hash= checks the hash chain, reports missing seqs and answers the head; application admins receive new events over Socket.IO after calling subscribe; $names=true adds actorName, actorRole and facilityName)',
    result: auditEventSchema,
    query: auditEventQuerySchema,
    findCsv:
      "The same page as CSV (RFC 4180, a header row, up to 10,000 rows a page, formula-looking cells prefixed with '); X-Total-Count: the matching events"
  },
  'subscription/packages': {
    summary:
      'Subscription packages (public reads; application admins create and change); ?type=facility&types=clinic filters',
    result: packageSchema,
    data: packageDataSchema,
    patch: packagePatchSchema,
    query: packageQuerySchema
  },
  subscriptions: {
    summary:
      "A facility's subscription: POST { facility, package, trial? }; PATCH one change: { package }, feature toggles, or { status, reason? }",
    result: subscriptionSchema,
    data: subscriptionDataSchema,
    patch: {
      'change the package': packageChangeSchema,
      'toggle features': toggleSchema,
      'change the status': statusChangeSchema
    },
    query: subscriptionQuerySchema
  },
  'bff/unified-directory': {
    summary: 'Directory search: $search, location, facets',
    result: directoryEntry,
    query: directoryQuerySchema
  },
  'request/orders': {
    summary:
      'Orders of a facility: POST { owner: { organization }, requestedForType, requestedFor, items }; PATCH one operation: { changeStatus }, { confirmItem } or { notes }',
    result: orderSchema,
    data: orderDataSchema,
    patch: orderPatches,
    query: orderQuerySchema
  },
  schedules: {
    summary:
      "A provider's weekly windows at a facility: POST { facility, provider, weekly: [{ day, start, end }], timeZone?, slotMinutes?, bufferMinutes?, horizonDays?, minNoticeMinutes?, exceptions?, booking?, active? }",
    result: scheduleSchema,
    data: scheduleDataSchema,
    patch: schedulePatchSchema,
    query: scheduleQuerySchema
  },
  'appointment-slots': {
    summary:
      'Free slots of a facility (find only): GET ?facility=&provider=&from=<ms>&to=<ms> (at most 31 days), by ascending start',
    result: slotSchema,
    query: slotQuerySchema
  },
  appointments: {
    summary:
      'Appointments in free slots: POST { facility, provider, patient, start, reason?, type? } (400 off the grid, 409 taken); answers carry names { provider, patient, facility } and the facility timeZone',
    result: appointmentSchema,
    data: appointmentDataSchema,
    patch: appointmentPatchSchema,
    query: appointmentQuerySchema
  },
  attachments: {
    summary:
      'Files on medical records and encounters (docs/attachments.md): POST { record | encounter, filename, contentType, size, sha256?, title? } → pending, with uploadUrl (413 over ATTACHMENT_MAX_BYTES, 415 off the allow-list, 402 past storageMax); GET ready ones with downloadUrl signed for the caller; GET ?$analytics=storage → [{ organization, bytes, count }] (the facility staff); PATCH { title } or { $confirmUpload: true }; DELETE while the record is not finalized (409)',
    result: Type.Object(
      {
        ...Type.Omit(attachmentSchema, [...attachmentInternals]).properties,
        ...attachmentAnswerSchema.properties
      },
      { additionalProperties: false }
    ),
    data: attachmentDataSchema,
    patch: {
      'a new title': Type.Omit(attachmentPatchSchema, ['$confirmUpload']),
      'confirm an upload to the bucket ($confirmUpload)': Type.Object(
        {
          $confirmUpload: Type.Literal(true, {
            description:
              'Body operator (S3 mode): the server checks the uploaded object and marks the file ready'
          })
        },
        { additionalProperties: false }
      )
    },
    query: Type.Object(
      {
        ...attachmentQuerySchema.properties,
        $analytics: Type.Optional(
          Type.Literal('storage', { description: 'Answers the storage used per facility instead of a page' })
        )
      },
      { additionalProperties: false }
    )
  },
  'sandbox/clock': {
    summary:
      'SANDBOX_CLOCK=true only: GET /sandbox/clock answers { now, offsetMs }; an application admin moves it forward with PATCH /sandbox/clock (no id) { advanceMs } or { now } (never backwards), which runs every time-driven pass and answers { now, offsetMs, ran: [{ job, changed }] }',
    result: sandboxClockSchema,
    patch: sandboxClockMoveSchema,
    singleton: { patchResult: sandboxClockMovedSchema }
  },
  queues: {
    summary:
      "A facility's waiting-room queues: POST { facility, name, active?, default? } (one default per facility, 409); PATCH { name?, active?, default? } or { $callNext: true }, which calls the lowest waiting number and answers that queue item (409 when no one is waiting)",
    result: Type.Omit(queueSchema, [...queueInternals]),
    data: queueDataSchema,
    patch: {
      'a change': queuePatchSchema,
      'call next ($callNext)': Type.Object(
        { $callNext: Type.Literal(true, { description: 'Body operator: answers the queue item it called' }) },
        { additionalProperties: false }
      )
    },
    query: queueQuerySchema
  },
  'queue-items': {
    summary:
      "Tickets of a queue: POST { queue, patient, appointment? } → the day's next number, waiting, with its position; PATCH { status } (waiting → called → serving → done; waiting | called → skipped | cancelled)",
    result: Type.Omit(queueItemSchema, [...queueItemInternals]),
    data: queueItemDataSchema,
    patch: queueItemPatchSchema,
    query: queueItemQuerySchema
  },
  'notification-settings': {
    summary:
      "A facility's notification settings: GET /notification-settings/{facility} answers the stored ones or the defaults (stored: false, no id); POST { facility, channels?, reminderOffsetsMinutes?, queueNextPosition?, senderName?, replyTo?, quietHours? } creates them on the first write and changes them after (one per facility); PATCH /notification-settings/{id} changes them (null clears replyTo, quietHours)",
    result: Type.Object({
      ...notificationSettingsSchema.properties,
      id: Type.Optional(notificationSettingsSchema.properties.id),
      createdAt: Type.Optional(notificationSettingsSchema.properties.createdAt),
      createdBy: Type.Optional(notificationSettingsSchema.properties.createdBy),
      updatedAt: Type.Optional(notificationSettingsSchema.properties.updatedAt),
      stored: Type.Boolean({ description: 'false: the defaults (no id), the facility set nothing yet' })
    }),
    data: notificationSettingsDataSchema,
    patch: notificationSettingsPatchSchema,
    query: notificationSettingsQuerySchema
  },
  'notification-templates': {
    summary:
      "A facility's message templates (Mustache over the documented variables of each event): POST { facility, event, channel, locale?, subject (email), body, active? } — 400 naming body or subject when it does not compile, uses unknown variables or an SMS renders over 480 characters with the sample data; 409 naming active for a second active template of the same event, channel and locale",
    result: Type.Omit(notificationTemplateSchema, [...notificationTemplateInternals]),
    data: notificationTemplateDataSchema,
    patch: notificationTemplatePatchSchema,
    query: notificationTemplateQuerySchema
  },
  'notification-templates/preview': {
    summary:
      'Renders a template with the sample data of its event: POST { template: { event, channel, subject?, body, locale?, facility? } } or { id }, sample? (variables laid over the sample) → { subject?, body }; errors as at save',
    result: templatePreviewSchema,
    data: templatePreviewDataSchema
  },
  notifications: {
    summary:
      "The log of what patients were told (read-only): event, channel, masked address, status (queued | sent | failed | skipped), reason (opted-out, no-address, channel-off, quiet-hours-wait, or the last delivery error), attempts. The facility's superadmins and members with the `notifications` privilege read their facility's; a patient reads their own. Emails carry a one-click unsubscribe link (POST /notifications/unsubscribe?token=…, RFC 8058); accounts opt out with PATCH /accounts/:id { notifications: { email?, sms? } }",
    result: Type.Omit(notificationSchema, [...notificationInternals]),
    query: notificationQuerySchema
  },
  'inventory-stockrooms': {
    summary: "A facility's stockrooms",
    result: stockroomSchema,
    data: stockroomDataSchema,
    patch: stockroomPatchSchema,
    query: stockroomQuerySchema
  },
  'inventory-variants': {
    summary:
      'Products a facility stocks or orders (by sku); ?$populateStocks=true adds their stocks; PATCH { archive: true } archives',
    result: variantResult,
    data: variantDataSchema,
    patch: variantPatchSchema,
    query: Type.Intersect([
      variantQuerySchema,
      Type.Object({ $populateStocks: Type.Optional(populateStocks) })
    ]),
    getQuery: Type.Object({ $populateStocks: Type.Optional(populateStocks) })
  },
  'inventory-stocks': {
    summary:
      'Stock of a variant in a stockroom (per lot); the quantity changes only by movements: PATCH { adjust, reason } or { $inc: { quantity } }',
    result: stockSchema,
    data: stockDataSchema,
    patch: stockPatches,
    query: stockQuerySchema
  },
  'inventory-stock-movements': {
    summary: 'The stock ledger (read-only): every movement with its reason',
    result: movementSchema,
    query: movementQuerySchema
  },
  patients: {
    summary:
      "A facility's patients (its members read them; superadmins and members with the `patients` or `scheduling` privilege register): GET /patients?facility=…&q=… finds those whose first, last or full name, email or phone starts with q (any case; facility required; paginated); POST { facility, firstName, lastName?, middleName?, email, mobileNo? } registers one — the account with that email, else a new one without a password — 409 naming email when already the facility's patient. Anyone with a record, encounter or appointment created at the facility is its patient too",
    result: Type.Omit(patientSchema, [...patientInternals]),
    data: patientDataSchema,
    query: patientQuerySchema,
    getQuery: patientGetQuerySchema
  }
}
