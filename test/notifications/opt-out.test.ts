// Opting out of notifications: the account holder patches `notifications: { email, sms }` (channel by channel, 400
// for anything else); an opted-out channel is logged `skipped` (`opted-out`) whether the choice was made before the
// notification was queued or while it waited; the one-click link of every email (RFC 8058) turns email off without
// signing in — on POST only, never on GET — and a tampered or expired link changes nothing. Action codes (security)
// are sent whatever the account chose.
import assert from 'node:assert/strict'
import { restClient, type SignedUp } from '../helpers/app'
import { setupFacility, type FacilityFixture } from '../helpers/billing'
import { auth, mailedCode } from '../helpers/auth'
import {
  logOf,
  queueFor,
  signUpPatient,
  startDeliveryServer,
  waitForLog,
  type DeliveryServer
} from '../helpers/notification-delivery'
import { notificationWorkerOf } from '../../src/ops/jobs'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

/** A form post as a mail client's one-click unsubscribe sends it (no sign-in). */
const oneClick = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click'
  })

describe('notification opt-out', function () {
  this.timeout(60000)
  let env: DeliveryServer
  let facility: FacilityFixture

  before(async () => {
    env = await startDeliveryServer()
    facility = await setupFacility(env.server.url, 'Opt-out clinic')
  })
  after(() => env?.close())

  const preferencesOf = async (patient: SignedUp) => {
    const res = await restClient(env.server.url, patient.token).get(`/accounts/${patient.account.id}`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.notifications
  }
  const patchPreferences = (patient: SignedUp, notifications: unknown, token = patient.token) =>
    restClient(env.server.url, token).patch(`/accounts/${patient.account.id}`, { notifications })

  /** The List-Unsubscribe URL of the email of notification `id`. */
  const unsubscribeUrlOf = async (id: string) => {
    const mail = await env.smtp.waitFor((m) => m.headers['message-id'] === `<${id}@127.0.0.1>`)
    const link = /^<(.+)>$/.exec(mail.headers['list-unsubscribe'])?.[1]
    assert.ok(link, mail.headers['list-unsubscribe'])
    return link
  }

  it('is patched by the account holder only, channel by channel; bad values are a 400', async () => {
    const patient = await signUpPatient(env.server.url)
    assert.equal(await preferencesOf(patient), undefined, 'absent: both on')
    let res = await patchPreferences(patient, { email: false })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(res.body.notifications, { email: false })
    res = await patchPreferences(patient, { sms: false })
    assert.deepEqual(res.body.notifications, { email: false, sms: false })
    res = await patchPreferences(patient, { email: true })
    assert.deepEqual(res.body.notifications, { email: true, sms: false })

    for (const bad of [{ email: 'no' }, { fax: true }, {}, null, 'off', { sms: 1 }]) {
      const refused = await patchPreferences(patient, bad)
      assert.equal(refused.status, 400, JSON.stringify(bad))
      assert.ok(
        JSON.stringify(refused.body.errors ?? refused.body).includes('notifications'),
        JSON.stringify(refused.body)
      )
    }
    assert.deepEqual(await preferencesOf(patient), { email: true, sms: false }, 'nothing half-written')

    // Nobody else patches them: not a member of the patient's facility, not its superadmin.
    for (const other of [facility.owner, facility.stranger]) {
      const refused = await patchPreferences(patient, { email: false }, other.token)
      assert.equal(refused.status, 404, JSON.stringify(refused.body))
    }
    assert.equal((await patchPreferences(patient, { email: false }, '')).status, 401)
    assert.deepEqual(await preferencesOf(patient), { email: true, sms: false })
  })

  it('skips an opted-out channel at queue time, and sends the other', async () => {
    const patient = await signUpPatient(env.server.url)
    assert.equal((await patchPreferences(patient, { email: false })).status, 200)
    const [email, sms] = await queueFor(env.server, facility.id, patient)
    assert.deepEqual([email.status, email.reason], ['skipped', 'opted-out'])
    await waitForLog(env.server.url, patient, sms.id, (n) => n.status === 'sent')
    assert.equal(env.smtp.messages.filter((m) => m.to === patient.email).length, 0)
  })

  it('skips a waiting notification whose channel was turned off meanwhile', async () => {
    const patient = await signUpPatient(env.server.url)
    const [email, sms] = await queueFor(env.server, facility.id, patient, {
      dueAt: env.clock.now() + 10 * MINUTE
    })
    assert.deepEqual([email.status, sms.status], ['queued', 'queued'])
    assert.equal((await patchPreferences(patient, { sms: false })).status, 200)
    env.clock.advance(11 * MINUTE)
    notificationWorkerOf(env.server.app)?.nudge()
    const skipped = await waitForLog(env.server.url, patient, sms.id, (n) => n.status !== 'queued')
    assert.deepEqual([skipped.status, skipped.reason, skipped.attempts], ['skipped', 'opted-out', 0])
    await waitForLog(env.server.url, patient, email.id, (n) => n.status === 'sent')
    assert.equal(env.sms.messages.filter((m) => m.idempotencyKey === sms.id).length, 0)
  })

  it('the one-click link turns email off without signing in, on POST only, idempotently', async () => {
    const patient = await signUpPatient(env.server.url)
    const [email, sms] = await queueFor(env.server, facility.id, patient)
    const link = await unsubscribeUrlOf(email.id)
    assert.ok(link.startsWith(`${env.server.url}/notifications/unsubscribe?token=`))

    // A GET (a mail scanner, or the person following the link) shows a confirm button and changes nothing.
    const page = await fetch(link)
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /text\/html/)
    const html = await page.text()
    assert.match(html, /<form method="post" action="\/notifications\/unsubscribe\?token=[^"]+">/)
    assert.match(html, /<button type="submit" id="confirm">Unsubscribe<\/button>/)
    assert.ok(!html.includes(patient.email), 'the address is masked')
    assert.equal(await preferencesOf(patient), undefined)

    const posted = await oneClick(link)
    assert.equal(posted.status, 200, await posted.text())
    assert.deepEqual(await preferencesOf(patient), { email: false })
    const again = await oneClick(link)
    assert.equal(again.status, 200)
    assert.deepEqual(await preferencesOf(patient), { email: false })

    // The confirm button's form (an empty body) does the same.
    assert.equal((await fetch(link, { method: 'POST' })).status, 200)

    // From now on emails are skipped; text messages still go.
    await waitForLog(env.server.url, patient, sms.id, (n) => n.status === 'sent')
    const [nextEmail, nextSms] = await queueFor(env.server, facility.id, patient)
    assert.deepEqual([nextEmail.status, nextEmail.reason], ['skipped', 'opted-out'])
    await waitForLog(env.server.url, patient, nextSms.id, (n) => n.status === 'sent')
    const log = await logOf(env.server.url, patient)
    assert.equal(log.get(nextEmail.id).reason, 'opted-out')
  })

  it('a tampered or missing token is a 400 and changes nothing', async () => {
    const patient = await signUpPatient(env.server.url)
    const other = await signUpPatient(env.server.url)
    const [email] = await queueFor(env.server, facility.id, patient)
    const link = new URL(await unsubscribeUrlOf(email.id))
    const token = link.searchParams.get('token') ?? ''
    const [payload, signature] = token.split('.')
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString())
    forged.a = other.account.id
    const tampered = [
      `${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`,
      `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`,
      payload,
      ''
    ]
    for (const bad of tampered) {
      const url = `${env.server.url}/notifications/unsubscribe?token=${encodeURIComponent(bad)}`
      for (const res of [await oneClick(url), await fetch(url)]) {
        assert.equal(res.status, 400, bad)
        assert.match(await res.text(), /The unsubscribe link is (not valid|incomplete)/)
      }
    }
    const none = await oneClick(`${env.server.url}/notifications/unsubscribe`)
    assert.equal(none.status, 400)
    assert.equal(await preferencesOf(patient), undefined)
    assert.equal(await preferencesOf(other), undefined)
  })

  it('never suppresses action codes: an account that opted out of everything still gets them', async () => {
    const patient = await signUpPatient(env.server.url)
    assert.equal((await patchPreferences(patient, { email: false, sms: false })).status, 200)
    const seen = env.smtp.messages.length
    const res = await auth(
      env.server.url,
      { action: 'changePassword', password: patient.password, newPassword: 'a brand new passphrase 9' },
      patient.token
    )
    assert.equal(res.status, 201, JSON.stringify(res.body))
    const code = await mailedCode(env.smtp, patient.email, 'Confirm Password Change', seen)
    assert.ok(code)
  })

  // (last: moves the clock a year on)
  it('an expired link is a 403 and changes nothing', async () => {
    const patient = await signUpPatient(env.server.url)
    const [email] = await queueFor(env.server, facility.id, patient)
    const link = await unsubscribeUrlOf(email.id)
    env.clock.advance(env.server.app.get('notifications').unsubscribeTtlMs + DAY)
    for (const res of [await oneClick(link), await fetch(link)]) {
      assert.equal(res.status, 403)
      assert.match(await res.text(), /The unsubscribe link has expired/)
    }
    assert.equal(await preferencesOf(patient), undefined)
  })
})
