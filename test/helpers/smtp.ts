// A real SMTP server on loopback for tests: accepts any mail without auth or TLS and keeps it parsed.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { simpleParser } from 'mailparser'

export interface ReceivedMail {
  /** Envelope recipients (RCPT TO), comma-separated bare addresses */
  to: string
  /** Envelope sender (MAIL FROM) */
  from: string
  subject: string
  text: string
  /** Every header as received, by lower-case name (folded lines unfolded; the last of repeated names). */
  headers: Record<string, string>
  at: number
}

/** Raw header lines (`Name: value`, possibly folded) → value by lower-case name. */
const headersOf = (lines: readonly { key: string; line: string }[]) =>
  Object.fromEntries(
    lines.map(({ key, line }) => [
      key.toLowerCase(),
      line
        .slice(line.indexOf(':') + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim()
    ])
  )

export interface TestSmtpServer {
  /** Connection URL for nodemailer, e.g. `smtp://127.0.0.1:2525?ignoreTLS=true` (plain SMTP, no TLS) */
  url: string
  port: number
  messages: ReceivedMail[]
  waitFor(predicate?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

// Starts an SMTP server on 127.0.0.1 (random port) that accepts every message and records it.
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = []
  const waiters = new Set<{
    predicate: (mail: ReceivedMail) => boolean
    resolve: (mail: ReceivedMail) => void
  }>()

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    hideSTARTTLS: true,
    logger: false,
    closeTimeout: 500,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const mail: ReceivedMail = {
            to: session.envelope.rcptTo.map((address) => address.address).join(', '),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            headers: headersOf(parsed.headerLines ?? []),
            at: Date.now()
          }
          messages.push(mail)
          for (const waiter of waiters) {
            if (waiter.predicate(mail)) {
              waiters.delete(waiter)
              waiter.resolve(mail)
            }
          }
          callback()
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)))
      )
    }
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  server.on('error', () => undefined)
  const { port } = server.server.address() as AddressInfo

  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    port,
    messages,
    waitFor(predicate = () => true, timeoutMs = 5000) {
      const found = messages.find(predicate)
      if (found) return Promise.resolve(found)
      return new Promise<ReceivedMail>((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (mail: ReceivedMail) => {
            clearTimeout(timer)
            resolve(mail)
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`No matching email within ${timeoutMs} ms (received ${messages.length})`))
        }, timeoutMs)
        waiters.add(waiter)
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
