// An app wired to real local counterparts for the authentication flows: one loopback OAuth 2 server per
// provider (each with its own client id and secret), an SMTP server and an SMS receiver.
import assert from 'node:assert/strict'
import { authenticator } from 'otplib'
import { startServer, http, type TestServer } from './app'
import { startOAuthServer, type TestOAuthServer } from './oauth-server'
import { startSmtpServer, type TestSmtpServer } from './smtp'
import { startSmsReceiver, type TestSmsReceiver } from './sms'
import type { ConfigurationOverrides } from '../../src/configuration'

export interface AuthTestbed {
  server: TestServer
  url: string
  google: TestOAuthServer
  facebook: TestOAuthServer
  smtp: TestSmtpServer
  sms: TestSmsReceiver
  close(): Promise<void>
}

export const GOOGLE_REDIRECT = 'https://app.example.test/auth/google'
export const FACEBOOK_REDIRECT = 'https://app.example.test/auth/facebook/'

/** Starts the counterparts and the app; `overrides` are app config keys (partial settings are merged with the defaults). */
export const startAuthTestbed = async (overrides: ConfigurationOverrides = {}): Promise<AuthTestbed> => {
  const [google, facebook, smtp, sms] = await Promise.all([
    startOAuthServer({ clientId: 'google-client', clientSecret: 'google-secret' }),
    startOAuthServer({ clientId: 'facebook-client', clientSecret: 'facebook-secret' }),
    startSmtpServer(),
    startSmsReceiver()
  ])
  const server = await startServer({
    oauth: {
      google: {
        clientId: 'google-client',
        clientSecret: 'google-secret',
        tokenURL: google.tokenUrl,
        profileURL: google.profileUrl,
        timeoutMs: 2000
      },
      facebook: {
        clientId: 'facebook-client',
        clientSecret: 'facebook-secret',
        tokenURL: facebook.tokenUrl,
        profileURL: facebook.profileUrl,
        timeoutMs: 2000
      }
    },
    messaging: { smtpUrl: smtp.url, mailFrom: 'clinic@example.test', smsWebhookUrl: sms.url },
    ...overrides
  })
  return {
    server,
    url: server.url,
    google,
    facebook,
    smtp,
    sms,
    async close() {
      await server.close()
      await Promise.all([google.close(), facebook.close(), smtp.close(), sms.close()])
    }
  }
}

/** POST /authentication as a client does. */
export const auth = (url: string, body: unknown, token?: string) =>
  http(url, 'POST', '/authentication', { body, token })

/** The code in the first mail to `to` with `subject` among the mails received after the first `after` ones. */
export const mailedCode = async (smtp: TestSmtpServer, to: string, subject: string, after: number) => {
  const mail = await smtp.waitFor(
    (m) => smtp.messages.indexOf(m) >= after && m.to === to && m.subject === subject
  )
  assert.equal(mail.text.split('\n')[0], subject, 'the first line names the purpose')
  const match = /^code: (\S+)$/m.exec(mail.text)
  assert.ok(match, `the mail carries "code: <code>": ${mail.text}`)
  return match[1]
}

/**
 * A TOTP for an authenticator secret: the current one, or with `stepOffset` the one of an adjacent 30 s step
 * (the server accepts one step either side; each step signs in only once).
 */
export const totp = (secret: string, stepOffset = 0) =>
  (stepOffset ? authenticator.clone({ epoch: Date.now() + stepOffset * 30000 }) : authenticator).generate(
    secret
  )

const hidden = [
  'password',
  'mfaSecret',
  'mfaPending',
  'googleId',
  'facebookId',
  'oauth',
  'secretHash',
  'passwordHash',
  'sessionVersion',
  'mfaLastStep'
]

/** Fails when a value (response body or event) carries a hidden field or one of the given secret strings anywhere. */
export const assertNoSecrets = (value: unknown, secrets: string[] = []) => {
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${path}[${i}]`))
    else if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        assert.ok(!hidden.includes(key), `hidden field ${path}.${key} was sent`)
        walk(child, `${path}.${key}`)
      }
    }
  }
  walk(value, '')
  const text = JSON.stringify(value) ?? ''
  for (const secret of secrets)
    assert.ok(!text.includes(secret), `a secret value was sent: ${secret.slice(0, 4)}…`)
}
