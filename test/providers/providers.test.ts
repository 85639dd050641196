import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { createMessenger } from '../../src/providers/messaging'
import {
  deliverWebhook,
  generateWebhookSecret,
  isPrivateAddress,
  signWebhook
} from '../../src/providers/webhook-http'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp'
import { startSmsReceiver, type TestSmsReceiver } from '../helpers/sms'
import { startWebhookReceiver, type TestWebhookReceiver } from '../helpers/webhook-receiver'
import { startOAuthServer, type TestOAuthServer } from '../helpers/oauth-server'

// A loopback port nothing listens on (bound, then released).
const closedPort = async (): Promise<number> => {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('providers', () => {
  describe('messaging', () => {
    let smtp: TestSmtpServer
    let sms: TestSmsReceiver

    beforeEach(async () => {
      smtp = await startSmtpServer()
      sms = await startSmsReceiver()
    })
    afterEach(async () => {
      await smtp.close()
      await sms.close()
    })

    it('sends an email through the SMTP server without TLS', async () => {
      const lines: string[] = []
      const messenger = createMessenger({ smtpUrl: smtp.url, mailFrom: 'clinic@example.test' }, (line) =>
        lines.push(line)
      )
      await messenger.send({
        to: { email: 'pat@example.test' },
        subject: 'Your sign-in code: 123456',
        text: 'Hello,\ncode: 123456\n'
      })

      const mail = await smtp.waitFor((m) => m.to === 'pat@example.test')
      assert.equal(mail.from, 'clinic@example.test')
      assert.match(mail.subject, /code: 123456/)
      assert.match(mail.text, /^code: 123456$/m)
      assert.deepEqual(lines, [])
    })

    it('rejects with a clear error when the SMTP server cannot be reached', async () => {
      const messenger = createMessenger(
        { smtpUrl: `smtp://127.0.0.1:${await closedPort()}`, timeoutMs: 2000 },
        () => undefined
      )
      await assert.rejects(
        messenger.send({ to: { email: 'pat@example.test' }, subject: 's', text: 't' }),
        /^Error: Email delivery failed: .*ECONNREFUSED/
      )
    })

    it('sends an SMS as a JSON POST of { to, text } to the SMS webhook', async () => {
      const messenger = createMessenger({ smtpUrl: smtp.url, smsWebhookUrl: sms.url }, () => undefined)
      await messenger.send({ to: { mobileNo: '+15550001111' }, subject: 'Sign-in', text: 'code: 123456' })

      assert.deepEqual(
        sms.messages.map(({ to, text }) => ({ to, text })),
        [{ to: '+15550001111', text: 'code: 123456' }]
      )
      assert.equal(smtp.messages.length, 0)
    })

    it('rejects with a clear error when the SMS webhook answers an error status', async () => {
      sms.respondWith(() => 500)
      const messenger = createMessenger({ smsWebhookUrl: sms.url }, () => undefined)
      await assert.rejects(
        messenger.send({ to: { mobileNo: '+15550001111' }, subject: 's', text: 't' }),
        /SMS delivery failed: gateway answered HTTP 500/
      )
    })

    it('rejects when the SMS webhook does not answer within the timeout', async () => {
      sms.respondWith(() => 'hang')
      const messenger = createMessenger({ smsWebhookUrl: sms.url, timeoutMs: 300 }, () => undefined)
      await assert.rejects(
        messenger.send({ to: { mobileNo: '+15550001111' }, subject: 's', text: 't' }),
        /SMS delivery failed: timed out/
      )
    })

    it('writes the message to the log when no transport applies', async () => {
      const lines: string[] = []
      const messenger = createMessenger({ smsWebhookUrl: sms.url }, (line) => lines.push(line))
      await messenger.send({ to: { email: 'pat@example.test' }, subject: 'Sign-in', text: 'code: 123456' })

      assert.equal(lines.length, 1)
      assert.match(lines[0], /pat@example\.test/)
      assert.match(lines[0], /Sign-in/)
      assert.match(lines[0], /code: 123456/)
      assert.equal(sms.messages.length, 0)
    })
  })

  describe('webhook delivery', () => {
    let receiver: TestWebhookReceiver
    const secret = generateWebhookSecret()
    const body = JSON.stringify({ type: 'patients.created', data: { id: 'p1', name: 'Zoë' } })

    beforeEach(async () => {
      receiver = await startWebhookReceiver({ secret })
    })
    afterEach(async () => {
      await receiver.close()
    })

    it('generates whsec_ secrets carrying 32 random bytes', () => {
      const other = generateWebhookSecret()
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/)
      assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32)
      assert.notEqual(other, secret)
    })

    it('signs like the Standard Webhooks reference implementation', () => {
      const timestamp = Math.floor(Date.now() / 1000)
      const signature = signWebhook(secret, 'msg_1', timestamp, body)
      assert.equal(signature, new Webhook(secret).sign('msg_1', new Date(timestamp * 1000), body))
    })

    it('POSTs the body with headers that standardwebhooks Webhook.verify accepts', async () => {
      const result = await deliverWebhook({
        url: receiver.url,
        secret,
        id: 'msg_1',
        body,
        timeoutMs: 2000,
        allowPrivate: true
      })

      assert.equal(result.ok, true)
      assert.equal(result.status, 200)
      assert.equal(typeof result.durationMs, 'number')
      assert.equal(receiver.received.length, 1)
      const [hook] = receiver.received
      assert.equal(hook.raw, body)
      assert.equal(hook.headers['content-type'], 'application/json')
      assert.equal(hook.headers['webhook-id'], 'msg_1')
      assert.deepEqual(
        new Webhook(secret).verify(hook.raw, {
          'webhook-id': String(hook.headers['webhook-id']),
          'webhook-timestamp': String(hook.headers['webhook-timestamp']),
          'webhook-signature': String(hook.headers['webhook-signature'])
        }),
        JSON.parse(body)
      )
      assert.equal(hook.verified, true)
    })

    it('reports a 500 answer as a failure with its status', async () => {
      receiver.respondWith(() => 500)
      const result = await deliverWebhook({
        url: receiver.url,
        secret,
        id: 'msg_2',
        body,
        timeoutMs: 2000,
        allowPrivate: true
      })
      assert.equal(result.ok, false)
      assert.equal(result.status, 500)
      assert.match(result.error ?? '', /500/)
    })

    it('gives up on a receiver that never answers once the timeout passes', async () => {
      receiver.respondWith(() => 'hang')
      const result = await deliverWebhook({
        url: receiver.url,
        secret,
        id: 'msg_3',
        body,
        timeoutMs: 300,
        allowPrivate: true
      })
      assert.equal(result.ok, false)
      assert.equal(result.status, undefined)
      assert.match(result.error ?? '', /timed out/)
      assert.ok(result.durationMs >= 250 && result.durationMs < 2000, `durationMs ${result.durationMs}`)
      assert.equal(receiver.received.length, 1)
    })

    it('treats a redirect as a failure and does not follow it', async () => {
      const redirector = http.createServer((_req, res) =>
        res.writeHead(307, { location: receiver.url }).end()
      )
      await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve))
      try {
        const { port } = redirector.address() as AddressInfo
        const result = await deliverWebhook({
          url: `http://127.0.0.1:${port}/hooks`,
          secret,
          id: 'msg_4',
          body,
          timeoutMs: 2000,
          allowPrivate: true
        })
        assert.equal(result.ok, false)
        assert.equal(result.status, 307)
        assert.match(result.error ?? '', /redirect/)
        assert.equal(receiver.received.length, 0)
      } finally {
        redirector.closeAllConnections()
        await new Promise<void>((resolve) => redirector.close(() => resolve()))
      }
    })

    it('reports a refused connection as a failure', async () => {
      const result = await deliverWebhook({
        url: `http://127.0.0.1:${await closedPort()}/`,
        secret,
        id: 'msg_5',
        body,
        timeoutMs: 2000,
        allowPrivate: true
      })
      assert.equal(result.ok, false)
      assert.match(result.error ?? '', /refused/)
    })

    it('refuses a loopback URL unless private addresses are allowed', async () => {
      const literal = await deliverWebhook({
        url: receiver.url,
        secret,
        id: 'msg_6',
        body,
        timeoutMs: 2000,
        allowPrivate: false
      })
      assert.equal(literal.ok, false)
      assert.equal(literal.error, 'address is private: 127.0.0.1')

      const named = await deliverWebhook({
        url: receiver.url.replace('127.0.0.1', 'localhost'),
        secret,
        id: 'msg_7',
        body,
        timeoutMs: 2000,
        allowPrivate: false
      })
      assert.equal(named.ok, false)
      assert.match(named.error ?? '', /private/)
      assert.equal(receiver.received.length, 0)
    })

    it('refuses URLs that are not http or https', async () => {
      const result = await deliverWebhook({
        url: 'ftp://example.com/hook',
        secret,
        id: 'msg_8',
        body,
        timeoutMs: 2000,
        allowPrivate: true
      })
      assert.equal(result.ok, false)
      assert.match(result.error ?? '', /scheme/)
    })
  })

  describe('isPrivateAddress', () => {
    const privateHosts = [
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '0.0.0.0',
      '::',
      '100.64.0.1',
      '100.127.255.255',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      'localhost'
    ]
    const publicHosts = [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '172.15.255.255',
      '100.128.0.1',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8'
    ]

    for (const host of privateHosts) {
      it(`treats ${host} as private`, async () => {
        assert.equal(await isPrivateAddress(host), true)
      })
    }
    for (const host of publicHosts) {
      it(`treats ${host} as public`, async () => {
        assert.equal(await isPrivateAddress(host), false)
      })
    }
  })

  describe('OAuth test server', () => {
    let oauth: TestOAuthServer
    const redirectUri = 'http://127.0.0.1/oauth/test/callback'

    beforeEach(async () => {
      oauth = await startOAuthServer()
    })
    afterEach(async () => {
      await oauth.close()
    })

    // Exchanges a code at the token endpoint the way an OAuth client does (form-encoded).
    const exchange = (code: string, redirect = redirectUri): Promise<Response> =>
      fetch(oauth.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: 'app',
          client_secret: 's3cret',
          code,
          redirect_uri: redirect,
          grant_type: 'authorization_code'
        })
      })

    it('exchanges an issued code once for a token that reads the profile', async () => {
      const code = oauth.issueCode({ id: 'u1', email: 'pat@example.test', name: 'Pat' }, { redirectUri })
      const tokenResponse = await exchange(code)
      assert.equal(tokenResponse.status, 200)
      const token = (await tokenResponse.json()) as {
        access_token: string
        token_type: string
        expires_in: number
      }
      assert.equal(token.token_type, 'Bearer')
      assert.equal(typeof token.expires_in, 'number')

      const profile = await fetch(oauth.profileUrl, {
        headers: { authorization: `Bearer ${token.access_token}` }
      })
      assert.equal(profile.status, 200)
      assert.deepEqual(await profile.json(), { id: 'u1', email: 'pat@example.test', name: 'Pat' })

      const again = await exchange(code)
      assert.equal(again.status, 400)
      assert.deepEqual(await again.json(), { error: 'invalid_grant' })
    })

    it('rejects a code presented with another redirect_uri, and unknown codes and tokens', async () => {
      const code = oauth.issueCode({ id: 'u2' }, { redirectUri })
      assert.equal((await exchange(code, 'http://evil.test/cb')).status, 400)
      assert.equal((await exchange('nope')).status, 400)
      assert.equal((await fetch(oauth.profileUrl, { headers: { authorization: 'Bearer nope' } })).status, 401)
    })

    it('omits an undefined email from the profile, accepts JSON token requests, and answers 503 while down', async () => {
      const code = oauth.issueCode({ id: 'u3', name: 'No Mail' })
      const tokenResponse = await fetch(oauth.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_id: 'app',
          client_secret: 's3cret',
          code,
          redirect_uri: redirectUri,
          grant_type: 'authorization_code'
        })
      })
      const { access_token: accessToken } = (await tokenResponse.json()) as { access_token: string }
      const profile = await fetch(oauth.profileUrl, { headers: { authorization: `Bearer ${accessToken}` } })
      assert.deepEqual(await profile.json(), { id: 'u3', name: 'No Mail' })

      oauth.setDown(true)
      assert.equal(
        (await fetch(oauth.profileUrl, { headers: { authorization: `Bearer ${accessToken}` } })).status,
        503
      )
      assert.equal((await exchange(oauth.issueCode({ id: 'u4' }))).status, 503)
    })
  })
})
