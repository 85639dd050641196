// Security-test fixtures: one document of every service in a tenant (an organization/facility), store
// snapshots read through the app's internal store methods, and a raw Socket.IO call with a time limit.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import type { Socket } from 'socket.io-client'
import { http, waitUntil, type SignedUp, type TestServer } from './app'
import { depsSlot } from '../../src/deps'
import { queueNotification } from '../../src/notifications/queue'

/** Every service path the app exposes, in the order the tests walk them. */
export const servicePaths = [
  'accounts',
  'organizations',
  'organization-members',
  'services',
  'medical-encounters',
  'billing-invoices',
  'billing-items',
  'billing-payments',
  'billing/customers',
  'billing-payment-intents',
  'medical-records',
  'webhooks',
  'webhook-events',
  'inventory-stockrooms',
  'inventory-variants',
  'inventory-stocks',
  'inventory-stock-movements',
  'request/orders',
  'schedules',
  'appointments',
  'queues',
  'queue-items',
  'notification-settings',
  'notification-templates',
  'notifications',
  'attachments'
] as const
export type ServicePath = (typeof servicePaths)[number]

export type TenantDocs = Record<ServicePath, string>

/**
 * The start of the i-th half-hour slot of the tenant schedule (Mondays 09:00–17:00 UTC; on the grid whether the
 * schedule's slots are 15 or 30 minutes), counted from the first Monday at least two days ahead: distinct i,
 * distinct slots (within the 60-day horizon up to i = 127).
 */
export const appointmentSlot = (i: number) => {
  const monday = new Date(Date.now() + 2 * 86_400_000)
  monday.setUTCHours(9, 0, 0, 0)
  while (monday.getUTCDay() !== 1) monday.setUTCDate(monday.getUTCDate() + 1)
  return monday.getTime() + Math.floor(i / 16) * 7 * 86_400_000 + (i % 16) * 30 * 60_000
}

/** A valid PATCH body of each service (what it changes does not matter to the security tests). */
export const patchBodies: Record<ServicePath, Record<string, unknown>> = {
  accounts: { firstName: 'Renamed' },
  organizations: { name: 'Clinic A (renamed)' },
  'organization-members': { roles: ['x'] },
  services: { price: 50 },
  'medical-encounters': { notes: 'seen at 10:00' },
  'billing-invoices': { notes: 'pay at the desk' },
  'billing-items': { name: 'Line 1 (renamed)' },
  'billing-payments': { notes: 'receipt 12' },
  'billing/customers': { processorEmail: 'accounts@clinic-a.test' },
  'billing-payment-intents': { capture: true },
  'medical-records': { description: 'rash after intake' },
  webhooks: { events: 'accounts.patch' },
  'webhook-events': { retry: true },
  'inventory-stockrooms': { description: 'Second floor' },
  'inventory-variants': { name: 'Paracetamol 500 mg (renamed)' },
  'inventory-stocks': { reorderLevel: 5 },
  'inventory-stock-movements': { reason: 'rewritten' },
  'request/orders': { notes: 'call the ward first' },
  schedules: { slotMinutes: 30 },
  appointments: { status: 'checked-in' },
  queues: { name: 'Renamed queue' },
  'queue-items': { status: 'called' },
  'notification-settings': { queueNextPosition: 3 },
  'notification-templates': { body: 'Number {{queue.number}}, please come in' },
  // (read-only: every write is a 405)
  notifications: { status: 'sent' },
  attachments: { title: 'Signed consent' }
}

/** The internal store of a service (webhook-events keeps its deliveries in a store of its own). */
// `any`: the internal `_get`/`_find` methods are not part of the typed service interface.
export const storeOf = (server: TestServer, path: ServicePath): any => {
  const service = server.app.service(path as any) as any
  return path === 'webhook-events' ? service.deliveries : service
}

