// Billing test fixtures, set up over HTTP as clients do: a facility with a superadmin owner, a member holding
// the `billing` privilege, a plain member, and a stranger who belongs to another facility.
import assert from 'node:assert/strict'
import { http, restClient, signUp, startServer, type SignedUp, type TestServer } from './app'

export interface FacilityFixture {
  id: string
  owner: SignedUp
  biller: SignedUp
  member: SignedUp
  stranger: SignedUp
  strangerFacility: string
}

export const addMember = async (
  url: string,
  owner: SignedUp,
  organization: string,
  who: SignedUp,
  grants: { privileges?: string[]; roles?: string[] } = {}
) => {
  const res = await http(url, 'POST', '/organization-members', {
    token: owner.token,
    body: { organization, uid: who.account.id, ...grants }
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

export const setupFacility = async (url: string, name = 'Clinic'): Promise<FacilityFixture> => {
  const [owner, biller, member, stranger] = await Promise.all([
    signUp(url, { organization: { name, type: 'facility', types: ['clinic'] } }),
    signUp(url),
    signUp(url),
    signUp(url, { organization: { name: `${name} elsewhere`, type: 'facility' } })
  ])
  const id = owner.organization.id
  await addMember(url, owner, id, biller, { privileges: ['billing'] })
  await addMember(url, owner, id, member, { roles: ['physician'] })
  return { id, owner, biller, member, stranger, strangerFacility: stranger.organization.id }
}

/** A fresh server with a facility fixture on it: the shared start of every billing test file. */
export const startFacilityServer = async (
  overrides: Parameters<typeof startServer>[0] = {}
): Promise<{ server: TestServer; facility: FacilityFixture }> => {
  const server = await startServer(overrides)
  return { server, facility: await setupFacility(server.url) }
}

/** A draft invoice with items of the given prices (quantity 1), created by the biller. */
export const invoiceWithItems = async (url: string, facility: FacilityFixture, prices: number[]) => {
  const api = restClient(url, facility.biller.token)
  const invoice = await api.post('/billing-invoices', {
    facility: facility.id,
    type: 'walk-in',
    subject: facility.member.account.id,
    subjectType: 'patient'
  })
  assert.equal(invoice.status, 201, JSON.stringify(invoice.body))
  const items = []
  for (const price of prices) {
    const item = await api.post('/billing-items', {
      invoice: invoice.body.id,
      type: 'custom',
      name: `Line ${items.length + 1}`,
      price
    })
    assert.equal(item.status, 201, JSON.stringify(item.body))
    items.push(item.body)
  }
  return { invoice: invoice.body, items }
}

/** Records a payment as the biller and asserts it succeeded. */
export const pay = async (
  url: string,
  facility: FacilityFixture,
  item: string,
  amount: number,
  extra: Record<string, unknown> = {}
) => {
  const res = await http(url, 'POST', '/billing-payments', {
    token: facility.biller.token,
    body: { item, type: 'payment', paymentMethod: 'cash', amount, ...extra }
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

/** The fields named in a 400's `errors`. */
export const fieldsOf = (body: any): string[] =>
  (body?.data?.errors ?? body?.errors ?? []).map((e: any) => e.field)
