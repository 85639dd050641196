// A local stand-in for the part of Stripe's REST API the Stripe card processor uses: customers (create,
// retrieve, update incl. invoice_settings.default_payment_method, delete, list payment methods) and card
// PaymentMethods (create from a test token, attach, detach). It answers as Stripe does (form-encoded requests,
// JSON objects, lists newest first, `{ error: { type, code, message } }` with 402 for card errors), checks the
// Bearer secret key, and can be switched to fail (HTTP 500) or hang, to play an outage.
// Subscriptions: Checkout Sessions (create, retrieve), off-session PaymentIntents charging a customer's card
// (tok_chargeCustomerFail attaches but every charge is declined, as in Stripe's test mode), and webhook events sent
// the way Stripe sends them: a JSON `event` POSTed with `Stripe-Signature: t=<unix time>,v1=<HMAC-SHA256 of
// "<t>.<payload>" with the endpoint's signing secret, hex>`.
import http from 'node:http'
import crypto from 'node:crypto'
import { listenOnLoopback } from './loopback'

interface FakeCard {
  id: string
  object: 'payment_method'
  type: 'card'
  created: number
  customer: string | null
  card: { brand: string; last4: string; exp_month: number; exp_year: number }
  seq: number
}

const tokens: Record<string, { brand: string; last4: string }> = {
  tok_visa: { brand: 'visa', last4: '4242' },
  tok_mastercard: { brand: 'mastercard', last4: '4444' },
  tok_chargeDeclined: { brand: 'visa', last4: '0002' },
  tok_expired: { brand: 'visa', last4: '0069' },
  tok_chargeCustomerFail: { brand: 'visa', last4: '0341' }
}

export interface FakeCheckoutSession {
  id: string
  object: 'checkout.session'
  mode: string
  url: string
  status: 'open' | 'complete' | 'expired'
  payment_status: 'unpaid' | 'paid'
  client_reference_id: string | null
  metadata: Record<string, string>
  amount_total: number
  currency: string
  success_url: string
  cancel_url: string
  expires_at: number
}

/** The Stripe-Signature header for `payload` signed with `secret` at unix time `t`. */
export const stripeSignature = (payload: string, secret: string, t = Math.floor(Date.now() / 1000)) =>
  `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex')}`

export interface StripeServer {
  url: string
  port: number
  secretKey: string
  /** Every request as received: method, path and the Authorization header. */
  requests: { method: string; path: string; authorization?: string }[]
  customers: Map<string, { id: string; email?: string; default: string | null; deleted: boolean }>
  /** `fail`: answer HTTP 500 from now on; `hang`: never answer; `ok`: normal. */
  mode: 'ok' | 'fail' | 'hang'
  /** Fail only calls whose `METHOD path` matches (with mode 'fail' or 'hang'); all calls when unset. */
  failOnly?: RegExp
  checkoutSessions: Map<string, FakeCheckoutSession>
  /** Charges made with POST /v1/payment_intents (succeeded and declined). */
  paymentIntents: { id: string; amount: number; currency: string; customer: string; status: string }[]
  /**
   * Ends a checkout session as a payer would (`completed`: paid; `expired`: not paid in time) and sends the
   * matching event (checkout.session.completed / checkout.session.expired) to `endpoint`, signed with `secret`
   * (or with the given `signature` header, to play a forgery). Answers the endpoint's HTTP status.
   */
  finishCheckout(
    id: string,
    outcome: 'completed' | 'expired',
    endpoint: string,
    secret: string,
    signature?: string
  ): Promise<number>
  close(): Promise<void>
}

