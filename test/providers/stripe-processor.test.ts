// The Stripe card processor (production code, on the official SDK) against a local server speaking Stripe's
// REST API, driven through /billing/customers over HTTP: customers and cards land at "Stripe", the default
// card follows the same rules as in the sandbox, refusals are 402s with Stripe's message, failures and
// timeouts are 502s with nothing half-saved, and the secret key goes to Stripe only.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { http, signUp, startServer, type SignedUp, type TestServer } from '../helpers/app'
import { startStripeServer, type StripeServer } from '../helpers/stripe-server'

describe('Stripe card processor (against a local Stripe API)', function () {
  this.timeout(30000)
  let stripe: StripeServer
  let server: TestServer
  let payer: SignedUp
  const answers: unknown[] = []

  before(async () => {
    stripe = await startStripeServer()
    server = await startServer({
      processor: {
        kind: 'stripe',
        timeoutMs: 1500,
        stripe: {
          secretKey: stripe.secretKey,
          host: '127.0.0.1',
          port: String(stripe.port),
          protocol: 'http'
        }
      }
    } as any) // `as any`: processor settings are raw config values
    payer = await signUp(server.url)
  })
  afterEach(() => {
    stripe.mode = 'ok'
    stripe.failOnly = undefined
  })
  after(async () => {
    await server?.close()
    await stripe?.close()
  })

  const call = async (method: string, path: string, body?: unknown, token = payer.token) => {
    const res = await http(server.url, method, path, { token, body })
    answers.push(res.body)
    return res
  }
  const cardsOf = async (id: string) => {
    const res = await call('GET', `/billing/customers/${id}?$populateProcessorCards=true`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.processorCustomerCards.data as any[]
  }
  const defaultOf = (cards: any[]) => cards.filter((card) => card.isDefault).map((card) => card.id)
  let customer: string

  it('creates a Stripe customer with the token’s card as its default payment method', async () => {
    const res = await call('POST', '/billing/customers', {
      owner: { account: payer.account.id },
      processorToken: 'tok_visa',
      processorEmail: 'payer@example.test'
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    assert.equal(res.body.processor, 'stripe')
    customer = res.body.id
    const atStripe = stripe.customers.get(res.body.processorCustomerId)!
    assert.equal(atStripe.email, 'payer@example.test')
    const cards = await cardsOf(customer)
    assert.deepEqual(
      cards.map(({ id: _id, ...rest }) => rest),
      [{ brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034, isDefault: true }]
    )
    assert.equal(atStripe.default, cards[0].id)
  })

  it('makes no Stripe call for a GET without $populateProcessorCards', async () => {
    const before = stripe.requests.length
    assert.equal((await call('GET', `/billing/customers/${customer}`)).status, 200)
    assert.equal(stripe.requests.length, before)
  })

  it('moves the default on add, set-default and delete (default and not) as in the sandbox', async () => {
    assert.equal(
      (await call('PATCH', `/billing/customers/${customer}`, { processorToken: 'tok_mastercard' })).status,
      200
    )
    let cards = await cardsOf(customer)
    assert.deepEqual(
      cards.map((c) => c.brand),
      ['mastercard', 'visa']
    )
    assert.deepEqual(defaultOf(cards), [cards[0].id])
    const [mastercard, visa] = cards
    assert.equal(
      (await call('PATCH', `/billing/customers/${customer}`, { $setDefaultProcessorCard: visa.id })).status,
      200
    )
    assert.deepEqual(defaultOf(await cardsOf(customer)), [visa.id])
    assert.equal(
      (await call('PATCH', `/billing/customers/${customer}`, { processorToken: 'tok_visa' })).status,
      200
    )
    cards = await cardsOf(customer)
    const newest = cards[0]
    assert.deepEqual(defaultOf(cards), [newest.id])
    assert.equal(
      (await call('PATCH', `/billing/customers/${customer}`, { $deleteProcessorCard: visa.id })).status,
      200
    )
    assert.deepEqual(
      defaultOf(await cardsOf(customer)),
      [newest.id],
      'deleting a card that is not the default keeps the default'
    )
    assert.equal(
      (await call('PATCH', `/billing/customers/${customer}`, { $deleteProcessorCard: newest.id })).status,
      200
    )
    assert.deepEqual(
      defaultOf(await cardsOf(customer)),
      [mastercard.id],
      'the most recently added remaining card'
    )
    assert.equal(
      (await call('PATCH', `/billing/customers/${customer}`, { $deleteProcessorCard: mastercard.id })).status,
      200
    )
    assert.deepEqual(await cardsOf(customer), [])
  })

  it('answers Stripe’s card errors and unknown tokens with 402 and Stripe’s message', async () => {
    const declined = await call('PATCH', `/billing/customers/${customer}`, {
      processorToken: 'tok_chargeDeclined'
    })
    assert.equal(declined.status, 402)
    assert.equal(declined.body.message, 'Your card was declined.')
    const unknown = await call('PATCH', `/billing/customers/${customer}`, { processorToken: 'tok_unheardOf' })
    assert.equal(unknown.status, 402)
    assert.match(unknown.body.message, /No such token/)
    assert.deepEqual(await cardsOf(customer), [])
  })

  it('refuses a card of another Stripe customer with 400 naming it', async () => {
    const other = await signUp(server.url)
    const theirs = await call(
      'POST',
      '/billing/customers',
      { owner: { account: other.account.id }, processorToken: 'tok_visa' },
      other.token
    )
    const [card] = (
      await call(
        'GET',
        `/billing/customers/${theirs.body.id}?$populateProcessorCards=true`,
        undefined,
        other.token
      )
    ).body.processorCustomerCards.data
    const res = await call('PATCH', `/billing/customers/${customer}`, { $deleteProcessorCard: card.id })
    assert.equal(res.status, 400)
    assert.match(res.body.message, new RegExp(card.id))
  })

  it('answers a Stripe outage with 502 and leaves no customer behind, here or at Stripe', async () => {
    const other = await signUp(server.url)
    stripe.mode = 'fail'
    stripe.failOnly = /attach$/
    const res = await call(
      'POST',
      '/billing/customers',
      { owner: { account: other.account.id }, processorToken: 'tok_visa' },
      other.token
    )
    assert.equal(res.status, 502)
    assert.equal(
      (await call('GET', `/billing/customers?owner.account=${other.account.id}`, undefined, other.token)).body
        .total,
      0
    )
    const created = [...stripe.customers.values()].filter((c) => !c.deleted)
    const ours = (await server.app
      .service('billing/customers' as any)
      .find({ paginate: false } as any)) as any[] // `any`: internal call without a ServiceTypes entry
    assert.deepEqual(
      created.map((c) => c.id).sort(),
      ours.map((c) => c.processorCustomerId).sort(),
      'every live Stripe customer is one of ours'
    )
  })

  it('answers a failed default change with 502 and removes the card it had just attached', async () => {
    await call('PATCH', `/billing/customers/${customer}`, { processorToken: 'tok_visa' })
    const before = await cardsOf(customer)
    stripe.mode = 'fail'
    stripe.failOnly = /^POST \/v1\/customers\//
    const res = await call('PATCH', `/billing/customers/${customer}`, { processorToken: 'tok_mastercard' })
    assert.equal(res.status, 502)
    stripe.mode = 'ok'
    assert.deepEqual(await cardsOf(customer), before)
  })

  it('answers a Stripe that does not answer with 502 once the timeout passes', async () => {
    stripe.mode = 'hang'
    const res = await call('PATCH', `/billing/customers/${customer}`, { processorToken: 'tok_mastercard' })
    assert.equal(res.status, 502)
    assert.match(res.body.message, /card processor is unavailable/)
  })

  it('sends the secret key to Stripe only: every Stripe request carried it, no answer did', async () => {
    assert.ok(stripe.requests.length > 10)
    for (const request of stripe.requests) assert.equal(request.authorization, `Bearer ${stripe.secretKey}`)
    const text = JSON.stringify(answers)
    assert.ok(!text.includes(stripe.secretKey))
    assert.ok(!text.includes(stripe.secretKey.slice(-8)))
  })

  it('is the only code importing the Stripe SDK (src/providers/processor/stripe.ts)', () => {
    const importers: string[] = []
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(file)
        else if (
          /\.ts$/.test(file) &&
          /from 'stripe'|require\('stripe'\)/.test(fs.readFileSync(file, 'utf8'))
        )
          importers.push(path.relative(path.resolve(__dirname, '../..'), file))
      }
    }
    walk(path.resolve(__dirname, '../../src'))
    assert.deepEqual(importers, [path.join('src', 'providers', 'processor', 'stripe.ts')])
  })
})
