// Tenant isolation of /attachments, method × caller × transport, for a file on a record and a file on an encounter of
// organization A. `owner` is A's superadmin and wrote the record (shared read-only with A's members); `member` is a
// plain member of A (no roles, no privileges: the record's read grant but not its write grant); `outsider` is the
// superadmin of organization B. A file the caller cannot read is 404, one they can read but not change is 403, no
// token is 401, `update` is not exposed (405). The outsider never sees A's files, not even in a find.
import assert from 'node:assert/strict'
import { http, signUp, socketClient, startServer, type SignedUp, type TestServer } from '../helpers/app'
import { callMethod } from '../helpers/tenants'

type Caller = 'owner' | 'member' | 'outsider' | 'anonymous'
type Method = 'find' | 'get' | 'create' | 'patch' | 'remove' | 'update'
type Parent = 'record' | 'encounter'
const callers: Caller[] = ['anonymous', 'outsider', 'member', 'owner']
const methods: Method[] = ['find', 'get', 'create', 'patch', 'remove', 'update']

interface Expectation {
  get: number
  create: number
  patch: number
  remove: number
  sees: boolean
}
const E = (get: number, create: number, patch: number, remove: number): Expectation => ({
  get,
  create,
  patch,
  remove,
  sees: get === 200
})
const rules: Record<Parent, Record<Exclude<Caller, 'anonymous'>, Expectation>> = {
  // The record's writer writes its files; its readers read them; everyone else does not know them.
  record: { owner: E(200, 201, 200, 200), member: E(200, 403, 403, 403), outsider: E(404, 404, 404, 404) },
  // An encounter's files are the facility's members', as the encounter is.
  encounter: { owner: E(200, 201, 200, 200), member: E(200, 201, 200, 200), outsider: E(404, 404, 404, 404) }
}
const expected = (parent: Parent, method: Method, caller: Caller): number => {
  if (method === 'update') return 405
  if (caller === 'anonymous') return 401
  if (method === 'find') return 200
  return rules[parent][caller][method]
}

