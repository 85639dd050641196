// PayPal Orders v2 over its REST API (no SDK): an OAuth client-credentials token, then create order →
// the payer approves at the `payer-action` (or `approve`) link, which is checkout.approvalURL → capture.
// Methods: `paypal` (PayPal account) and `card` (PayPal's guest card checkout on the same page). PayPal's
// order states map onto ours: CREATED / SAVED / PAYER_ACTION_REQUIRED → created, APPROVED → approved,
// COMPLETED → captured, VOIDED → cancelled; a capture refused with 422 (e.g. INSTRUMENT_DECLINED) or a capture
// whose status is DECLINED → failed. PAYPAL_BASE_URL points it at the sandbox, live, or a compatible server.
// The client secret and access tokens go to PayPal only; failures are reduced to their HTTP status.
import { GatewayUnavailable, type IntentStatus, type PaymentGateway } from './types'

export interface PayPalSettings {
  clientId: string
  clientSecret: string
  baseURL: string
  timeoutMs: number
}

/** The fields of PayPal's answers this adapter reads (each optional: an answer is not trusted to have them). */
interface PayPalBody {
  access_token?: unknown
  expires_in?: unknown
  id?: unknown
  status?: string
  name?: string
  links?: { rel?: string; href?: unknown }[]
  details?: { issue?: string }[]
  purchase_units?: { payments?: { captures?: { status?: string }[] } }[]
}

const states: Record<string, IntentStatus> = {
  CREATED: 'created',
  SAVED: 'created',
  PAYER_ACTION_REQUIRED: 'created',
  APPROVED: 'approved',
  COMPLETED: 'captured',
  VOIDED: 'cancelled'
}

export const createPayPalGateway = (settings: PayPalSettings): PaymentGateway => {
  const base = settings.baseURL.replace(/\/+$/, '')
  let token: { value: string; until: number } | null = null

  const send = async (path: string, init: RequestInit) => {
    try {
      return await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(settings.timeoutMs) })
    } catch (error) {
      throw new GatewayUnavailable(
        `paypal ${path.split('/').slice(0, 4).join('/')}: ${error instanceof Error ? error.name : 'request failed'}`
      )
    }
  }

  const accessToken = async () => {
    if (token && token.until > Date.now()) return token.value
    const res = await send('/v1/oauth2/token', {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${settings.clientId}:${settings.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded'
      },
      body: 'grant_type=client_credentials'
    })
    if (!res.ok) throw new GatewayUnavailable(`paypal token: HTTP ${res.status}`)
    const body = (await res.json()) as PayPalBody
    token = {
      value: String(body.access_token),
      until: Date.now() + Math.max(0, Number(body.expires_in ?? 0) - 60) * 1000
    }
    return token.value
  }

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await send(path, {
      method,
      headers: {
        authorization: `Bearer ${await accessToken()}`,
        'content-type': 'application/json',
        ...headers
      },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    const text = await res.text()
    let parsed: PayPalBody = {}
    try {
      parsed = text ? JSON.parse(text) : {}
    } catch {
      parsed = {}
    }
    return { status: res.status, body: parsed }
  }

  return {
    name: 'paypal',
    methods: ['paypal', 'card'],
    async createOrder({ intent, currency, amount, returnURL, cancelURL }) {
      const res = await api(
        'POST',
        '/v2/checkout/orders',
        {
          intent: 'CAPTURE',
          purchase_units: [
            { reference_id: intent, custom_id: intent, amount: { currency_code: currency, value: amount } }
          ],
          payment_source: {
            paypal: {
              experience_context: { return_url: returnURL, cancel_url: cancelURL, user_action: 'PAY_NOW' }
            }
          }
        },
        { 'PayPal-Request-Id': `create-${intent}` }
      )
      if (res.status !== 200 && res.status !== 201)
        throw new GatewayUnavailable(`paypal create order: HTTP ${res.status}`)
      const link = (res.body.links ?? []).find((l) => l.rel === 'payer-action' || l.rel === 'approve')
      if (!res.body.id || !link?.href) throw new GatewayUnavailable('paypal create order: no approval link')
      return { orderId: String(res.body.id), approvalURL: String(link.href) }
    },
    async orderStatus(orderId) {
      const res = await api('GET', `/v2/checkout/orders/${encodeURIComponent(orderId)}`)
      if (res.status !== 200) throw new GatewayUnavailable(`paypal order: HTTP ${res.status}`)
      return states[res.body.status ?? ''] ?? null
    },
    async capture(orderId) {
      // PayPal-Request-Id makes PayPal answer a repeated capture with the first result.
      const res = await api(
        'POST',
        `/v2/checkout/orders/${encodeURIComponent(orderId)}/capture`,
        {},
        { 'PayPal-Request-Id': `capture-${orderId}` }
      )
      if (res.status === 422)
        return {
          status: 'failed',
          reason: `PayPal refused the capture: ${res.body.details?.[0]?.issue ?? res.body.name ?? 'UNPROCESSABLE_ENTITY'}`
        }
      if (res.status !== 200 && res.status !== 201)
        throw new GatewayUnavailable(`paypal capture: HTTP ${res.status}`)
      const capture = res.body.purchase_units?.[0]?.payments?.captures?.[0]
      if (
        res.body.status === 'COMPLETED' &&
        (!capture || capture.status === 'COMPLETED' || capture.status === 'PENDING')
      )
        return { status: 'captured' }
      return { status: 'failed', reason: `PayPal capture status ${capture?.status ?? res.body.status}` }
    }
  }
}
