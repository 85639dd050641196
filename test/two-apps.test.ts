// Two apps in one process, each with its own settings: what start-up registers per app (access rules, external
// views, stores, hooks) reads that app's settings, never the other's. Here the privilege that lets a member
// remove invoices (`billing.privilege`, read by the invoices' access rule) and the page size of lists
// (`paginate.default`) differ, and each app keeps its own over HTTP and over Socket.IO — whichever was built last.
import assert from 'node:assert/strict'
import {
  http,
  refusal,
  restClient,
  signUp,
  socketClient,
  startServer,
  type SignedUp,
  type TestServer
} from './helpers/app'
import { addMember } from './helpers/billing'
import type { ConfigurationOverrides } from '../src/configuration'

interface Clinic {
  server: TestServer
  facility: string
  /** Holds the `billing` privilege. */
  biller: SignedUp
  /** Holds the `cashier` privilege (and is the patient the invoices are for). */
  cashier: SignedUp
}

/** A server with `overrides`, a facility, and a member holding each of the two privileges. */
const startClinic = async (overrides: ConfigurationOverrides): Promise<Clinic> => {
  const server = await startServer(overrides)
  const [owner, biller, cashier] = await Promise.all([
    signUp(server.url, { organization: { name: 'Clinic', type: 'facility', types: ['clinic'] } }),
    signUp(server.url),
    signUp(server.url)
  ])
  const facility: string = owner.organization.id
  await addMember(server.url, owner, facility, biller, { privileges: ['billing'] })
  await addMember(server.url, owner, facility, cashier, { privileges: ['cashier'] })
  return { server, facility, biller, cashier }
}

/** A new draft invoice of the clinic (members of the facility create invoices, whatever their privileges). */
const draftInvoice = async (clinic: Clinic): Promise<string> => {
  const created = await restClient(clinic.server.url, clinic.biller.token).post('/billing-invoices', {
    facility: clinic.facility,
    type: 'walk-in',
    subject: clinic.cashier.account.id,
    subjectType: 'patient'
  })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  return created.body.id
}

describe('two apps in one process', function () {
  this.timeout(60000)
  // Built one after the other: `second` is the last app built, whose settings won for both before the reshaping.
  let first: Clinic
  let second: Clinic

  before(async () => {
    first = await startClinic({ paginate: { default: 2, max: 100 } })
    second = await startClinic({ billing: { privilege: 'cashier' }, paginate: { default: 3, max: 100 } })
  })
  after(async () => {
    await first?.server.close()
    await second?.server.close()
  })

  it("removes invoices over HTTP under each app's own billing privilege", async () => {
    const remove = (clinic: Clinic, token: string, id: string) =>
      http(clinic.server.url, 'DELETE', `/billing-invoices/${id}`, { token })

    // The first app: `billing` removes, `cashier` may read but not remove (403).
    const firstInvoice = await draftInvoice(first)
    assert.equal((await remove(first, first.cashier.token, firstInvoice)).status, 403)
    assert.equal((await remove(first, first.biller.token, firstInvoice)).status, 200)

    // The second app: the other way round.
    const secondInvoice = await draftInvoice(second)
    assert.equal((await remove(second, second.biller.token, secondInvoice)).status, 403)
    assert.equal((await remove(second, second.cashier.token, secondInvoice)).status, 200)
  })

  it("removes invoices over Socket.IO under each app's own billing privilege", async () => {
    const connections: ReturnType<typeof socketClient>[] = []
    const as = async (clinic: Clinic, who: { email: string; password: string }) => {
      const connection = socketClient(clinic.server.url)
      connections.push(connection)
      await connection.client.authenticate({ strategy: 'local', email: who.email, password: who.password })
      return connection.client.service('billing-invoices')
    }
    // (a remove by id answers the one document removed)
    const idOf = (removed: { id: string } | { id: string }[]) => (Array.isArray(removed) ? null : removed.id)
    try {
      const firstInvoice = await draftInvoice(first)
      assert.equal((await refusal((await as(first, first.cashier)).remove(firstInvoice))).code, 403)
      assert.equal(idOf(await (await as(first, first.biller)).remove(firstInvoice)), firstInvoice)

      const secondInvoice = await draftInvoice(second)
      assert.equal((await refusal((await as(second, second.biller)).remove(secondInvoice))).code, 403)
      assert.equal(idOf(await (await as(second, second.cashier)).remove(secondInvoice)), secondInvoice)
    } finally {
      for (const connection of connections) connection.close()
    }
  })

  it("pages lists by each app's own default page size, over HTTP and Socket.IO", async () => {
    for (const clinic of [first, second]) for (let i = 0; i < 4; i++) await draftInvoice(clinic)

    const page = async (clinic: Clinic) =>
      (
        await restClient(clinic.server.url, clinic.biller.token).get(
          `/billing-invoices?facility=${clinic.facility}`
        )
      ).body
    assert.deepEqual([(await page(first)).limit, (await page(first)).data.length], [2, 2])
    assert.deepEqual([(await page(second)).limit, (await page(second)).data.length], [3, 3])

    for (const [clinic, size] of [
      [first, 2],
      [second, 3]
    ] as const) {
      const connection = socketClient(clinic.server.url)
      try {
        await connection.client.authenticate({
          strategy: 'local',
          email: clinic.biller.email,
          password: clinic.biller.password
        })
        const found = await connection.client
          .service('billing-invoices')
          .find({ query: { facility: clinic.facility } })
        assert.deepEqual([found.limit, found.data.length], [size, size])
      } finally {
        connection.close()
      }
    }
  })
})
