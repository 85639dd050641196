// Tenant isolation, service × method × caller × transport. Organization A has a superadmin (`owner`) and a
// plain member (`member`: no roles, no privileges); `outsider` is the superadmin of organization B. A holds one
// document of every service. The rules proven here: a document the caller cannot read is 404, one they can read
// but not change is 403, no token is 401, and `update` (PUT) is exposed only by medical-encounters (elsewhere 405). Members read A's
// organization data, create and change encounters, create and change draft invoices and items; changes to the
// organization, its members, its catalogue and its money need superadmin. The outsider sees nothing of A.
// Medical records follow their `permissions`; webhooks and their deliveries are read by their owner only
// (the organization's superadmins), as src/services/webhooks/webhooks.ts and its tests say.
import assert from 'node:assert/strict'
import {
  http,
  signUp,
  socketClient,
  startServer,
  uniqueEmail,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { startWebhookReceiver, type TestWebhookReceiver } from '../helpers/webhook-receiver'
import {
  appointmentSlot,
  callMethod,
  failedDelivery,
  patchBodies,
  rawEmit,
  servicePaths,
  snapshotDocs,
  storeOf,
  tenantDocs,
  type ServicePath,
  type TenantDocs
} from '../helpers/tenants'

type Caller = 'owner' | 'member' | 'outsider' | 'anonymous'
type Method = 'find' | 'get' | 'create' | 'patch' | 'remove' | 'update'
type Transport = 'rest' | 'socket'
const callers: Caller[] = ['anonymous', 'outsider', 'member', 'owner']
const allMethods: Method[] = ['find', 'get', 'create', 'patch', 'remove', 'update']

const exposed: Record<ServicePath, Method[]> = {
  accounts: ['find', 'get', 'create', 'patch', 'remove'],
  organizations: ['find', 'get', 'create', 'patch', 'remove'],
  'organization-members': ['find', 'get', 'create', 'patch', 'remove'],
  services: ['find', 'get', 'create', 'patch', 'remove'],
  'medical-encounters': ['find', 'get', 'create', 'update', 'patch', 'remove'],
  'billing-invoices': ['find', 'get', 'create', 'patch', 'remove'],
  'billing-items': ['find', 'get', 'create', 'patch', 'remove'],
  'billing-payments': ['find', 'get', 'create', 'patch'],
  'billing/customers': ['find', 'get', 'create', 'patch'],
  'billing-payment-intents': ['find', 'get', 'create', 'patch'],
  'medical-records': ['find', 'get', 'create', 'patch', 'remove'],
  webhooks: ['find', 'get', 'patch', 'remove'],
  'webhook-events': ['find', 'get', 'create', 'patch'],
  'inventory-stockrooms': ['find', 'get', 'create', 'patch', 'remove'],
  'inventory-variants': ['find', 'get', 'create', 'patch', 'remove'],
  'inventory-stocks': ['find', 'get', 'create', 'patch'],
  'inventory-stock-movements': ['find', 'get'],
  'request/orders': ['find', 'get', 'create', 'patch'],
  schedules: ['find', 'get', 'create', 'patch', 'remove'],
  appointments: ['find', 'get', 'create', 'patch'],
  queues: ['find', 'get', 'create', 'patch'],
  'queue-items': ['find', 'get', 'create', 'patch'],
  'notification-settings': ['find', 'get', 'create', 'patch'],
  'notification-templates': ['find', 'get', 'create', 'patch', 'remove'],
  notifications: ['find', 'get'],
  attachments: ['find', 'get', 'create', 'patch', 'remove']
}

// For `find`, 200 always (with or without A's document in it); `sees` says whether the caller's list holds it.
interface Expectation {
  get: number
  create: number
  patch: number
  remove: number
  update: number
  sees: boolean
}
const E = (
  get: number,
  create: number,
  patch: number,
  remove: number,
  update = 405,
  sees = get === 200
): Expectation => ({ get, create, patch, remove, update, sees })

// What the access model says, per service and caller (anonymous is 401 throughout, except sign-up).
const rules: Record<ServicePath, Record<Exclude<Caller, 'anonymous'>, Expectation>> = {
  // Accounts are private to themselves (A's document is the owner's account); sign-up is public; only
  // application admins remove accounts, so the owner's own DELETE is a 403.
  accounts: { owner: E(200, 201, 200, 403), member: E(404, 201, 404, 404), outsider: E(404, 201, 404, 404) },
  // Anyone signed in creates an organization of their own.
  organizations: {
    owner: E(200, 201, 200, 200),
    member: E(200, 201, 403, 403),
    outsider: E(404, 201, 404, 404)
  },
  'organization-members': {
    owner: E(200, 201, 200, 200),
    member: E(200, 403, 403, 403),
    outsider: E(404, 404, 404, 404)
  },
  services: { owner: E(200, 201, 200, 200), member: E(200, 403, 403, 403), outsider: E(404, 404, 404, 404) },
  // Members replace encounters (PUT); removing one that has an invoice (A's has) needs the billing privilege.
  'medical-encounters': {
    owner: E(200, 201, 200, 200, 200),
    member: E(200, 201, 200, 403, 200),
    outsider: E(404, 404, 404, 404, 404)
  },
  'billing-invoices': {
    owner: E(200, 201, 200, 200),
    member: E(200, 201, 200, 403),
    outsider: E(404, 404, 404, 404)
  },
  'billing-items': {
    owner: E(200, 201, 200, 200),
    member: E(200, 201, 200, 403),
    outsider: E(404, 404, 404, 404)
  },
  'billing-payments': {
    owner: E(200, 201, 200, 405),
    member: E(200, 403, 403, 405),
    outsider: E(404, 404, 404, 405)
  },
  // A's customer is the organization's: read by its superadmin and billing members (the plain member: 404), changed
  // by its superadmin; the create body asks for A's customer again, so the owner meets the one-per-owner 409.
  'billing/customers': {
    owner: E(200, 409, 200, 405),
    member: E(404, 403, 404, 405),
    outsider: E(404, 404, 404, 405)
  },
  // Members read the facility's intents; billers and superadmins create and capture them (A's intent was never
  // approved, so the owner's capture is the 409 of the state machine).
  'billing-payment-intents': {
    owner: E(200, 201, 409, 405),
    member: E(200, 403, 403, 405),
    outsider: E(404, 404, 404, 405)
  },
  // POST /medical-records answers 200 (interface); the record is shared read-only with A's members.
  'medical-records': {
    owner: E(200, 200, 200, 200),
    member: E(200, 200, 403, 403),
    outsider: E(404, 404, 404, 404)
  },
  webhooks: { owner: E(200, 405, 200, 200), member: E(404, 405, 404, 404), outsider: E(404, 405, 404, 404) },
  'webhook-events': {
    owner: E(200, 201, 200, 405),
    member: E(404, 404, 404, 405),
    outsider: E(404, 404, 404, 405)
  },
  // Inventory: members read; managing it needs the inventory privilege (the plain member has none) or superadmin.
  'inventory-stockrooms': {
    owner: E(200, 201, 200, 200),
    member: E(200, 403, 403, 403),
    outsider: E(404, 404, 404, 404)
  },
  'inventory-variants': {
    owner: E(200, 201, 200, 200),
    member: E(200, 403, 403, 403),
    outsider: E(404, 404, 404, 404)
  },
  'inventory-stocks': {
    owner: E(200, 201, 200, 405),
    member: E(200, 403, 403, 405),
    outsider: E(404, 404, 404, 405)
  },
  // The movement ledger is read-only.
  'inventory-stock-movements': {
    owner: E(200, 405, 405, 405),
    member: E(200, 405, 405, 405),
    outsider: E(404, 405, 405, 405)
  },
  // Members order and change orders (the member is also the patient of A's order).
  'request/orders': {
    owner: E(200, 201, 200, 405),
    member: E(200, 201, 200, 405),
    outsider: E(404, 404, 404, 405)
  },
  // Members read the facility's schedules; superadmins (and schedulers, and a provider for their own) set them.
  schedules: {
    owner: E(200, 201, 200, 200),
    member: E(200, 403, 403, 403),
    outsider: E(404, 404, 404, 404)
  },
  // Superadmins (staff) book and move appointments; the member is the patient of A's appointment: they read it,
  // may not book on a staff-only schedule nor check in (403); outsiders get 404.
  appointments: {
    owner: E(200, 201, 200, 405),
    member: E(200, 403, 403, 405),
    outsider: E(404, 404, 404, 405)
  },
  // Members read the facility's queues; superadmins (and schedulers) manage them; queues are never removed.
  queues: {
    owner: E(200, 201, 200, 405),
    member: E(200, 403, 403, 405),
    outsider: E(404, 404, 404, 405)
  },
  // Staff add and move queue items; the member is the patient of A's item: they read it but may not add items nor
  // call it (403; a patient may only cancel their own waiting item); outsiders get 404.
  'queue-items': {
    owner: E(200, 201, 200, 405),
    member: E(200, 403, 403, 405),
    outsider: E(404, 404, 404, 405)
  },
  // Notification settings and templates are facility configuration: members read them; superadmins (and the
  // notifications privilege) write; a POST of settings is the facility's upsert (the owner's changes A's one).
  'notification-settings': {
    owner: E(200, 201, 200, 405),
    member: E(200, 403, 403, 405),
    outsider: E(404, 404, 404, 405)
  },
  'notification-templates': {
    owner: E(200, 201, 200, 200),
    member: E(200, 403, 403, 403),
    outsider: E(404, 404, 404, 404)
  },
  // The log is read-only: the facility's superadmin and the patient told (the member is A's patient) read it; the
  // outsider (a patient and superadmin elsewhere) gets 404.
  notifications: {
    owner: E(200, 405, 405, 405),
    member: E(200, 405, 405, 405),
    outsider: E(404, 405, 405, 405)
  },
  // Files on A's record follow the record: its writer (the owner, who created it) adds, retitles and removes them;
  // A's members read them (the record is shared read-only with them); the outsider does not know them.
  attachments: {
    owner: E(200, 201, 200, 200),
    member: E(200, 403, 403, 403),
    outsider: E(404, 404, 404, 404)
  }
}

const expected = (path: ServicePath, method: Method, caller: Caller): number => {
  if (!exposed[path].includes(method)) return 405
  if (caller === 'anonymous') return path === 'accounts' && method === 'create' ? 201 : 401
  if (method === 'find') return 200
  return rules[path][caller][method]
}

describe('tenant isolation matrix (service × method × caller × transport)', function () {
  this.timeout(60000)
  let server: TestServer
  let receiver: TestWebhookReceiver
  let owner: SignedUp
  let member: SignedUp
  let outsider: SignedUp
  let A: TenantDocs
  let B: TenantDocs
  // A draft invoice and an item of A used by creates (so that they leave A's fixture invoice alone).
  let scratch: { invoice: string; item: string }
  const sockets: Partial<Record<Caller, ReturnType<typeof socketClient>>> = {}
  const tokens = (): Record<Caller, string | undefined> => ({
    owner: owner.token,
    member: member.token,
    outsider: outsider.token,
    anonymous: undefined
  })

  before(async () => {
    receiver = await startWebhookReceiver()
    receiver.respondWith(() => 500)
    server = await startServer({
      webhooks: {
        allowPrivate: true,
        retryDelaysMs: [],
        timeoutMs: 2000,
        pollIntervalMs: 50,
        leaseMarginMs: 30000
      }
    })
    ;[owner, member, outsider] = await Promise.all([
      signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } }),
      signUp(server.url),
      signUp(server.url, { organization: { name: 'Clinic B', type: 'facility' } })
    ])
    A = await tenantDocs(server, owner, receiver.url, member)
    B = await tenantDocs(server, outsider, receiver.url)
    const invoice = await http(server.url, 'POST', '/billing-invoices', {
      token: owner.token,
      body: { facility: A.organizations, type: 'walk-in', subject: member.account.id, subjectType: 'patient' }
    })
    assert.equal(invoice.status, 201, JSON.stringify(invoice.body))
    const item = await http(server.url, 'POST', '/billing-items', {
      token: owner.token,
      body: { invoice: invoice.body.id, type: 'custom', name: 'Scratch', price: 100000 }
    })
    assert.equal(item.status, 201, JSON.stringify(item.body))
    scratch = { invoice: invoice.body.id, item: item.body.id }
    for (const caller of callers) {
      const socket = socketClient(server.url)
      const token = tokens()[caller]
      if (token) await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
      sockets[caller] = socket
    }
  })
  after(async () => {
    for (const socket of Object.values(sockets)) socket?.close()
    await server?.close()
    await receiver?.close()
  })

  // --- request bodies ---------------------------------------------------------------------------------

  /** A fresh account id (stored directly: the tests only need an existing uid). */
  const freshAccount = async () =>
    (await storeOf(server, 'accounts')._create({ email: uniqueEmail('spare'), createdAt: Date.now() }))
      .id as string

  const createBody = async (path: ServicePath): Promise<any> => {
    const org = A.organizations
    switch (path) {
      case 'accounts':
        return { email: uniqueEmail('matrix'), password: 'correct horse battery' }
      case 'organizations':
        return { name: 'Another clinic', type: 'facility' }
      case 'organization-members':
        return { organization: org, uid: await freshAccount() }
      case 'services':
        return { facility: org, name: 'X-ray', type: 'imaging', price: 80 }
      case 'medical-encounters':
        return { facility: org, patient: member.account.id }
      case 'billing-invoices':
        return { facility: org, type: 'walk-in', subject: member.account.id, subjectType: 'patient' }
      case 'billing-items':
        return { invoice: scratch.invoice, type: 'custom', name: 'Extra', price: 5 }
      case 'billing-payments':
        return { item: scratch.item, type: 'payment', paymentMethod: 'cash', amount: 1 }
      case 'billing-payment-intents':
        return {
          gatewayType: 'sandbox-card',
          currency: 'USD',
          facility: org,
          items: [{ name: 'Deposit', amountPerItem: 5, quantity: 1 }]
        }
      case 'billing/customers':
        return { owner: { organization: org }, processorToken: 'tok_mastercard' }
      case 'medical-records':
        return { type: 'allergy', facility: org, patient: member.account.id, name: 'Latex' }
      case 'webhooks':
        return { organization: org, url: receiver.url, events: 'accounts.patch' }
      case 'webhook-events':
        return { webhook: A.webhooks, event: 'ping' }
      case 'inventory-stockrooms':
        return { facility: org, name: 'Cupboard' }
      case 'inventory-variants':
        return { facility: org, sku: `MATRIX-${++created}`, name: 'Gloves' }
      case 'inventory-stocks':
        return {
          facility: org,
          variant: `PARA-${org}`,
          stockroom: A['inventory-stockrooms'],
          lot: `LOT-${++created}`,
          quantity: 1
        }
      case 'inventory-stock-movements':
        return { stock: A['inventory-stocks'], delta: 1 }
      case 'request/orders':
        return {
          owner: { organization: org },
          requestedForType: 'patient',
          requestedFor: member.account.id,
          items: [{ name: 'Gauze' }]
        }
      case 'schedules':
        return {
          facility: org,
          provider: owner.account.id,
          weekly: [{ day: 2, start: '09:00', end: '10:00' }]
        }
      case 'appointments':
        return {
          facility: org,
          provider: owner.account.id,
          patient: member.account.id,
          start: appointmentSlot(++booked)
        }
      case 'queues':
        return { facility: org, name: 'Lab queue' }
      case 'queue-items':
        return { queue: A.queues, patient: member.account.id }
      case 'notification-settings':
        return { facility: org, reminderOffsetsMinutes: [60] }
      case 'notification-templates':
        // Inactive: any number of them (one active per event, channel and locale).
        return { facility: org, event: 'queue.next', channel: 'sms', body: 'You are next', active: false }
      case 'notifications':
        return { facility: org, event: 'queue.called', recipient: member.account.id }
      case 'attachments':
        return { record: A['medical-records'], filename: 'x.pdf', contentType: 'application/pdf', size: 10 }
    }
  }
  let created = 0
  let booked = 0

  /** A PUT body: the whole client-owned document where a service offers update, else the patch body. */
  const updateBody = (path: ServicePath): Record<string, unknown> =>
    path === 'medical-encounters'
      ? { facility: A.organizations, patient: member.account.id, notes: 'replaced' }
      : patchBodies[path]

  /** A document of A that a successful DELETE may destroy (A's fixture stays). */
  const freshForRemoval = async (path: ServicePath): Promise<string> => {
    const post = async (p: string, body: unknown, status = 201) => {
      const res = await http(server.url, 'POST', p, { token: owner.token, body })
      assert.equal(res.status, status, JSON.stringify(res.body))
      return res.body
    }
    switch (path) {
      case 'organizations':
        return (await post('/organizations', { name: 'Short-lived', type: 'facility' })).id
      case 'organization-members':
        return (
          await post('/organization-members', { organization: A.organizations, uid: await freshAccount() })
        ).id
      case 'services':
        return (
          await post('/services', {
            facility: A.organizations,
            name: 'Dressing',
            type: 'procedure',
            price: 10
          })
        ).id
      case 'billing-invoices':
        return (await post('/billing-invoices', await createBody('billing-invoices'))).id
      case 'billing-items':
        return (await post('/billing-items', await createBody('billing-items'))).id
      case 'medical-encounters':
        return (
          await post('/medical-encounters', {
            facility: A.organizations,
            patient: member.account.id,
            invoice: true
          })
        ).id
      case 'medical-records':
        return (
          await post(
            '/medical-records',
            {
              type: 'allergy',
              facility: A.organizations,
              patient: member.account.id,
              name: 'Dust',
              permissions: [{ organization: A.organizations }]
            },
            200
          )
        ).id
      case 'webhooks':
        return (
          await post('/webhook-events', {
            organization: A.organizations,
            url: receiver.url,
            events: 'accounts.patch'
          })
        ).id
      case 'inventory-stockrooms':
        return (await post('/inventory-stockrooms', { facility: A.organizations, name: 'Short-lived' })).id
      case 'inventory-variants':
        return (
          await post('/inventory-variants', {
            facility: A.organizations,
            sku: `GONE-${++created}`,
            name: 'Short-lived'
          })
        ).id
      case 'schedules':
        return (await post('/schedules', await createBody('schedules'))).id
      case 'notification-templates':
        return (await post('/notification-templates', await createBody('notification-templates'))).id
      case 'attachments':
        return (await post('/attachments', await createBody('attachments'))).id
      default:
        return A[path]
    }
  }

  /** Which id a call targets: A's fixture, or a fresh document when the call is expected to destroy it. */
  const targetId = async (path: ServicePath, method: Method, caller: Caller): Promise<string> => {
    if (method === 'remove' && caller === 'owner' && expected(path, method, caller) === 200)
      return freshForRemoval(path)
    // A member's DELETE of a membership is tried on the owner's membership (their own they may leave).
    if (method === 'remove' && caller === 'member' && path === 'organization-members') {
      return (
        await storeOf(server, 'organization-members')._find({
          query: { organization: A.organizations, uid: owner.account.id },
          paginate: false
        })
      )[0].id
    }
    // A status move succeeds once: the owner's moves act on a fresh appointment each.
    if (method === 'patch' && caller === 'owner' && path === 'appointments') {
      const res = await http(server.url, 'POST', '/appointments', {
        token: owner.token,
        body: await createBody(path)
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      return res.body.id
    }
    // A status move succeeds once: the owner's moves act on a fresh queue item each.
    if (method === 'patch' && caller === 'owner' && path === 'queue-items') {
      const res = await http(server.url, 'POST', '/queue-items', {
        token: owner.token,
        body: await createBody(path)
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      return res.body.id
    }
    // A retry needs a failed delivery; the owner's succeeds, so give it one of its own.
    if (method === 'patch' && caller === 'owner' && path === 'webhook-events')
      return failedDelivery(server, owner.token, A.webhooks)
    return A[path]
  }

  // --- transports ---------------------------------------------------------------------------------------

  interface Outcome {
    status: number | 'ok'
    body: any
  }

  const restCall = async (
    caller: Caller,
    path: ServicePath,
    method: Method,
    id: string,
    data: any,
    query = ''
  ): Promise<Outcome> => {
    const token = tokens()[caller]
    const one = `/${path}/${encodeURIComponent(id)}`
    const [verb, url, body] =
      method === 'find'
        ? ['GET', `/${path}${query}`, undefined]
        : method === 'get'
          ? ['GET', one, undefined]
          : method === 'create'
            ? ['POST', `/${path}`, data]
            : method === 'patch'
              ? ['PATCH', one, data]
              : method === 'update'
                ? ['PUT', one, data]
                : ['DELETE', one, undefined]
    const res = await http(server.url, verb as string, url as string, { token, body })
    return { status: res.status, body: res.body }
  }

  const socketCall = async (
    caller: Caller,
    path: ServicePath,
    method: Method,
    id: string,
    data: any,
    query: Record<string, unknown> = {}
  ): Promise<Outcome> => {
    try {
      const body = await callMethod(sockets[caller]!.client, path, method, id, data, query)
      return { status: 'ok', body }
    } catch (error: any) {
      return {
        status: typeof error?.code === 'number' ? error.code : (`no code: ${error?.message}` as any),
        body: error
      }
    }
  }

  const listOf = (body: any): any[] =>
    Array.isArray(body) ? body : Array.isArray(body?.data) ? body.data : []

  const assertStatus = (transport: Transport, outcome: Outcome, want: number, what: string) => {
    const detail = `${what}: ${JSON.stringify(outcome.body)?.slice(0, 300)}`
    if (transport === 'rest') return assert.equal(outcome.status, want, detail)
    if (want < 300) return assert.equal(outcome.status, 'ok', detail)
    assert.equal(outcome.status, want, detail)
  }

  /** Every id of tenant A (all fixture documents plus A's memberships). */
  const idsOfA = async () => {
    const memberships = await storeOf(server, 'organization-members')._find({
      query: { organization: A.organizations },
      paginate: false
    })
    return new Set<string>([...Object.values(A), ...memberships.map((m: any) => m.id)])
  }
  const belongsToA = (doc: any) =>
    doc &&
    (doc.facility === A.organizations ||
      doc.organization === A.organizations ||
      doc.owner?.organization === A.organizations)

  // Fixture documents a caller's accepted PATCHes change on purpose (everything else must stay as it was).
  const changedBy = (caller: Caller): ServicePath[] =>
    caller === 'anonymous'
      ? []
      : servicePaths.filter((path) => expected(path, 'patch', caller) === 200 && path !== 'webhook-events')

  for (const transport of ['rest', 'socket'] as Transport[]) {
    describe(`over ${transport === 'rest' ? 'REST' : 'Socket.IO'}`, () => {
      for (const caller of callers) {
        describe(`as ${caller}`, () => {
          let before: Record<ServicePath, unknown>
          // Over Socket.IO an `update` is sent raw, all services at once, with a short deadline: a call nobody
          // answers must not cost the client's full timeout per case (it is reported as 'no answer').
          const socketUpdates = new Map<ServicePath, Outcome>()
          it('(snapshot of A before this caller)', async () => {
            before = await snapshotDocs(server, A)
            if (transport !== 'socket') return
            await Promise.all(
              servicePaths.map(async (path) => {
                const answer = await rawEmit(
                  sockets[caller]!.socket,
                  'update',
                  path,
                  [A[path], updateBody(path), {}],
                  2000
                )
                socketUpdates.set(
                  path,
                  answer.timedOut
                    ? { status: 'no answer' as any, body: 'no callback within 2 s' }
                    : answer.error
                      ? { status: answer.error.code, body: answer.error }
                      : { status: 'ok', body: answer.result }
                ) // `any`: a status that is no number
              })
            )
          })

          for (const path of servicePaths) {
            for (const method of allMethods) {
              const want = expected(path, method, caller)
              it(`${path} ${method} → ${want}`, async () => {
                const call = transport === 'rest' ? restCall : socketCall
                if (method === 'find') {
                  // Filtered to A's document, then unfiltered: what the caller may see of A.
                  const filtered = await (transport === 'rest'
                    ? restCall(caller, path, method, '', undefined, `?id=${A[path]}`)
                    : socketCall(caller, path, method, '', undefined, { id: A[path] }))
                  assertStatus(transport, filtered, want, `find ?id=${A[path]}`)
                  if (want !== 200) return
                  const sees = rules[path][caller as Exclude<Caller, 'anonymous'>].sees
                  assert.deepEqual(
                    listOf(filtered.body).map((d) => d.id),
                    sees ? [A[path]] : [],
                    `${caller} ${sees ? 'sees' : 'must not see'} A's ${path} document`
                  )
                  if (caller === 'outsider') {
                    const all = await (transport === 'rest'
                      ? restCall(caller, path, method, '', undefined, '?$limit=200')
                      : socketCall(caller, path, method, '', undefined, { $limit: 200 }))
                    assertStatus(transport, all, 200, 'find')
                    const ofA = await idsOfA()
                    const leaked = listOf(all.body).filter((doc) => ofA.has(doc.id) || belongsToA(doc))
                    assert.deepEqual(leaked, [], `the outsider's ${path} list holds documents of A`)
                  }
                  return
                }
                const id = await targetId(path, method, caller)
                const data =
                  method === 'create'
                    ? await createBody(path)
                    : method === 'update'
                      ? updateBody(path)
                      : method === 'patch'
                        ? patchBodies[path]
                        : undefined
                const outcome =
                  transport === 'socket' && method === 'update'
                    ? socketUpdates.get(path)!
                    : await call(caller, path, method, id, data)
                assertStatus(transport, outcome, want, `${caller} ${method} ${path}/${id}`)
                if (
                  want < 300 &&
                  method !== 'remove' &&
                  method !== 'create' &&
                  outcome.body &&
                  typeof outcome.body === 'object'
                ) {
                  assert.equal(outcome.body.id, id)
                }
              })
            }
          }

          it(`leaves A's documents as they were (except the ones this caller may change)`, async () => {
            const after = await snapshotDocs(server, A)
            for (const path of servicePaths) {
              if (changedBy(caller).includes(path)) continue
              assert.deepEqual(
                after[path],
                before[path],
                `A's ${path} document changed after ${caller}'s calls over ${transport}`
              )
            }
          })
        })
      }

      // Ids that are not strings: operator objects and other JSON values, over the raw socket (REST ids are
      // always strings, so there they are percent-encoded JSON text and must simply match nothing).
      describe('ids that are not plain strings', () => {
        const oddIds = (path: ServicePath): [string, unknown][] => [
          ['$in of A and B', { $in: [A[path], B[path]] }],
          ['$in of B and A', { $in: [B[path], A[path]] }],
          ['$regex', { $regex: 'a' }],
          ['$where', { $where: 'true' }],
          ['$ne null', { $ne: null }],
          ['$gt empty', { $gt: '' }],
          ['a number', 12345],
          ['an array', [A[path], B[path]]],
          ['true', true]
        ]
        for (const who of ['outsider', 'owner'] as Caller[]) {
          describe(`as ${who}`, () => {
            let before: Record<ServicePath, unknown>[]
            it('(snapshot of A and B before the odd ids)', async () => {
              before = [await snapshotDocs(server, A), await snapshotDocs(server, B)]
            })
            for (const path of servicePaths) {
              for (const method of (['get', 'patch', 'remove'] as Method[]).filter((m) =>
                exposed[path].includes(m)
              )) {
                it(`${who}: ${path} ${method} with operator/odd ids → 400 (REST: 404/400), never 5xx`, async () => {
                  // Every odd id is tried; the assertion lists all that were not refused as they should be.
                  const wrong: string[] = []
                  for (const [label, id] of oddIds(path)) {
                    if (transport === 'socket') {
                      const args = method === 'patch' ? [id, patchBodies[path], {}] : [id, {}]
                      const answer = await rawEmit(sockets[who]!.socket, method, path, args, 2000)
                      const got = answer.timedOut ? 'no answer' : answer.error ? answer.error.code : 'success'
                      if (got !== 400) wrong.push(`${label} → ${got}`)
                    } else {
                      const text = typeof id === 'string' ? id : JSON.stringify(id)
                      const res = await restCall(
                        who,
                        path,
                        method,
                        text,
                        method === 'patch' ? patchBodies[path] : undefined
                      )
                      if (res.status !== 404 && res.status !== 400) wrong.push(`${label} → ${res.status}`)
                    }
                  }
                  assert.deepEqual(wrong, [], `${who} ${method} ${path}: ${wrong.join('; ')}`)
                })
              }
            }
            it(`leaves A's and B's documents as they were (the ${who}'s odd ids changed nothing)`, async () => {
              const [afterA, afterB] = [await snapshotDocs(server, A), await snapshotDocs(server, B)]
              assert.deepEqual(afterA, before[0], `A's documents changed by the ${who}'s odd ids`)
              assert.deepEqual(afterB, before[1], `B's documents changed by the ${who}'s odd ids`)
            })
          })
        }
      })
    })
  }
})
