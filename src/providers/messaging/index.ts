// Outgoing messages (one-time codes, notices) behind one small interface: email over SMTP
// (nodemailer), SMS over an HTTP webhook, and the log when neither is configured.
// This is the only file that imports nodemailer.
import { createTransport } from 'nodemailer'

export interface Message {
  to: { email?: string; mobileNo?: string }
  subject: string
  text: string
  /** The sender's display name (email); the address stays the configured `mailFrom`. */
  fromName?: string
  /** Where replies go (email). */
  replyTo?: string
  /** A stable `Message-ID` (email, `<id@host>`): a message sent again after a crash carries the same one, so the
   *  receiving side can drop the copy. */
  messageId?: string
  /** A stable idempotency key (SMS: sent as `idempotencyKey` in the JSON body, and as the `Idempotency-Key` header),
   *  for the same reason. */
  idempotencyKey?: string
  /** Extra email headers (e.g. `List-Unsubscribe`, `List-Unsubscribe-Post`), sent as given. */
  headers?: Record<string, string>
}

export interface Messenger {
  send(message: Message): Promise<void>
  /** Whether a transport is configured for the channel (otherwise a message for it only goes to the log). */
  configured(channel: 'email' | 'sms'): boolean
}

export interface MessengerConfig {
  /** e.g. `smtp://user:pass@mail.example.com:587`; email is sent only when set */
  smtpUrl?: string
  /** From address of outgoing email */
  mailFrom?: string
  /** URL receiving `POST { to, text }` (JSON) for each SMS; SMS is sent only when set */
  smsWebhookUrl?: string
  /** Upper bound for one SMTP connection step or one SMS webhook call (default 10 s) */
  timeoutMs?: number
}

const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_FROM = 'no-reply@localhost'

/** The bare address of a From setting (`Clinic <no-reply@clinic.example>` → `no-reply@clinic.example`). */
const addressOf = (from: string) => /<([^>]+)>/.exec(from)?.[1] ?? from

// Reads an unknown thrown value as a short human-readable reason.
const reasonOf = (error: unknown): string => {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out'
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' && !error.message.includes(code)
      ? `${error.message} (${code})`
      : error.message
  }
  return String(error)
}

// Builds the messenger chosen from config: email via SMTP, SMS via an HTTP webhook, otherwise the log.
// send() delivers on every channel that applies (both when the message has an email and a mobileNo and
// both are configured) and throws an Error naming the failed channel(s) when a transport fails.
export function createMessenger(config: MessengerConfig, log: (line: string) => void): Messenger {
  const timeoutMs = config.timeoutMs && config.timeoutMs > 0 ? config.timeoutMs : DEFAULT_TIMEOUT_MS
  const from = config.mailFrom || DEFAULT_FROM
  const mailer = config.smtpUrl
    ? createTransport({
        url: config.smtpUrl,
        // A few connections kept open and reused (each one's SMTP greeting and EHLO once, not per message): the
        // delivery worker sends 8 at a time. An idle one closes at the socket timeout.
        pool: true,
        maxConnections: 8,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs
      })
    : undefined
  const smsWebhookUrl = config.smsWebhookUrl

  const sendEmail = async (email: string, message: Message): Promise<void> => {
    if (!mailer) return
    try {
      await mailer.sendMail({
        from: message.fromName ? { name: message.fromName, address: addressOf(from) } : from,
        to: email,
        subject: message.subject,
        text: message.text,
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
        ...(message.messageId ? { messageId: message.messageId } : {}),
        ...(message.headers
          ? {
              // (prepared: sent as given, never re-encoded or folded, so a long unsubscribe URL stays intact)
              headers: Object.fromEntries(
                Object.entries(message.headers).map(([key, value]) => [key, { prepared: true, value }])
              )
            }
          : {})
      })
    } catch (error) {
      throw new Error(`Email delivery failed: ${reasonOf(error)}`)
    }
  }

  const sendSms = async (mobileNo: string, message: Message): Promise<void> => {
    if (!smsWebhookUrl) return
    let response: Response
    try {
      response = await fetch(smsWebhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(message.idempotencyKey ? { 'idempotency-key': message.idempotencyKey } : {})
        },
        body: JSON.stringify({
          to: mobileNo,
          text: message.text,
          ...(message.idempotencyKey ? { idempotencyKey: message.idempotencyKey } : {})
        }),
        signal: AbortSignal.timeout(timeoutMs)
      })
    } catch (error) {
      throw new Error(`SMS delivery failed: ${reasonOf(error)}`)
    }
    // Drain the body so the connection is released; its content does not matter.
    await response.arrayBuffer().catch(() => undefined)
    if (!response.ok) throw new Error(`SMS delivery failed: gateway answered HTTP ${response.status}`)
  }

  return {
    configured: (channel) => (channel === 'email' ? !!mailer : !!smsWebhookUrl),
    async send(message: Message): Promise<void> {
      const { email, mobileNo } = message.to
      const deliveries: Promise<void>[] = []
      if (mailer && email) deliveries.push(sendEmail(email, message))
      if (smsWebhookUrl && mobileNo) deliveries.push(sendSms(mobileNo, message))

      if (deliveries.length === 0) {
        log(
          `message not sent (no transport configured for this recipient): ${JSON.stringify({ to: message.to, subject: message.subject, text: message.text })}`
        )
        return
      }

      const failures = (await Promise.allSettled(deliveries))
        .filter((result): result is PromiseRejectedResult => result.status === 'rejected')
        .map((result) => reasonOf(result.reason))
      if (failures.length > 0) throw new Error(failures.join('; '))
    }
  }
}