describe('attachments tenant isolation (method × caller × transport)', function () {
  this.timeout(120000)
  let server: TestServer
  let owner: SignedUp
  let member: SignedUp
  let outsider: SignedUp
  let organization: string
  const parents: Record<Parent, string> = { record: '', encounter: '' }
  const fixture: Record<Parent, string> = { record: '', encounter: '' }
  const sockets: Partial<Record<Caller, ReturnType<typeof socketClient>>> = {}
  const token = (caller: Caller) =>
    ({ owner: owner.token, member: member.token, outsider: outsider.token, anonymous: undefined })[caller]
  const body = (parent: Parent) => ({
    [parent]: parents[parent],
    filename: 'consent.pdf',
    contentType: 'application/pdf',
    size: 2048
  })
  const createFile = async (parent: Parent) => {
    const res = await http(server.url, 'POST', '/attachments', { token: owner.token, body: body(parent) })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body.id as string
  }

  before(async () => {
    server = await startServer()
    ;[owner, member, outsider] = await Promise.all([
      signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } }),
      signUp(server.url),
      signUp(server.url, { organization: { name: 'Clinic B', type: 'facility' } })
    ])
    organization = owner.organization.id
    const joined = await http(server.url, 'POST', '/organization-members', {
      token: owner.token,
      body: { organization, uid: member.account.id }
    })
    assert.equal(joined.status, 201, JSON.stringify(joined.body))
    const record = await http(server.url, 'POST', '/medical-records', {
      token: owner.token,
      body: {
        type: 'attachment',
        facility: organization,
        patient: member.account.id,
        title: 'Consent',
        permissions: [{ organization }]
      }
    })
    assert.equal(record.status, 200, JSON.stringify(record.body))
    const encounter = await http(server.url, 'POST', '/medical-encounters', {
      token: owner.token,
      body: { facility: organization, patient: member.account.id }
    })
    assert.equal(encounter.status, 201, JSON.stringify(encounter.body))
    parents.record = record.body.id
    parents.encounter = encounter.body.id
    fixture.record = await createFile('record')
    fixture.encounter = await createFile('encounter')
    for (const caller of callers) {
      const socket = socketClient(server.url)
      const accessToken = token(caller)
      if (accessToken) await socket.client.authenticate({ strategy: 'jwt', accessToken })
      sockets[caller] = socket
    }
  })
  after(async () => {
    for (const socket of Object.values(sockets)) socket?.close()
    await server?.close()
  })

  const dataFor = (parent: Parent, method: Method) =>
    method === 'create'
      ? body(parent)
      : method === 'patch' || method === 'update'
        ? { title: 'Signed' }
        : undefined

  const restCall = async (caller: Caller, parent: Parent, method: Method, id: string) => {
    const verb = { find: 'GET', get: 'GET', create: 'POST', patch: 'PATCH', remove: 'DELETE', update: 'PUT' }[
      method
    ]
    const path =
      method === 'find'
        ? `/attachments?${parent}=${parents[parent]}`
        : method === 'create'
          ? '/attachments'
          : `/attachments/${id}`
    const res = await http(server.url, verb, path, { token: token(caller), body: dataFor(parent, method) })
    return { status: res.status === 201 && method !== 'create' ? 200 : res.status, body: res.body }
  }

  const socketCall = async (caller: Caller, parent: Parent, method: Method, id: string) => {
    try {
      const result = await callMethod(
        (sockets[caller] as ReturnType<typeof socketClient>).client,
        'attachments',
        method,
        id,
        dataFor(parent, method),
        { [parent]: parents[parent] }
      )
      return { status: method === 'create' ? 201 : 200, body: result }
    } catch (error: any) {
      // Socket.IO: a method the service does not expose is refused by the transport ("not a valid method").
      const status =
        typeof error.code === 'number'
          ? error.code
          : /not.*method|method.*not/i.test(error.message)
            ? 405
            : 500
      return { status, body: error }
    }
  }

  for (const parent of ['record', 'encounter'] as Parent[]) {
    for (const transport of ['rest', 'socket'] as const) {
      for (const caller of callers) {
        for (const method of methods) {
          const want = expected(parent, method, caller)
          it(`${parent} file · ${transport} · ${caller} · ${method} → ${want}`, async () => {
            // A removal that should succeed acts on a fresh file (the fixture stays for the other calls).
            const id = method === 'remove' && want === 200 ? await createFile(parent) : fixture[parent]
            const call = transport === 'rest' ? restCall : socketCall
            const outcome = await call(caller, parent, method, id)
            assert.equal(outcome.status, want, JSON.stringify(outcome.body))
            if (method === 'find' && want === 200) {
              const ids = (outcome.body.data ?? []).map((a: any) => a.id)
              assert.equal(
                ids.includes(fixture[parent]),
                rules[parent][caller as Exclude<Caller, 'anonymous'>].sees
              )
            }
            if (outcome.status < 300 && outcome.body && typeof outcome.body === 'object')
              assert.equal(JSON.stringify(outcome.body).includes('storageKey'), false)
          })
        }
      }
    }
  }

  it('leaves no file of A readable by the outsider: get, find by patient, by organization, storage totals', async () => {
    for (const path of [
      `/attachments/${fixture.record}`,
      `/attachments/${fixture.encounter}`,
      `/attachments?patient=${member.account.id}`,
      `/attachments?organization=${organization}`,
      `/attachments?$analytics=storage&organization=${organization}`
    ]) {
      const res = await http(server.url, 'GET', path, { token: outsider.token })
      assert.ok([200, 403, 404].includes(res.status), `${path}: ${res.status}`)
      if (res.status === 200) assert.equal(res.body.total, 0, path)
    }
  })
})
