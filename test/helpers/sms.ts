// An SMS gateway stand-in on loopback for tests: records every `POST { to, text }` (JSON).
import http from 'node:http'
import { listenOnLoopback } from './loopback'

export interface ReceivedSms {
  to: string
  text: string
  /** The `idempotencyKey` of the JSON body, when the sender gave one. */
  idempotencyKey?: string
  at: number
}

/** Status for the n-th POST (1-based), or 'hang' to never answer it */
export type SmsResponder = (n: number) => number | 'hang'

export interface TestSmsReceiver {
  url: string
  messages: ReceivedSms[]
  respondWith(fn: SmsResponder): void
  waitFor(predicate?: (sms: ReceivedSms) => boolean, timeoutMs?: number): Promise<ReceivedSms>
  waitForCount(n: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

// Starts the SMS receiver on 127.0.0.1 (random port) answering 200 unless respondWith says otherwise.
export async function startSmsReceiver(): Promise<TestSmsReceiver> {
  const messages: ReceivedSms[] = []
  const waiters = new Set<() => void>()
  let responder: SmsResponder = () => 200

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('error', () => undefined)
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end()
        return
      }
      let parsed: { to?: unknown; text?: unknown; idempotencyKey?: unknown } = {}
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) ?? {}
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'body must be JSON' }))
        return
      }
      messages.push({
        to: String(parsed.to ?? ''),
        text: String(parsed.text ?? ''),
        ...(typeof parsed.idempotencyKey === 'string' ? { idempotencyKey: parsed.idempotencyKey } : {}),
        at: Date.now()
      })
      for (const check of waiters) check()
      const answer = responder(messages.length)
      if (answer === 'hang') return
      res.writeHead(answer, { 'content-type': 'application/json' }).end(JSON.stringify({ queued: true }))
    })
  })
  const listening = await listenOnLoopback(server)
  const { port } = listening

  // Resolves once `done()` holds, re-checked after every received SMS.
  const waitUntil = <T>(done: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> => {
    const now = done()
    if (now !== undefined) return Promise.resolve(now)
    return new Promise<T>((resolve, reject) => {
      const check = (): void => {
        const value = done()
        if (value === undefined) return
        waiters.delete(check)
        clearTimeout(timer)
        resolve(value)
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(describe()))
      }, timeoutMs)
      waiters.add(check)
    })
  }

  return {
    url: `http://127.0.0.1:${port}/sms`,
    messages,
    respondWith(fn) {
      responder = fn
    },
    waitFor(predicate = () => true, timeoutMs = 5000) {
      return waitUntil(
        () => messages.find(predicate),
        timeoutMs,
        () => `No matching SMS within ${timeoutMs} ms (received ${messages.length})`
      )
    },
    async waitForCount(n, timeoutMs = 5000) {
      await waitUntil(
        () => (messages.length >= n ? true : undefined),
        timeoutMs,
        () => `Expected ${n} SMS within ${timeoutMs} ms, received ${messages.length}`
      )
    },
    close: () => listening.close()
  }
}
