// Billing customers over HTTP with the sandbox card processor: who may create and read them, one per owner,
// the default card as cards are added, deleted and chosen, and the processor's refusals and outages.
import assert from 'node:assert/strict'
import { http, signUp, socketClient, type TestServer } from '../../helpers/app'
import { fieldsOf, startFacilityServer, type FacilityFixture } from '../../helpers/billing'

describe('billing/customers (sandbox processor)', function () {
  this.timeout(30000)
  let server: TestServer
  let facility: FacilityFixture
  let url: string

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    url = server.url
  })
  after(() => server?.close())

  const post = (token: string | undefined, body: unknown) =>
    http(url, 'POST', '/billing/customers', { token, body })
  const patch = (token: string, id: string, body: unknown) =>
    http(url, 'PATCH', `/billing/customers/${id}`, { token, body })
  const cardsOf = async (token: string, id: string) => {
    const res = await http(url, 'GET', `/billing/customers/${id}?$populateProcessorCards=true`, { token })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.processorCustomerCards.data as any[]
  }
  const defaultOf = (cards: any[]) => cards.filter((card) => card.isDefault).map((card) => card.id)

  describe('creating', () => {
    it('creates a customer for the caller’s own account, saving the token’s card as the default', async () => {
      const payer = await signUp(url)
      const res = await post(payer.token, {
        owner: { account: payer.account.id },
        processorToken: 'tok_visa',
        processorEmail: 'payer@example.test'
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.deepEqual(res.body.owner, { account: payer.account.id })
      assert.equal(res.body.processor, 'sandbox')
      assert.equal(res.body.processorEmail, 'payer@example.test')
      assert.equal(res.body.ownerKey, undefined)
      assert.equal(res.body.processorCustomerCards, undefined)
      const cards = await cardsOf(payer.token, res.body.id)
      assert.equal(cards.length, 1)
      assert.deepEqual(Object.keys(cards[0]).sort(), [
        'brand',
        'expMonth',
        'expYear',
        'id',
        'isDefault',
        'last4'
      ])
      assert.deepEqual(
        { ...cards[0], id: undefined },
        { id: undefined, brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034, isDefault: true }
      )
    })

    it('creates an organization’s customer for its superadmin, without a card', async () => {
      const res = await post(facility.owner.token, { owner: { organization: facility.id } })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.deepEqual(await cardsOf(facility.owner.token, res.body.id), [])
    })

    it('refuses a second customer of the same owner with 409 naming the existing one', async () => {
      const again = await post(facility.owner.token, {
        owner: { organization: facility.id },
        processorToken: 'tok_visa'
      })
      assert.equal(again.status, 409)
      const [existing] = (
        await http(url, 'GET', `/billing/customers?owner.organization=${facility.id}`, {
          token: facility.owner.token
        })
      ).body.data
      assert.match(again.body.message, new RegExp(existing.id))
      assert.equal(again.body.data.customer, existing.id)
    })

    it('lets only one of twenty simultaneous creates for one owner through', async () => {
      const payer = await signUp(url)
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => post(payer.token, { owner: { account: payer.account.id } }))
      )
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(19).fill(409)])
      const list = await http(url, 'GET', `/billing/customers?owner.account=${payer.account.id}`, {
        token: payer.token
      })
      assert.equal(list.body.total, 1)
    })

    it('answers a POST retried with the same Idempotency-Key with the first result, once', async () => {
      const payer = await signUp(url)
      const send = () =>
        http(url, 'POST', '/billing/customers', {
          token: payer.token,
          body: { owner: { account: payer.account.id }, processorToken: 'tok_visa' },
          headers: { 'idempotency-key': 'customer-1' }
        })
      const [first, again] = [await send(), await send()]
      assert.equal(first.status, 201)
      assert.equal(again.status, 201)
      assert.deepEqual(again.body, first.body)
      assert.equal((await cardsOf(payer.token, first.body.id)).length, 1)
      const other = await http(url, 'POST', '/billing/customers', {
        token: payer.token,
        body: { owner: { account: payer.account.id } },
        headers: { 'idempotency-key': 'customer-1' }
      })
      assert.equal(other.status, 409)
      assert.match(other.body.message, /Idempotency-Key/)
    })

    it('needs exactly one of account or organization in owner (400)', async () => {
      const payer = await signUp(url)
      for (const owner of [
        {},
        { account: payer.account.id, organization: facility.id },
        { patient: payer.account.id }
      ]) {
        const res = await post(payer.token, { owner })
        assert.equal(res.status, 400, JSON.stringify(owner))
        assert.match(res.body.message, /owner/)
      }
      assert.equal((await post(payer.token, {})).status, 400)
    })

    it('refuses another account’s customer (403), a member’s organization customer (403) and an unseen organization (404)', async () => {
      const payer = await signUp(url)
      assert.equal((await post(payer.token, { owner: { account: facility.member.account.id } })).status, 403)
      assert.equal((await post(facility.biller.token, { owner: { organization: facility.id } })).status, 403)
      assert.equal(
        (await post(facility.stranger.token, { owner: { organization: facility.id } })).status,
        404
      )
      assert.equal((await post(undefined, { owner: { account: payer.account.id } })).status, 401)
    })

    it('answers a declined or expired token with 402 and the processor’s message, and saves nothing', async () => {
      const payer = await signUp(url)
      const declined = await post(payer.token, {
        owner: { account: payer.account.id },
        processorToken: 'tok_chargeDeclined'
      })
      assert.equal(declined.status, 402)
      assert.equal(declined.body.message, 'Your card was declined.')
      const expired = await post(payer.token, {
        owner: { account: payer.account.id },
        processorToken: 'tok_expired'
      })
      assert.equal(expired.status, 402)
      assert.equal(expired.body.message, 'Your card has expired.')
      const unknown = await post(payer.token, {
        owner: { account: payer.account.id },
        processorToken: 'tok_nonsense'
      })
      assert.equal(unknown.status, 402)
      assert.match(unknown.body.message, /No such token/)
      const list = await http(url, 'GET', `/billing/customers?owner.account=${payer.account.id}`, {
        token: payer.token
      })
      assert.equal(list.body.total, 0)
      assert.equal(
        (await post(payer.token, { owner: { account: payer.account.id }, processorToken: 'tok_visa' }))
          .status,
        201
      )
    })

    it('answers a processor outage with 502 and saves nothing', async () => {
      const payer = await signUp(url)
      const down = await post(payer.token, {
        owner: { account: payer.account.id },
        processorToken: 'tok_processorDown'
      })
      assert.equal(down.status, 502)
      assert.doesNotMatch(JSON.stringify(down.body), /stack|sandbox outage/)
      const list = await http(url, 'GET', `/billing/customers?owner.account=${payer.account.id}`, {
        token: payer.token
      })
      assert.equal(list.body.total, 0)
    })
  })

  describe('cards', () => {
    let payer: Awaited<ReturnType<typeof signUp>>
    let customer: string

    before(async () => {
      payer = await signUp(url)
      customer = (
        await post(payer.token, { owner: { account: payer.account.id }, processorToken: 'tok_visa' })
      ).body.id
    })

    it('makes each added card the default, listing the most recently added first', async () => {
      const [visa] = await cardsOf(payer.token, customer)
      const res = await patch(payer.token, customer, { processorToken: 'tok_mastercard' })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const cards = await cardsOf(payer.token, customer)
      assert.deepEqual(
        cards.map((c) => c.brand),
        ['mastercard', 'visa']
      )
      assert.deepEqual(defaultOf(cards), [cards[0].id])
      assert.equal(cards[1].id, visa.id)
    })

    it('sets the default card on $setDefaultProcessorCard', async () => {
      const cards = await cardsOf(payer.token, customer)
      const visa = cards.find((c) => c.brand === 'visa')
      assert.equal((await patch(payer.token, customer, { $setDefaultProcessorCard: visa.id })).status, 200)
      assert.deepEqual(defaultOf(await cardsOf(payer.token, customer)), [visa.id])
    })

    it('keeps the default when a card that is not the default is deleted', async () => {
      await patch(payer.token, customer, { processorToken: 'tok_amex' })
      let cards = await cardsOf(payer.token, customer)
      const visa = cards.find((c) => c.brand === 'visa')
      assert.equal((await patch(payer.token, customer, { $setDefaultProcessorCard: visa.id })).status, 200)
      const mastercard = cards.find((c) => c.brand === 'mastercard')
      assert.equal((await patch(payer.token, customer, { $deleteProcessorCard: mastercard.id })).status, 200)
      cards = await cardsOf(payer.token, customer)
      assert.deepEqual(
        cards.map((c) => c.brand),
        ['amex', 'visa']
      )
      assert.deepEqual(defaultOf(cards), [visa.id])
    })

    it('moves the default to the most recently added remaining card when the default is deleted, and to none after the last', async () => {
      await patch(payer.token, customer, { processorToken: 'tok_mastercard' })
      let cards = await cardsOf(payer.token, customer)
      assert.deepEqual(
        cards.map((c) => c.brand),
        ['mastercard', 'amex', 'visa']
      )
      const [mastercard, amex, visa] = cards
      assert.equal((await patch(payer.token, customer, { $setDefaultProcessorCard: visa.id })).status, 200)
      assert.equal((await patch(payer.token, customer, { $deleteProcessorCard: visa.id })).status, 200)
      cards = await cardsOf(payer.token, customer)
      assert.deepEqual(defaultOf(cards), [mastercard.id], 'the most recently added remaining card')
      assert.equal((await patch(payer.token, customer, { $deleteProcessorCard: mastercard.id })).status, 200)
      assert.deepEqual(defaultOf(await cardsOf(payer.token, customer)), [amex.id])
      assert.equal((await patch(payer.token, customer, { $deleteProcessorCard: amex.id })).status, 200)
      assert.deepEqual(await cardsOf(payer.token, customer), [])
    })

    it('refuses a card id that is not this customer’s with 400 naming it', async () => {
      const other = await signUp(url)
      const theirs = (
        await post(other.token, { owner: { account: other.account.id }, processorToken: 'tok_visa' })
      ).body.id
      const [card] = await cardsOf(other.token, theirs)
      for (const operator of ['$deleteProcessorCard', '$setDefaultProcessorCard']) {
        const res = await patch(payer.token, customer, { [operator]: card.id })
        assert.equal(res.status, 400, operator)
        assert.match(res.body.message, new RegExp(card.id))
        assert.equal(res.body.errors[0].field, operator)
      }
      assert.equal((await cardsOf(other.token, theirs)).length, 1, 'the other customer keeps its card')
    })

    it('refuses a declined card on PATCH with 402 and keeps the cards as they were', async () => {
      await patch(payer.token, customer, { processorToken: 'tok_visa' })
      const before = await cardsOf(payer.token, customer)
      const res = await patch(payer.token, customer, { processorToken: 'tok_chargeDeclined' })
      assert.equal(res.status, 402)
      assert.equal(res.body.message, 'Your card was declined.')
      assert.deepEqual(await cardsOf(payer.token, customer), before)
      assert.equal((await patch(payer.token, customer, { processorToken: 'tok_processorDown' })).status, 502)
      assert.deepEqual(await cardsOf(payer.token, customer), before)
    })

    it('takes exactly one change per PATCH (400)', async () => {
      assert.equal((await patch(payer.token, customer, {})).status, 400)
      assert.equal(
        (await patch(payer.token, customer, { processorToken: 'tok_visa', $deleteProcessorCard: 'x' }))
          .status,
        400
      )
      assert.equal((await patch(payer.token, customer, { $deleteProcessorCard: 12 })).status, 400)
      assert.equal((await patch(payer.token, customer, { $unknownOperator: 'x' })).status, 400)
    })

    it('changes the email on PATCH { processorEmail }', async () => {
      const res = await patch(payer.token, customer, { processorEmail: 'new@example.test' })
      assert.equal(res.status, 200)
      assert.equal(res.body.processorEmail, 'new@example.test')
    })

    it('works the same over Socket.IO', async () => {
      const socket = socketClient(url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: payer.token })
        const service = socket.client.service('billing/customers' as any) as any // `any`: the typed client has no entry for this path
        await service.patch(customer, { processorToken: 'tok_mastercard' })
        const got = await service.get(customer, { query: { $populateProcessorCards: true } })
        assert.equal(got.processorCustomerCards.data[0].brand, 'mastercard')
        assert.equal(got.processorCustomerCards.data[0].isDefault, true)
      } finally {
        socket.close()
      }
    })
  })

  describe('reading', () => {
    let organizationCustomer: string
    before(async () => {
      organizationCustomer = (
        await http(url, 'GET', `/billing/customers?owner.organization=${facility.id}`, {
          token: facility.owner.token
        })
      ).body.data[0].id
    })

    it('shows an organization’s customer to its superadmin and billing members; others get 404', async () => {
      assert.equal(
        (
          await http(url, 'GET', `/billing/customers/${organizationCustomer}`, {
            token: facility.owner.token
          })
        ).status,
        200
      )
      assert.equal(
        (
          await http(url, 'GET', `/billing/customers/${organizationCustomer}?$populateProcessorCards=true`, {
            token: facility.biller.token
          })
        ).status,
        200
      )
      assert.equal(
        (
          await http(url, 'GET', `/billing/customers/${organizationCustomer}`, {
            token: facility.member.token
          })
        ).status,
        404
      )
      assert.equal(
        (
          await http(url, 'GET', `/billing/customers/${organizationCustomer}`, {
            token: facility.stranger.token
          })
        ).status,
        404
      )
      assert.equal((await http(url, 'GET', `/billing/customers/${organizationCustomer}`)).status, 401)
    })

    it('lets a billing member read but not change the organization’s cards (403)', async () => {
      assert.equal(
        (await patch(facility.biller.token, organizationCustomer, { processorToken: 'tok_visa' })).status,
        403
      )
      assert.equal(
        (await patch(facility.stranger.token, organizationCustomer, { processorToken: 'tok_visa' })).status,
        404
      )
    })

    it('answers a GET whose query names a field that is not a query field, or $where, with a 400 naming it', async () => {
      for (const [query, field] of [
        ['ownerKey=organization:x', 'ownerKey'],
        ['processorCustomerId[$regex]=.', 'processorCustomerId'],
        ['$where=1', '$where']
      ]) {
        const res = await http(url, 'GET', `/billing/customers/${organizationCustomer}?${query}`, {
          token: facility.owner.token
        })
        assert.equal(res.status, 400, `${query} → ${res.status}`)
        assert.ok(fieldsOf(res.body).includes(field), JSON.stringify(res.body))
      }
      const flagged = await http(
        url,
        'GET',
        `/billing/customers/${organizationCustomer}?$populateProcessorCards=true&$where=1`,
        { token: facility.owner.token }
      )
      assert.equal(flagged.status, 400)
    })

    it('treats a token named like an Object member (constructor, __proto__, toString) as an unknown token: 402 No such token', async () => {
      for (const processorToken of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        const res = await patch(facility.owner.token, organizationCustomer, { processorToken })
        assert.equal(res.status, 402, processorToken)
        assert.equal(res.body.message, `No such token: '${processorToken}'`)
      }
      assert.deepEqual(await cardsOf(facility.owner.token, organizationCustomer), [])
    })

    it('refuses an unknown query flag value (400)', async () => {
      assert.equal(
        (
          await http(url, 'GET', `/billing/customers/${organizationCustomer}?$populateProcessorCards=maybe`, {
            token: facility.owner.token
          })
        ).status,
        400
      )
    })
  })
})