const ok = (res: { status: number; body: any }, status: number, what: string) => {
  assert.equal(res.status, status, `${what}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** A failed delivery of `webhook` (a ping to a receiver answering 500, with no retries configured). */
export const failedDelivery = async (server: TestServer, token: string, webhook: string): Promise<string> => {
  const ping = ok(
    await http(server.url, 'POST', '/webhook-events', { token, body: { webhook, event: 'ping' } }),
    201,
    'ping'
  )
  await waitUntil(
    async () => (await storeOf(server, 'webhook-events')._get(ping.id)).status === 'failed',
    5000,
    'a failed delivery'
  )
  return ping.id
}

/**
 * One document of every service in `owner`'s organization, created over REST by its superadmin: the
 * organization, `member`'s membership (or the owner's own), a catalogue service, an encounter with its
 * invoice, an item and a payment, the organization's billing customer (with a sandbox card), a payment intent (not approved), a medical record shared read-only with the organization, an organization
 * webhook and one (failed) delivery of it, a stockroom, a variant with its stock and that stock's first movement,
 * and an order for the patient (`member`, or the owner). `accounts` is the owner's account.
 */
export const tenantDocs = async (
  server: TestServer,
  owner: SignedUp,
  webhookUrl: string,
  member?: SignedUp
): Promise<TenantDocs> => {
  const org = owner.organization.id
  const post = async (path: string, body: unknown, status = 201) =>
    ok(await http(server.url, 'POST', path, { token: owner.token, body }), status, `POST ${path}`)
  let membership: string
  if (member) {
    membership = (await post('/organization-members', { organization: org, uid: member.account.id })).id
  } else {
    membership = (
      await storeOf(server, 'organization-members')._find({
        query: { organization: org, uid: owner.account.id },
        paginate: false
      })
    )[0].id
  }
  const service = await post('/services', {
    facility: org,
    name: 'General consultation',
    type: 'consultation',
    price: 45.5
  })
  const encounter = await post('/medical-encounters', {
    facility: org,
    patient: (member ?? owner).account.id,
    invoice: true
  })
  const item = await post('/billing-items', {
    invoice: encounter.invoice,
    type: 'custom',
    name: 'Line 1',
    price: 100
  })
  const payment = await post('/billing-payments', {
    item: item.id,
    type: 'payment',
    paymentMethod: 'cash',
    amount: 10
  })
  const customer = await post('/billing/customers', {
    owner: { organization: org },
    processorToken: 'tok_visa'
  })
  const intent = await post('/billing-payment-intents', {
    gatewayType: 'sandbox-card',
    currency: 'USD',
    facility: org,
    items: [{ name: 'Deposit', amountPerItem: 20, quantity: 1 }]
  })
  const record = await post(
    '/medical-records',
    {
      type: 'allergy',
      facility: org,
      patient: (member ?? owner).account.id,
      name: 'Penicillin',
      permissions: [{ organization: org }]
    },
    200
  )
  // A file on the record (pending: the security tests need its metadata, not its bytes).
  const attachment = await post('/attachments', {
    record: record.id,
    filename: 'consent.pdf',
    contentType: 'application/pdf',
    size: 2048
  })
  const webhook = await post('/webhook-events', {
    organization: org,
    url: webhookUrl,
    events: 'accounts.patch'
  })
  const delivery = await failedDelivery(server, owner.token, webhook.id)
  const stockroom = await post('/inventory-stockrooms', { facility: org, name: 'Main pharmacy' })
  const variant = await post('/inventory-variants', {
    facility: org,
    sku: `PARA-${org}`,
    name: 'Paracetamol 500 mg',
    initialStock: 100,
    stockroom: stockroom.id
  })
  const stock = variant.$stocks[0].id
  const [movement] = await storeOf(server, 'inventory-stock-movements')._find({
    query: { stock },
    paginate: false
  })
  const order = await post('/request/orders', {
    owner: { organization: org },
    requestedForType: 'patient',
    requestedFor: (member ?? owner).account.id,
    items: [{ refType: 'inventory-variant', ref: variant.sku }]
  })
  const schedule = await post('/schedules', {
    facility: org,
    provider: owner.account.id,
    weekly: [{ day: 1, start: '09:00', end: '17:00' }]
  })
  const appointment = await post('/appointments', {
    facility: org,
    provider: owner.account.id,
    patient: (member ?? owner).account.id,
    start: appointmentSlot(0)
  })
  const queue = await post('/queues', { facility: org, name: 'Front desk' })
  const queueItem = await post('/queue-items', { queue: queue.id, patient: (member ?? owner).account.id })
  const notificationSettings = await post('/notification-settings', {
    facility: org,
    channels: { sms: true }
  })
  const notificationTemplate = await post('/notification-templates', {
    facility: org,
    event: 'queue.called',
    channel: 'sms',
    body: 'Number {{queue.number}} is called'
  })
  // A notification to the patient, written by the server (as the events that notify do); due in a year, so the
  // delivery worker leaves it as it is during the tests.
  const [notification] = await queueNotification(depsSlot.require(server.app), {
    facility: org,
    event: 'record.finalized',
    recipient: (member ?? owner).account.id,
    ref: { service: 'medical-records', id: record.id },
    subjectKey: record.id,
    vars: { patient: { firstName: 'Pat' }, facility: { name: 'Clinic' }, link: 'http://console.test' },
    dueAt: Date.now() + 365 * 86_400_000
  })
  return {
    accounts: owner.account.id,
    organizations: org,
    'organization-members': membership,
    services: service.id,
    'medical-encounters': encounter.id,
    'billing-invoices': encounter.invoice,
    'billing-items': item.id,
    'billing-payments': payment.id,
    'billing/customers': customer.id,
    'billing-payment-intents': intent.id,
    'medical-records': record.id,
    webhooks: webhook.id,
    'webhook-events': delivery,
    'inventory-stockrooms': stockroom.id,
    'inventory-variants': variant.id,
    'inventory-stocks': stock,
    'inventory-stock-movements': movement.id,
    'request/orders': order.id,
    schedules: schedule.id,
    appointments: appointment.id,
    queues: queue.id,
    'queue-items': queueItem.id,
    'notification-settings': notificationSettings.id,
    'notification-templates': notificationTemplate.id,
    notifications: notification.id,
    attachments: attachment.id
  }
}

// Fields the webhook and notification workers change on their own schedule (not by any API call under test).
const volatile: Partial<Record<ServicePath, string[]>> = {
  webhooks: [
    'consecutiveFailures',
    'failingSince',
    'lastFailureAt',
    'dueAt',
    'queueVersion',
    'leaseUntil',
    'leaseOwner'
  ],
  'webhook-events': ['leaseUntil', 'leaseOwner'],
  // The ticket counter moves whenever an item is added to the queue.
  queues: ['ticketDay', 'lastTicket'],
  // The delivery worker's record of each attempt.
  notifications: [
    'status',
    'reason',
    'attempts',
    'nextAttemptAt',
    'sentAt',
    'to',
    'leaseUntil',
    'leaseHolder',
    'updatedAt'
  ]
}

const stable = (path: ServicePath, doc: any) => {
  if (!doc || typeof doc !== 'object') return doc
  const copy = { ...doc }
  for (const field of volatile[path] ?? []) delete copy[field]
  return copy
}

/** The fixture documents as stored (by id), read without hooks. */
export const snapshotDocs = async (server: TestServer, docs: TenantDocs) => {
  const result: Record<string, unknown> = {}
  for (const path of servicePaths) {
    result[path] = stable(
      path,
      await storeOf(server, path)
        ._get(docs[path])
        .catch((error: any) => `missing: ${error?.code ?? error}`)
    )
  }
  return result as Record<ServicePath, unknown>
}

/** Canonical JSON: object keys sorted, so equal content hashes equally. */
export const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as any)[key])}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'undefined'
}

/** Count and content hash of every store (documents sorted by id; worker-owned fields left out). */
export const snapshotStores = async (server: TestServer) => {
  const result: Record<string, { count: number; hash: string }> = {}
  for (const path of servicePaths) {
    const all: any[] = await storeOf(server, path)._find({ paginate: false, query: {} })
    const sorted = all
      .map((doc) => stable(path, doc))
      .sort((a, b) => String(a.id).localeCompare(String(b.id)))
    result[path] = {
      count: sorted.length,
      hash: crypto.createHash('sha256').update(canonical(sorted)).digest('hex')
    }
  }
  return result
}

export interface RawAnswer {
  error?: any
  result?: any
  timedOut?: boolean
}

/** socket.emit(method, path, ...args, callback) as the Feathers socket protocol has it; never rejects. */
export const rawEmit = (
  socket: Socket,
  method: string,
  path: string,
  args: unknown[],
  timeoutMs = 5000
): Promise<RawAnswer> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timedOut: true }), timeoutMs)
    socket.emit(method, path, ...args, (error: any, result: any) => {
      clearTimeout(timer)
      resolve(error ? { error } : { result })
    })
  })

/**
 * Calls one method of a service through a Feathers client (Socket.IO or REST), as a browser app would: resolves
 * with the result; a refusal rejects with the client's error.
 */
export const callMethod = (
  client: { service(path: any): any },
  path: string,
  method: string,
  id: string,
  data: unknown,
  query: Record<string, unknown> = {}
) => {
  const service = client.service(path) // (the typed client has no update/remove on every path: called by name)
  return method === 'find'
    ? service.find({ query })
    : method === 'get'
      ? service.get(id)
      : method === 'create'
        ? service.create(data)
        : method === 'patch'
          ? service.patch(id, data)
          : method === 'update'
            ? service.update(id, data)
            : service.remove(id)
}
