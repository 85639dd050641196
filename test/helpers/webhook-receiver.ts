// A webhook receiver on loopback for tests: records every POST and answers with a status chosen by the test.
import http from 'node:http'
import { listenOnLoopback } from './loopback'
import { Webhook } from 'standardwebhooks'

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders
  /** The body parsed as JSON (undefined if it is not JSON) */
  body: any
  raw: string
  at: number
  /** Whether the Standard Webhooks signature checked out; undefined while no secret is set */
  verified?: boolean
}

/** Status for the n-th POST (1-based), 'hang' to never answer it, or a status sent after a delay */
export type WebhookResponder = (n: number) => number | 'hang' | { status: number; afterMs: number }

export interface TestWebhookReceiver {
  url: string
  received: ReceivedWebhook[]
  respondWith(fn: WebhookResponder): void
  /** Sets (or replaces) the secret used to check signatures of later POSTs */
  setSecret(secret: string | undefined): void
  waitForCount(n: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

// Checks a Standard Webhooks signature with the reference implementation.
const verifySignature = (secret: string, raw: string, headers: http.IncomingHttpHeaders): boolean => {
  try {
    new Webhook(secret).verify(
      raw,
      {
        'webhook-id': String(headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(headers['webhook-signature'] ?? '')
      },
      { jsonParse: false }
    )
    return true
  } catch {
    return false
  }
}

// Starts a receiver on 127.0.0.1 (random port) answering 200 unless respondWith says otherwise.
export async function startWebhookReceiver(opts: { secret?: string } = {}): Promise<TestWebhookReceiver> {
  const received: ReceivedWebhook[] = []
  const countWaiters = new Set<() => void>()
  let responder: WebhookResponder = () => 200
  let secret = opts.secret

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('error', () => undefined)
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end()
        return
      }
      const raw = Buffer.concat(chunks).toString('utf8')
      let body: any
      try {
        body = JSON.parse(raw)
      } catch {
        body = undefined
      }
      const entry: ReceivedWebhook = { headers: req.headers, body, raw, at: Date.now() }
      if (secret) entry.verified = verifySignature(secret, raw, req.headers)
      received.push(entry)
      for (const check of countWaiters) check()
      const answer = responder(received.length)
      if (answer === 'hang') return
      const send = (status: number) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true }))
      if (typeof answer === 'number') send(answer)
      else setTimeout(() => send(answer.status), answer.afterMs)
    })
  })
  const listening = await listenOnLoopback(server)
  const { port } = listening

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    respondWith(fn) {
      responder = fn
    },
    setSecret(value) {
      secret = value
    },
    waitForCount(n, timeoutMs = 5000) {
      if (received.length >= n) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (received.length < n) return
          countWaiters.delete(check)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          countWaiters.delete(check)
          reject(new Error(`Expected ${n} webhook(s) within ${timeoutMs} ms, received ${received.length}`))
        }, timeoutMs)
        countWaiters.add(check)
      })
    },
    close: () => listening.close()
  }
}
