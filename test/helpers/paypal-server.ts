// A local stand-in for the PayPal Orders v2 endpoints the PayPal gateway calls: the client-credentials token,
// create order (answering a payer-action link to its own approval page), get order and capture. Orders are
// approved with approve(id) (what the payer does on PayPal's page); declineCaptures makes captures answer 422
// INSTRUMENT_DECLINED, failCaptures makes them answer 500; mode 'fail' answers 500 to everything. It checks the Basic credentials and the Bearer token.
import http from 'node:http'
import crypto from 'node:crypto'
import { listenOnLoopback } from './loopback'

export interface PayPalOrder {
  id: string
  status: string
  amount: { currency_code: string; value: string }
  returnURL: string
  cancelURL: string
  captures: number
}

export interface PayPalServer {
  url: string
  clientId: string
  clientSecret: string
  orders: Map<string, PayPalOrder>
  requests: { method: string; path: string; authorization?: string; requestId?: string }[]
  mode: 'ok' | 'fail'
  declineCaptures: boolean
  /** Captures (only) answer 500. */
  failCaptures: boolean
  approve(id: string): void
  close(): Promise<void>
}

export const startPayPalServer = async (): Promise<PayPalServer> => {
  const clientId = `client-${crypto.randomBytes(4).toString('hex')}`
  const clientSecret = `secret-${crypto.randomBytes(12).toString('hex')}`
  const accessToken = `A21AA${crypto.randomBytes(12).toString('hex')}`
  const orders = new Map<string, PayPalOrder>()
  const state: PayPalServer = {
    url: '',
    clientId,
    clientSecret,
    orders,
    requests: [],
    mode: 'ok',
    declineCaptures: false,
    failCaptures: false,
    approve(id) {
      const order = orders.get(id)
      if (order && order.status === 'PAYER_ACTION_REQUIRED') order.status = 'APPROVED'
    },
    close: async () => undefined
  }
  const server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk) => (raw += chunk))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://paypal.local').pathname
      state.requests.push({
        method: req.method ?? 'GET',
        path,
        authorization: req.headers.authorization,
        requestId: req.headers['paypal-request-id'] as string | undefined
      })
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(body))
      }
      if (state.mode === 'fail')
        return send(500, { name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error has occurred.' })
      if (req.method === 'POST' && path === '/v1/oauth2/token') {
        if (
          req.headers.authorization !==
            `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` ||
          raw !== 'grant_type=client_credentials'
        )
          return send(401, { error: 'invalid_client' })
        return send(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 32400 })
      }
      if (req.headers.authorization !== `Bearer ${accessToken}`)
        return send(401, { name: 'AUTHENTICATION_FAILURE' })
      const orderView = (order: PayPalOrder) => ({
        id: order.id,
        status: order.status,
        purchase_units: [
          {
            amount: order.amount,
            ...(order.status === 'COMPLETED'
              ? {
                  payments: {
                    captures: [{ id: `CAP-${order.id}`, status: 'COMPLETED', amount: order.amount }]
                  }
                }
              : {})
          }
        ],
        links: [
          { href: `${state.url}/v2/checkout/orders/${order.id}`, rel: 'self', method: 'GET' },
          { href: `${state.url}/checkoutnow?token=${order.id}`, rel: 'payer-action', method: 'GET' }
        ]
      })
      let match: RegExpExecArray | null
      if (req.method === 'POST' && path === '/v2/checkout/orders') {
        const body = JSON.parse(raw || '{}')
        const context = body.payment_source?.paypal?.experience_context ?? {}
        const id = crypto.randomBytes(8).toString('hex').toUpperCase()
        orders.set(id, {
          id,
          status: 'PAYER_ACTION_REQUIRED',
          amount: body.purchase_units?.[0]?.amount,
          returnURL: context.return_url,
          cancelURL: context.cancel_url,
          captures: 0
        })
        return send(200, orderView(orders.get(id)!))
      }
      if ((match = /^\/v2\/checkout\/orders\/([A-Z0-9]+)(\/capture)?$/.exec(path))) {
        const order = orders.get(match[1])
        if (!order) return send(404, { name: 'RESOURCE_NOT_FOUND' })
        if (!match[2] && req.method === 'GET') return send(200, orderView(order))
        if (match[2] && req.method === 'POST') {
          if (order.status !== 'APPROVED')
            return send(422, { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_NOT_APPROVED' }] })
          if (state.failCaptures) return send(500, { name: 'INTERNAL_SERVER_ERROR' })
          if (state.declineCaptures)
            return send(422, { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'INSTRUMENT_DECLINED' }] })
          order.status = 'COMPLETED'
          order.captures++
          return send(201, orderView(order))
        }
      }
      return send(404, { name: 'RESOURCE_NOT_FOUND' })
    })
  })
  const listening = await listenOnLoopback(server)
  state.url = listening.url
  state.close = listening.close
  return state
}
