// Payment intents over HTTP with the sandbox gateway: server-side pricing of the three item forms, fees and
// receivables, the approval page followed as a plain HTTP client follows its forms, capture and its states,
// invoice payments that never overpay, the open-redirect guard, and who may do what.
import assert from 'node:assert/strict'
import {
  http,
  recordEvents,
  signUp,
  socketClient,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../../helpers/app'
import { fieldsOf, invoiceWithItems, startFacilityServer, type FacilityFixture } from '../../helpers/billing'
import { answerCheckout } from '../../helpers/gateways'
import { rawEmit } from '../../helpers/tenants'

const RETURN = 'http://127.0.0.1:9/paid'
const CANCEL = 'http://127.0.0.1:9/cancelled'

describe('billing-payment-intents (sandbox gateway)', function () {
  this.timeout(30000)
  let server: TestServer
  let facility: FacilityFixture
  let url: string
  let serviceId: string
  const sku = 'GAUZE-10'

  before(async () => {
    ;({ server, facility } = await startFacilityServer())
    url = server.url
    const service = await http(url, 'POST', '/services', {
      token: facility.owner.token,
      body: { facility: facility.id, name: 'Consultation', type: 'consultation', price: 45.5 }
    })
    assert.equal(service.status, 201, JSON.stringify(service.body))
    serviceId = service.body.id
    const variant = await http(url, 'POST', '/inventory-variants', {
      token: facility.owner.token,
      body: { facility: facility.id, sku, name: 'Gauze, 10 pack', price: 2.25 }
    })
    assert.equal(variant.status, 201, JSON.stringify(variant.body))
  })
  after(() => server?.close())

  const create = (token: string | undefined, body: Record<string, unknown>) =>
    http(url, 'POST', '/billing-payment-intents', { token, body })
  const capture = (token: string | undefined, id: string) =>
    http(url, 'PATCH', `/billing-payment-intents/${id}`, { token, body: { capture: true } })
  const facilityIntent = (extra: Record<string, unknown> = {}) => ({
    gatewayType: 'sandbox-card',
    currency: 'USD',
    facility: facility.id,
    gatewayReturnURL: RETURN,
    gatewayCancelURL: CANCEL,
    items: [{ name: 'Dressing', amountPerItem: 10, quantity: 1 }],
    ...extra
  })

  describe('creating', () => {
    it('prices variant, service and custom items on the server and computes netAmount and receivables', async () => {
      const res = await create(
        facility.biller.token,
        facilityIntent({
          items: [
            { type: 'inventory-variant', ref: sku, quantity: 4 },
            { type: 'service', ref: serviceId, quantity: 2 },
            { name: 'Home visit', amountPerItem: 20.1, quantity: 1 }
          ]
        })
      )
      assert.equal(res.status, 201, JSON.stringify(res.body))
      const intent = res.body
      assert.deepEqual(
        intent.items.map((i: any) => [i.name, i.quantity, i.amountPerItem, i.amount]),
        [
          ['Gauze, 10 pack', 4, 2.25, 9],
          ['Consultation', 2, 45.5, 91],
          ['Home visit', 1, 20.1, 20.1]
        ]
      )
      assert.equal(intent.netAmount, 120.1)
      // sandbox-card: 2.9 % + 0.30 → 3.48 + 0.30
      assert.deepEqual(intent.receivables, { gross: 120.1, fees: 3.78, net: 116.32 })
      assert.equal(intent.status, 'created')
      assert.equal(intent.gatewayType, 'sandbox-card')
      assert.match(
        intent.checkout.approvalURL,
        new RegExp(`/gateways/sandbox/checkout/${intent.id}\\?secret=`)
      )
      for (const hidden of ['checkoutSecret', 'amounts', 'capturingBy'])
        assert.equal(intent[hidden], undefined, hidden)
    })

    it('refuses a client price on a variant or service item (400)', async () => {
      const res = await create(
        facility.biller.token,
        facilityIntent({ items: [{ type: 'service', ref: serviceId, quantity: 1, amountPerItem: 0.01 }] })
      )
      assert.equal(res.status, 400)
    })

    it('names the item that is unknown, not in the currency, or has no positive quantity (400)', async () => {
      const cases: [unknown, RegExp][] = [
        [{ type: 'inventory-variant', ref: 'NO-SUCH-SKU', quantity: 1 }, /items\.0.*NO-SUCH-SKU/],
        [{ type: 'service', ref: '0123456789abcdef01234567', quantity: 1 }, /items\.0/],
        [{ name: 'Nothing', amountPerItem: 1, quantity: 0 }, /items\.0\.quantity/]
      ]
      for (const [item, message] of cases) {
        const res = await create(facility.biller.token, facilityIntent({ items: [item] }))
        assert.equal(res.status, 400, JSON.stringify(item))
        assert.match(res.body.message, message)
      }
      const euro = await create(
        facility.biller.token,
        facilityIntent({
          currency: 'EUR',
          items: [
            { name: 'Ok', amountPerItem: 1, quantity: 1 },
            { type: 'service', ref: serviceId, quantity: 1 }
          ]
        })
      )
      assert.equal(euro.status, 400)
      assert.deepEqual(fieldsOf(euro.body), ['items.1'])
      assert.match(euro.body.message, /USD/)
    })

    it('refuses a fraction of a variant or service (400 naming its quantity) and a line that rounds to 0 (400 naming the item), creating nothing', async () => {
      const before = (
        await http(url, 'GET', `/billing-payment-intents?facility=${facility.id}&$limit=0`, {
          token: facility.biller.token
        })
      ).body.total
      const cases: [unknown[], string][] = [
        [[{ type: 'inventory-variant', ref: sku, quantity: 0.001 }], 'items.0.quantity'],
        [
          [
            { name: 'Ok', amountPerItem: 1, quantity: 1 },
            { type: 'inventory-variant', ref: sku, quantity: 2.5 }
          ],
          'items.1.quantity'
        ],
        [[{ type: 'service', ref: serviceId, quantity: 0.5 }], 'items.0.quantity'],
        // 0.01 × 0.4 = 0.004, which is 0 at 2 decimals: the payer would get a line for nothing.
        [
          [
            { name: 'Ok', amountPerItem: 1, quantity: 1 },
            { name: 'Almost nothing', amountPerItem: 0.01, quantity: 0.4 }
          ],
          'items.1'
        ]
      ]
      for (const [items, field] of cases) {
        const res = await create(facility.biller.token, facilityIntent({ items }))
        assert.equal(res.status, 400, `${JSON.stringify(items)} → ${res.status} ${JSON.stringify(res.body)}`)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
      assert.equal(
        (
          await http(url, 'GET', `/billing-payment-intents?facility=${facility.id}&$limit=0`, {
            token: facility.biller.token
          })
        ).body.total,
        before
      )
    })

    it('names an unknown gateway or method, and a gateway that is not configured (400)', async () => {
      const cases: [string, RegExp][] = [
        ['bogus-card', /unknown gateway 'bogus'/],
        ['sandbox-crypto', /unknown method 'crypto'/],
        ['sandbox', /unknown method ''/],
        ['paypal-paypal', /not configured/]
      ]
      for (const [gatewayType, message] of cases) {
        const res = await create(facility.biller.token, facilityIntent({ gatewayType }))
        assert.equal(res.status, 400, gatewayType)
        assert.match(res.body.message, message)
        assert.deepEqual(fieldsOf(res.body), ['gatewayType'])
      }
    })

    it('refuses return and cancel URLs off the allow-list or not http(s) (400 naming the field)', async () => {
      for (const [field, value] of [
        ['gatewayReturnURL', 'https://evil.example/steal'],
        ['gatewayCancelURL', 'javascript:alert(1)'],
        ['gatewayReturnURL', '//evil.example'],
        ['gatewayCancelURL', 'http://localhost.evil.example/']
      ]) {
        const res = await create(facility.biller.token, facilityIntent({ [field]: value }))
        assert.equal(res.status, 400, value)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
    })

    it('uses this server’s return and cancel pages when none are given', async () => {
      const res = await create(
        facility.biller.token,
        facilityIntent({ gatewayReturnURL: undefined, gatewayCancelURL: undefined })
      )
      assert.equal(res.status, 201)
      assert.equal(res.body.gatewayReturnURL, `${url}/gateways/return`)
      assert.equal(res.body.gatewayCancelURL, `${url}/gateways/cancel`)
    })
  })

  describe('approval and capture', () => {
    it('runs the whole sandbox flow: approval page → return URL → capture', async () => {
      const intent = (await create(facility.biller.token, facilityIntent())).body
      const early = await capture(facility.biller.token, intent.id)
      assert.equal(early.status, 409)
      assert.match(early.body.message, new RegExp(`${intent.id} is created`))
      const answer = await answerCheckout(intent.checkout.approvalURL, 'approve')
      assert.match(answer.html, /10 USD/)
      assert.equal(answer.status, 303)
      assert.equal(answer.location, `${RETURN}?intent=${intent.id}`)
      const approved = await http(url, 'GET', `/billing-payment-intents/${intent.id}`, {
        token: facility.biller.token
      })
      assert.equal(approved.body.status, 'approved')
      const captured = await capture(facility.biller.token, intent.id)
      assert.equal(captured.status, 200, JSON.stringify(captured.body))
      assert.equal(captured.body.status, 'captured')
      assert.deepEqual(
        captured.body.statusHistory.map((s: any) => s.status),
        ['created', 'approved', 'capturing', 'captured']
      )
      const again = await capture(facility.biller.token, intent.id)
      assert.equal(again.status, 409)
      assert.match(again.body.message, new RegExp(`${intent.id} is captured`))
    })

    it('announces the approval page’s change to the facility’s members in realtime, without the page secret', async () => {
      const socket = socketClient(url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
        const events = recordEvents(socket.client, 'billing-payment-intents', ['patched'])
        const intent = (await create(facility.biller.token, facilityIntent())).body
        await answerCheckout(intent.checkout.approvalURL, 'approve')
        await waitUntil(
          () => events.some((e) => e.data.id === intent.id && e.data.status === 'approved'),
          5000,
          'the patched event'
        )
        for (const event of events) assert.equal(event.data.checkoutSecret, undefined)
      } finally {
        socket.close()
      }
    })

    it('takes the cancel path: the page’s Cancel leads to the cancel URL and the intent cannot be captured', async () => {
      const intent = (await create(facility.biller.token, facilityIntent())).body
      const answer = await answerCheckout(intent.checkout.approvalURL, 'cancel')
      assert.equal(answer.status, 303)
      assert.equal(answer.location, `${CANCEL}?intent=${intent.id}`)
      const res = await capture(facility.biller.token, intent.id)
      assert.equal(res.status, 409)
      assert.match(res.body.message, /is cancelled/)
      const page = await (await fetch(intent.checkout.approvalURL)).text()
      assert.match(page, /This payment is cancelled/)
    })

    it('does not show the approval page without its secret (404)', async () => {
      const intent = (await create(facility.biller.token, facilityIntent())).body
      assert.equal((await fetch(`${url}/gateways/sandbox/checkout/${intent.id}`)).status, 404)
      assert.equal(
        (
          await fetch(`${url}/gateways/sandbox/checkout/${intent.id}/approve?secret=wrong`, {
            method: 'POST',
            redirect: 'manual'
          })
        ).status,
        404
      )
    })

    it('marks a declined capture as failed', async () => {
      const intent = (
        await create(
          facility.biller.token,
          facilityIntent({ items: [{ name: 'Declined by the sandbox', amountPerItem: 402, quantity: 1 }] })
        )
      ).body
      await answerCheckout(intent.checkout.approvalURL, 'approve')
      const res = await capture(facility.biller.token, intent.id)
      assert.equal(res.status, 200)
      assert.equal(res.body.status, 'failed')
      assert.match(res.body.failureReason, /declined/)
    })

    it('cancels an intent that expired before approval', async () => {
      const intent = (await create(facility.biller.token, facilityIntent())).body
      await (server.app.service('billing-payment-intents' as any) as any)._patch(intent.id, {
        expiresAt: Date.now() - 1
      }) // `any`: internal store call to age the intent
      const answer = await answerCheckout(intent.checkout.approvalURL, 'approve').catch(() => null)
      assert.equal(answer, null, 'an expired intent shows no buttons')
      const res = await capture(facility.biller.token, intent.id)
      assert.equal(res.status, 409)
      assert.match(res.body.message, /is cancelled/)
    })
  })

  describe('with an invoice', () => {
    it('records the captured amount as payments on the invoice’s items, in order', async () => {
      const { invoice, items } = await invoiceWithItems(url, facility, [30, 50])
      const intent = (
        await create(
          facility.biller.token,
          facilityIntent({
            invoice: invoice.id,
            items: [{ name: 'Invoice payment', amountPerItem: 60, quantity: 1 }]
          })
        )
      ).body
      await answerCheckout(intent.checkout.approvalURL, 'approve')
      const res = await capture(facility.biller.token, intent.id)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.payments.length, 2)
      const balances = await Promise.all(
        items.map(
          async (item: any) =>
            (await http(url, 'GET', `/billing-items/${item.id}`, { token: facility.biller.token })).body
              .balance
        )
      )
      assert.deepEqual(balances, [0, 20])
      const payments = (
        await http(url, 'GET', `/billing-payments?invoice=${invoice.id}`, { token: facility.biller.token })
      ).body.data
      assert.deepEqual(payments.map((p: any) => [p.amount, p.paymentMethod, p.reference]).sort(), [
        [30, 'card', `payment intent ${intent.id}`],
        [30, 'card', `payment intent ${intent.id}`]
      ])
    })

    it('refuses a capture that would overpay the invoice before any money moves (409), leaving it approved', async () => {
      const { invoice, items } = await invoiceWithItems(url, facility, [25])
      const intent = (
        await create(
          facility.biller.token,
          facilityIntent({
            invoice: invoice.id,
            items: [{ name: 'Too much', amountPerItem: 40, quantity: 1 }]
          })
        )
      ).body
      await answerCheckout(intent.checkout.approvalURL, 'approve')
      const res = await capture(facility.biller.token, intent.id)
      assert.equal(res.status, 409)
      assert.match(res.body.message, /overpay/)
      assert.equal(
        (await http(url, 'GET', `/billing-items/${items[0].id}`, { token: facility.biller.token })).body
          .balance,
        25
      )
      assert.equal(
        (await http(url, 'GET', `/billing-payment-intents/${intent.id}`, { token: facility.biller.token }))
          .body.status,
        'approved'
      )
    })

    it('refuses an invoice of another facility (404) and one that is not the intent’s facility (400)', async () => {
      const theirs = await http(url, 'POST', '/billing-invoices', {
        token: facility.stranger.token,
        body: {
          facility: facility.strangerFacility,
          type: 'walk-in',
          subject: facility.stranger.account.id,
          subjectType: 'patient'
        }
      })
      assert.equal(
        (await create(facility.biller.token, facilityIntent({ invoice: theirs.body.id }))).status,
        404
      )
      const { invoice } = await invoiceWithItems(url, facility, [5])
      assert.equal(
        (await create(facility.biller.token, facilityIntent({ facility: undefined, invoice: invoice.id })))
          .status,
        400
      )
    })
  })

  describe('who may do what', () => {
    let patient: SignedUp
    let own: any
    let ofFacility: any
    before(async () => {
      patient = await signUp(url)
      own = (
        await create(patient.token, {
          gatewayType: 'sandbox-wallet',
          currency: 'USD',
          items: [{ name: 'Donation', amountPerItem: 5, quantity: 1 }],
          gatewayReturnURL: RETURN
        })
      ).body
      ofFacility = (await create(facility.owner.token, facilityIntent())).body
    })

    it('lets any account create an intent of its own (no facility), which only it reads and captures', async () => {
      assert.equal(own.status, 'created')
      assert.equal(own.facility, null)
      assert.equal(own.account, patient.account.id)
      assert.equal(
        (await http(url, 'GET', `/billing-payment-intents/${own.id}`, { token: patient.token })).status,
        200
      )
      for (const other of [facility.owner, facility.stranger]) {
        assert.equal(
          (await http(url, 'GET', `/billing-payment-intents/${own.id}`, { token: other.token })).status,
          404
        )
        assert.equal((await capture(other.token, own.id)).status, 404)
      }
      await answerCheckout(own.checkout.approvalURL, 'approve')
      assert.equal((await capture(patient.token, own.id)).body.status, 'captured')
    })

    it('lets members read a facility’s intents, only billers and superadmins create and capture them', async () => {
      assert.equal(
        (
          await http(url, 'GET', `/billing-payment-intents/${ofFacility.id}`, {
            token: facility.member.token
          })
        ).status,
        200
      )
      assert.equal((await create(facility.member.token, facilityIntent())).status, 403)
      assert.equal((await capture(facility.member.token, ofFacility.id)).status, 403)
      assert.equal((await create(facility.stranger.token, facilityIntent())).status, 404)
      assert.equal(
        (
          await http(url, 'GET', `/billing-payment-intents/${ofFacility.id}`, {
            token: facility.stranger.token
          })
        ).status,
        404
      )
      assert.equal((await capture(facility.stranger.token, ofFacility.id)).status, 404)
      assert.equal((await create(undefined, facilityIntent())).status, 401)
      assert.equal((await capture(undefined, ofFacility.id)).status, 401)
      const list = await http(url, 'GET', `/billing-payment-intents?facility=${facility.id}`, {
        token: facility.stranger.token
      })
      assert.deepEqual(list.body.data, [])
    })

    it('accepts only { capture: true } as a PATCH (400)', async () => {
      for (const body of [{}, { capture: false }, { status: 'captured' }, { capture: true, netAmount: 1 }]) {
        assert.equal(
          (
            await http(url, 'PATCH', `/billing-payment-intents/${ofFacility.id}`, {
              token: facility.owner.token,
              body
            })
          ).status,
          400,
          JSON.stringify(body)
        )
      }
    })
  })
  describe('hostile input', () => {
    it('answers a gateway named like an Object member (constructor, __proto__, toString) with a 400 naming gatewayType', async () => {
      for (const gatewayType of [
        'constructor-card',
        '__proto__-card',
        'toString-card',
        'hasOwnProperty-length'
      ]) {
        const res = await create(facility.biller.token, facilityIntent({ gatewayType }))
        assert.equal(res.status, 400, `${gatewayType} → ${res.status} ${JSON.stringify(res.body)}`)
        assert.deepEqual(fieldsOf(res.body), ['gatewayType'])
        assert.match(res.body.message, /unknown gateway/)
      }
    })

    it('refuses server-owned fields in a POST body (status, netAmount, receivables, account, checkout) with a 400 naming each', async () => {
      for (const [field, value] of [
        ['status', 'captured'],
        ['netAmount', 0.01],
        ['receivables', { gross: 1, fees: 0, net: 1 }],
        ['account', facility.stranger.account.id],
        ['checkout', { approvalURL: 'https://evil.example' }],
        ['statusHistory', []]
      ] as const) {
        const res = await create(facility.biller.token, facilityIntent({ [field]: value }))
        assert.equal(res.status, 400, field)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
    })

    it('refuses a line past the exact money range (400 naming its quantity), a total past it (400 naming items) and a free line (400 naming it), creating nothing', async () => {
      const before = (
        await http(url, 'GET', `/billing-payment-intents?facility=${facility.id}&$limit=0`, {
          token: facility.biller.token
        })
      ).body.total
      const huge = await create(
        facility.biller.token,
        facilityIntent({ items: [{ name: 'Everything', amountPerItem: 1e12, quantity: 1e6 }] })
      )
      assert.equal(huge.status, 400, JSON.stringify(huge.body))
      assert.deepEqual(fieldsOf(huge.body), ['items.0.quantity'])
      const total = await create(
        facility.biller.token,
        facilityIntent({
          items: Array.from({ length: 100 }, () => ({ name: 'Large', amountPerItem: 1e9, quantity: 1 }))
        })
      )
      assert.equal(total.status, 400, JSON.stringify(total.body))
      assert.deepEqual(fieldsOf(total.body), ['items'])
      const nothing = await create(
        facility.biller.token,
        facilityIntent({ items: [{ name: 'Free', amountPerItem: 0, quantity: 3 }] })
      )
      assert.equal(nothing.status, 400)
      assert.deepEqual(fieldsOf(nothing.body), ['items.0'])
      assert.match(nothing.body.message, /costs 0/)
      assert.equal(
        (
          await http(url, 'GET', `/billing-payment-intents?facility=${facility.id}&$limit=0`, {
            token: facility.biller.token
          })
        ).body.total,
        before
      )
    })

    it('answers a find (plain or $analytics) on a field that is not a query field, or with $where, with a 400 naming it (REST and Socket.IO)', async () => {
      const intent = (await create(facility.biller.token, facilityIntent())).body
      const secret = new URL(intent.checkout.approvalURL).searchParams.get('secret')
      for (const query of [
        `checkoutSecret=${secret}`,
        'checkoutSecret[$gt]=a',
        '$where=1',
        '$analytics=net-amount-total&$where=1',
        '$analytics=net-amount-total&amounts.net[$gt]=0',
        'capturingBy[$ne]=x'
      ]) {
        const res = await http(url, 'GET', `/billing-payment-intents?${query}`, {
          token: facility.member.token
        })
        assert.equal(res.status, 400, `${query} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`)
        assert.match(fieldsOf(res.body).join(), /checkoutSecret|\$where|amounts|capturingBy/)
      }
      assert.equal(
        (
          await http(url, 'GET', `/billing-payment-intents/${intent.id}?$where=1`, {
            token: facility.member.token
          })
        ).status,
        400
      )
      const socket = socketClient(url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: facility.member.token })
        // Raw socket calls: queries the typed client would refuse to compile.
        for (const query of [
          { $where: '1' },
          { $analytics: 'net-amount-total', checkoutSecret: { $gt: '' } },
          { $analytics: { $ne: 'x' } }
        ]) {
          const answer = await rawEmit(socket.socket, 'find', 'billing-payment-intents', [query])
          assert.equal(answer.error?.code, 400, `${JSON.stringify(query)} → ${JSON.stringify(answer)}`)
        }
      } finally {
        socket.close()
      }
    })
  })
})