export const startStripeServer = async (
  secretKey = `sk_test_${crypto.randomBytes(12).toString('hex')}`
): Promise<StripeServer> => {
  const customers: StripeServer['customers'] = new Map()
  const methods = new Map<string, FakeCard>()
  let seq = 0
  const checkoutSessions: StripeServer['checkoutSessions'] = new Map()
  const paymentIntents: StripeServer['paymentIntents'] = []
  const customerJson = (c: { id: string; email?: string; default: string | null }) => ({
    id: c.id,
    object: 'customer',
    email: c.email ?? null,
    invoice_settings: { default_payment_method: c.default }
  })
  const cardJson = ({ seq: _seq, ...card }: FakeCard) => card
  const state: StripeServer = {
    url: '',
    port: 0,
    secretKey,
    requests: [],
    customers,
    mode: 'ok',
    checkoutSessions,
    paymentIntents,
    finishCheckout: async (id, outcome, endpoint, secret, signature) => {
      const session = checkoutSessions.get(id)
      if (!session) throw new Error(`no checkout session ${id}`)
      if (outcome === 'completed') Object.assign(session, { status: 'complete', payment_status: 'paid' })
      else session.status = 'expired'
      const payload = JSON.stringify({
        id: `evt_${crypto.randomBytes(8).toString('hex')}`,
        object: 'event',
        api_version: '2024-06-20',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        pending_webhooks: 1,
        type: `checkout.session.${outcome}`,
        data: { object: session }
      })
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'stripe-signature': signature ?? stripeSignature(payload, secret)
        },
        body: payload
      })
      await response.text()
      return response.status
    },
    close: async () => undefined
  }

  const server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk) => (raw += chunk))
    req.on('end', () => {
      const target = new URL(req.url ?? '/', 'http://stripe.local')
      const path = target.pathname
      const method = req.method ?? 'GET'
      state.requests.push({ method, path, authorization: req.headers.authorization })
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++seq}` })
        res.end(JSON.stringify(body))
      }
      const error = (status: number, type: string, message: string, code?: string) =>
        send(status, { error: { type, message, ...(code ? { code } : {}) } })
      if (state.mode !== 'ok' && (!state.failOnly || state.failOnly.test(`${method} ${path}`))) {
        if (state.mode === 'hang') return
        return error(500, 'api_error', 'Something went wrong on Stripe’s end.')
      }
      if (req.headers.authorization !== `Bearer ${secretKey}`)
        return error(401, 'invalid_request_error', 'Invalid API Key provided')
      const form = new URLSearchParams(method === 'GET' ? target.search : raw)
      const customerOf = (id: string) => {
        const found = customers.get(id)
        return found && !found.deleted ? found : undefined
      }
      let match: RegExpExecArray | null
      if (method === 'POST' && path === '/v1/customers') {
        const id = `cus_${crypto.randomBytes(7).toString('hex')}`
        const created = { id, email: form.get('email') ?? undefined, default: null, deleted: false }
        customers.set(id, created)
        return send(200, customerJson(created))
      }
      if ((match = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
        const customer = customerOf(match[1])
        if (!customer)
          return error(404, 'invalid_request_error', `No such customer: '${match[1]}'`, 'resource_missing')
        if (method === 'GET') return send(200, customerJson(customer))
        if (method === 'DELETE') {
          customer.deleted = true
          return send(200, { id: customer.id, object: 'customer', deleted: true })
        }
        if (form.has('email')) customer.email = form.get('email') ?? undefined
        if (form.has('invoice_settings[default_payment_method]')) {
          const pm = form.get('invoice_settings[default_payment_method]') || null
          if (pm && methods.get(pm)?.customer !== customer.id)
            return error(400, 'invalid_request_error', `No such PaymentMethod: '${pm}'`, 'resource_missing')
          customer.default = pm
        }
        return send(200, customerJson(customer))
      }
      if (method === 'GET' && (match = /^\/v1\/customers\/([^/]+)\/payment_methods$/.exec(path))) {
        if (!customerOf(match[1]))
          return error(404, 'invalid_request_error', `No such customer: '${match[1]}'`, 'resource_missing')
        const data = [...methods.values()]
          .filter((pm) => pm.customer === match![1])
          .sort((a, b) => b.seq - a.seq)
          .map(cardJson)
        return send(200, { object: 'list', url: path, has_more: false, data })
      }
      if (method === 'POST' && path === '/v1/payment_methods') {
        const token = form.get('card[token]') ?? ''
        const known = tokens[token]
        if (form.get('type') !== 'card' || !known)
          return error(400, 'invalid_request_error', `No such token: '${token}'`, 'resource_missing')
        const id = `pm_${crypto.randomBytes(7).toString('hex')}`
        methods.set(id, {
          id,
          object: 'payment_method',
          type: 'card',
          created: Math.floor(Date.now() / 1000),
          customer: null,
          card: { ...known, exp_month: 12, exp_year: 2034 },
          seq: ++seq
        })
        ;(methods.get(id) as any).token = token // `any`: the fake remembers the test token behind a method
        return send(200, cardJson(methods.get(id)!))
      }
      if (method === 'POST' && (match = /^\/v1\/payment_methods\/([^/]+)\/(attach|detach)$/.exec(path))) {
        const pm = methods.get(match[1])
        if (!pm)
          return error(
            404,
            'invalid_request_error',
            `No such PaymentMethod: '${match[1]}'`,
            'resource_missing'
          )
        if (match[2] === 'attach') {
          const token = (pm as any).token // `any`: see above
          if (token === 'tok_chargeDeclined')
            return error(402, 'card_error', 'Your card was declined.', 'card_declined')
          if (token === 'tok_expired')
            return error(402, 'card_error', 'Your card has expired.', 'expired_card')
          const customer = customerOf(form.get('customer') ?? '')
          if (!customer)
            return error(
              404,
              'invalid_request_error',
              `No such customer: '${form.get('customer')}'`,
              'resource_missing'
            )
          pm.customer = customer.id
          pm.seq = ++seq
          return send(200, cardJson(pm))
        }
        if (!pm.customer)
          return error(400, 'invalid_request_error', 'The payment method is not attached to a customer')
        // Detaching the default payment method clears the customer's default, as Stripe does.
        const owner = customers.get(pm.customer)
        if (owner?.default === pm.id) owner.default = null
        pm.customer = null
        return send(200, cardJson(pm))
      }
      if (method === 'POST' && path === '/v1/checkout/sessions') {
        const amount = Number(form.get('line_items[0][price_data][unit_amount]'))
        const currency = form.get('line_items[0][price_data][currency]') ?? ''
        if (!form.get('mode')) return error(400, 'invalid_request_error', 'Missing required param: mode.')
        if (!Number.isInteger(amount) || amount < 0 || !currency)
          return error(400, 'invalid_request_error', 'Invalid line_items[0][price_data]')
        if (!form.get('success_url'))
          return error(400, 'invalid_request_error', 'Missing required param: success_url.')
        const id = `cs_test_${crypto.randomBytes(12).toString('hex')}`
        const metadata: Record<string, string> = {}
        for (const [key, value] of form) {
          const found = /^metadata\[(.+)\]$/.exec(key)
          if (found) metadata[found[1]] = value
        }
        const session: FakeCheckoutSession = {
          id,
          object: 'checkout.session',
          mode: form.get('mode')!,
          url: `${state.url}/c/pay/${id}`,
          status: 'open',
          payment_status: 'unpaid',
          client_reference_id: form.get('client_reference_id'),
          metadata,
          amount_total: amount,
          currency,
          success_url: form.get('success_url')!,
          cancel_url: form.get('cancel_url') ?? '',
          expires_at: Number(form.get('expires_at') ?? Math.floor(Date.now() / 1000) + 86400)
        }
        checkoutSessions.set(id, session)
        return send(200, session)
      }
      if (method === 'GET' && (match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
        const session = checkoutSessions.get(match[1])
        if (!session)
          return error(
            404,
            'invalid_request_error',
            `No such checkout.session: '${match[1]}'`,
            'resource_missing'
          )
        return send(200, session)
      }
      if (method === 'POST' && path === '/v1/payment_intents') {
        const customer = customerOf(form.get('customer') ?? '')
        const pm = methods.get(form.get('payment_method') ?? '')
        if (!customer)
          return error(
            400,
            'invalid_request_error',
            `No such customer: '${form.get('customer')}'`,
            'resource_missing'
          )
        if (!pm || pm.customer !== customer.id)
          return error(
            400,
            'invalid_request_error',
            `No such PaymentMethod: '${form.get('payment_method')}'`,
            'resource_missing'
          )
        const id = `pi_${crypto.randomBytes(7).toString('hex')}`
        const amount = Number(form.get('amount'))
        const currency = form.get('currency') ?? ''
        if ((pm as any).token === 'tok_chargeCustomerFail') {
          // `any`: the fake remembers the test token behind a method
          paymentIntents.push({
            id,
            amount,
            currency,
            customer: customer.id,
            status: 'requires_payment_method'
          })
          return error(402, 'card_error', 'Your card was declined.', 'card_declined')
        }
        paymentIntents.push({ id, amount, currency, customer: customer.id, status: 'succeeded' })
        return send(200, {
          id,
          object: 'payment_intent',
          amount,
          currency,
          customer: customer.id,
          payment_method: pm.id,
          status: 'succeeded'
        })
      }
      return error(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path})`)
    })
  })
  const listening = await listenOnLoopback(server)
  state.url = listening.url
  state.port = listening.port
  state.close = listening.close
  return state
}
