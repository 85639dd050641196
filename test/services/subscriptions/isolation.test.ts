// Tenant isolation of subscriptions and packages, method × caller × transport. Facility A has a superadmin
// (`owner`), a plain member (`member`) and a subscription to Clinic Plus (active); `outsider` is the superadmin of
// facility B. Subscriptions: members read theirs, the superadmin changes it, the outsider sees nothing (404), no
// token is a 401; subscriptions are never removed or replaced (405). Packages: everyone reads, application admins
// alone create and change (403 for everyone else).
import assert from 'node:assert/strict'
import { http, signUp, socketClient } from '../../helpers/app'
import { addMember } from '../../helpers/billing'
import { followCheckout, signUpWith, startSubsServer, type SubsServer } from '../../helpers/subscriptions'
import { callMethod } from '../../helpers/tenants'

type Caller = 'anonymous' | 'outsider' | 'member' | 'owner' | 'admin'
type Method = 'find' | 'get' | 'create' | 'patch' | 'update' | 'remove'
type Transport = 'rest' | 'socket'
const methods: Method[] = ['find', 'get', 'create', 'patch', 'update', 'remove']

describe('subscriptions and packages: tenant isolation over REST and Socket.IO', () => {
  let subs: SubsServer
  let url: string
  const tokens: Partial<Record<Caller, string>> = {}
  const sockets: Partial<Record<Caller, ReturnType<typeof socketClient>>> = {}
  let subscription: string
  let facility: string
  let outsiderFacility: string

  before(async () => {
    subs = await startSubsServer()
    url = subs.server.url
    const owner = await signUpWith(url, subs.packages['clinic-plus'].id)
    await followCheckout(owner.subscription.checkoutSession.url)
    const member = await signUp(url)
    const outsider = await signUpWith(url, subs.packages.free.id)
    await addMember(url, owner, owner.organization.id, member)
    facility = owner.organization.id
    outsiderFacility = outsider.organization.id
    subscription = owner.subscription.id
    Object.assign(tokens, {
      owner: owner.token,
      member: member.token,
      outsider: outsider.token,
      admin: subs.admin
    })
    for (const caller of ['anonymous', 'outsider', 'member', 'owner', 'admin'] as Caller[]) {
      sockets[caller] = socketClient(url)
      if (tokens[caller])
        await sockets[caller]!.client.authenticate({ strategy: 'jwt', accessToken: tokens[caller] })
    }
  })
  after(async () => {
    for (const socket of Object.values(sockets)) socket?.close()
    await subs.server.close()
  })

  const call = async (
    transport: Transport,
    caller: Caller,
    path: string,
    method: Method,
    id: string,
    data?: unknown,
    query: Record<string, string> = {}
  ) => {
    if (transport === 'rest') {
      const qs = new URLSearchParams(query).toString()
      const [verb, target] =
        method === 'find'
          ? ['GET', `/${path}${qs ? `?${qs}` : ''}`]
          : method === 'get'
            ? ['GET', `/${path}/${id}`]
            : method === 'create'
              ? ['POST', `/${path}`]
              : method === 'patch'
                ? ['PATCH', `/${path}/${id}`]
                : method === 'update'
                  ? ['PUT', `/${path}/${id}`]
                  : ['DELETE', `/${path}/${id}`]
      const res = await http(url, verb, target, { token: tokens[caller], body: data })
      return { status: res.status, body: res.body }
    }
    try {
      const body = await callMethod(sockets[caller]!.client, path, method, id, data, query)
      return { status: method === 'create' ? 201 : 200, body }
    } catch (error: any) {
      return { status: error?.code, body: error }
    }
  }

  // Expected status per caller and method; `find` 200 with `sees` saying whether A's subscription is listed.
  const subscriptionRules: Record<Exclude<Caller, 'admin'>, Record<Method, number> & { sees?: boolean }> = {
    anonymous: { find: 401, get: 401, create: 401, patch: 401, update: 405, remove: 405 },
    outsider: { find: 200, get: 404, create: 404, patch: 404, update: 405, remove: 405, sees: false },
    member: { find: 200, get: 200, create: 403, patch: 403, update: 405, remove: 405, sees: true },
    owner: { find: 200, get: 200, create: 409, patch: 200, update: 405, remove: 405, sees: true }
  }

  for (const transport of ['rest', 'socket'] as Transport[]) {
    for (const caller of ['anonymous', 'outsider', 'member', 'owner'] as const) {
      for (const method of methods) {
        const want = subscriptionRules[caller][method]
        it(`subscriptions ${method} by ${caller} over ${transport}: ${want}`, async () => {
          const data =
            method === 'create'
              ? { facility, package: subs.packages.free.id }
              : method === 'patch'
                ? { pharmacy: false }
                : method === 'update'
                  ? { status: 'active' }
                  : undefined
          const outcome = await call(
            transport,
            caller,
            'subscriptions',
            method,
            subscription,
            data,
            method === 'find' ? { facility } : {}
          )
          if (transport === 'socket' && want === 405 && caller === 'anonymous')
            assert.ok([401, 405].includes(outcome.status), JSON.stringify(outcome.body))
          else assert.equal(outcome.status, want, JSON.stringify(outcome.body))
          if (method === 'find' && want === 200)
            assert.equal(
              outcome.body.data.some((s: any) => s.id === subscription),
              subscriptionRules[caller].sees
            )
          if (want >= 400) assert.equal(JSON.stringify(outcome.body).includes('"liveKey"'), false)
        })
      }
    }
  }

  it("the outsider's own subscription is invisible to A's members, and a find without a filter lists only one's own", async () => {
    const list = await http(url, 'GET', '/subscriptions', { token: tokens.member })
    assert.ok(list.body.data.every((s: any) => s.facility === facility))
    assert.equal(
      (await http(url, 'GET', `/subscriptions?facility=${outsiderFacility}`, { token: tokens.member })).body
        .total,
      0
    )
  })

  const packageRules: Record<Caller, Record<Method, number>> = {
    anonymous: { find: 200, get: 200, create: 401, patch: 401, update: 405, remove: 405 },
    outsider: { find: 200, get: 200, create: 403, patch: 403, update: 405, remove: 405 },
    member: { find: 200, get: 200, create: 403, patch: 403, update: 405, remove: 405 },
    owner: { find: 200, get: 200, create: 403, patch: 403, update: 405, remove: 405 },
    admin: { find: 200, get: 200, create: 201, patch: 200, update: 405, remove: 405 }
  }

  for (const transport of ['rest', 'socket'] as Transport[]) {
    for (const caller of ['anonymous', 'outsider', 'member', 'owner', 'admin'] as Caller[]) {
      for (const method of methods) {
        const want = packageRules[caller][method]
        it(`subscription/packages ${method} by ${caller} over ${transport}: ${want}`, async () => {
          const data =
            method === 'create'
              ? {
                  name: `Pkg ${caller} ${transport}`,
                  type: 'facility',
                  types: ['clinic'],
                  price: 100,
                  currency: 'USD'
                }
              : method === 'patch' || method === 'update'
                ? { description: `changed by ${caller}` }
                : undefined
          const outcome = await call(
            transport,
            caller,
            'subscription/packages',
            method,
            subs.packages.diagnostics.id,
            data
          )
          if (transport === 'socket' && want === 405 && caller === 'anonymous')
            assert.ok([401, 405].includes(outcome.status), JSON.stringify(outcome.body))
          else assert.equal(outcome.status, want, JSON.stringify(outcome.body))
        })
      }
    }
  }
})
