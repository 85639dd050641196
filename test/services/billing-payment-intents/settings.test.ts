// Payment intent settings as a deployment sets them: the return-URL allow-list (GATEWAY_RETURN_ORIGINS), the
// server's public origin (PUBLIC_URL) when no list is set, the default return and cancel pages, and the fee
// schedule behind receivables (GATEWAY_FEES).
import assert from 'node:assert/strict'
import { http, type TestServer } from '../../helpers/app'
import { fieldsOf, startFacilityServer, type FacilityFixture } from '../../helpers/billing'
import { answerCheckout } from '../../helpers/gateways'

const intentBody = (facility: string, extra: Record<string, unknown> = {}) => ({
  gatewayType: 'sandbox-card',
  currency: 'USD',
  facility,
  items: [{ name: 'Consultation', amountPerItem: 50, quantity: 1 }],
  ...extra
})

describe('billing-payment-intents settings', function () {
  this.timeout(30000)

  describe('with GATEWAY_RETURN_ORIGINS, default pages and a fee schedule of its own', () => {
    let server: TestServer
    let facility: FacilityFixture
    const create = (extra: Record<string, unknown> = {}) =>
      http(server.url, 'POST', '/billing-payment-intents', {
        token: facility.biller.token,
        body: intentBody(facility.id, extra)
      })

    before(async () => {
      ;({ server, facility } = await startFacilityServer({
        gateways: {
          enabled: ['sandbox'],
          returnOrigins: 'https://app.clinic.example, https://pay.clinic.example:8443',
          defaultReturnURL: 'https://app.clinic.example/paid',
          defaultCancelURL: 'https://app.clinic.example/cancelled',
          fees: { 'sandbox-card': { percent: 10, fixed: 1 } }
        }
      }))
    })
    after(() => server?.close())

    it('accepts return and cancel URLs on the listed origins only: loopback and this server are refused once a list is set (400 naming the field)', async () => {
      const ok = await create({
        gatewayReturnURL: 'https://app.clinic.example/orders/7/paid',
        gatewayCancelURL: 'https://pay.clinic.example:8443/back'
      })
      assert.equal(ok.status, 201, JSON.stringify(ok.body))
      assert.equal(ok.body.gatewayCancelURL, 'https://pay.clinic.example:8443/back')
      for (const [field, value] of [
        ['gatewayReturnURL', 'http://127.0.0.1:9/paid'],
        ['gatewayReturnURL', `${server.url}/gateways/return`],
        ['gatewayCancelURL', 'http://app.clinic.example/cancelled'],
        ['gatewayCancelURL', 'https://pay.clinic.example/back'],
        ['gatewayReturnURL', 'https://app.clinic.example.evil.example/']
      ]) {
        const res = await create({ [field]: value })
        assert.equal(res.status, 400, value)
        assert.deepEqual(fieldsOf(res.body), [field])
        assert.match(res.body.message, /allow-list/)
      }
    })

    it('sends the payer to the configured default pages when an intent names none', async () => {
      const intent = (await create()).body
      assert.equal(intent.gatewayReturnURL, 'https://app.clinic.example/paid')
      assert.equal(intent.gatewayCancelURL, 'https://app.clinic.example/cancelled')
      const answer = await answerCheckout(intent.checkout.approvalURL, 'approve')
      assert.equal(answer.location, `https://app.clinic.example/paid?intent=${intent.id}`)
      const other = (await create()).body
      assert.equal(
        (await answerCheckout(other.checkout.approvalURL, 'cancel')).location,
        `https://app.clinic.example/cancelled?intent=${other.id}`
      )
    })

    it('takes receivables.fees from the configured schedule: percent plus fixed, never above gross, none for a type without an entry', async () => {
      assert.deepEqual((await create()).body.receivables, { gross: 50, fees: 6, net: 44 })
      const small = await create({ items: [{ name: 'Plaster', amountPerItem: 0.5, quantity: 1 }] })
      assert.deepEqual(small.body.receivables, { gross: 0.5, fees: 0.5, net: 0 })
      const wallet = await create({ gatewayType: 'sandbox-wallet' })
      assert.equal(wallet.status, 201)
      assert.deepEqual(wallet.body.receivables, { gross: 50, fees: 0, net: 50 })
      assert.equal(wallet.body.netAmount, 50)
    })
  })

  describe('with PUBLIC_URL and no allow-list', () => {
    let server: TestServer
    let facility: FacilityFixture
    const create = (extra: Record<string, unknown> = {}) =>
      http(server.url, 'POST', '/billing-payment-intents', {
        token: facility.biller.token,
        body: intentBody(facility.id, extra)
      })

    before(async () => {
      ;({ server, facility } = await startFacilityServer({
        gateways: { enabled: ['sandbox'], publicURL: 'https://clinic.example/' }
      }))
    })
    after(() => server?.close())

    it("allows this server's public origin and loopback http, refuses any other origin, and builds its pages on the public origin", async () => {
      const res = await create({
        gatewayReturnURL: 'https://clinic.example/paid',
        gatewayCancelURL: 'http://localhost:5173/cancelled'
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.match(
        res.body.checkout.approvalURL,
        new RegExp(`^https://clinic\\.example/gateways/sandbox/checkout/${res.body.id}\\?secret=`)
      )
      const plain = (await create()).body
      assert.deepEqual(
        [plain.gatewayReturnURL, plain.gatewayCancelURL],
        ['https://clinic.example/gateways/return', 'https://clinic.example/gateways/cancel']
      )
      for (const value of [
        'https://evil.example/paid',
        'http://clinic.example/paid',
        'https://localhost/paid'
      ]) {
        const refused = await create({ gatewayReturnURL: value })
        assert.equal(refused.status, 400, value)
        assert.deepEqual(fieldsOf(refused.body), ['gatewayReturnURL'])
      }
    })
  })
})
