// Two-factor authentication: setupMFA, confirmation with a current TOTP through applyActionCode, the
// mfa-required password login, and turning MFA off with the password and a current TOTP.
import assert from 'node:assert/strict'
import { http, signUp, socketClient, recordEvents, waitUntil } from '../helpers/app'
import { assertNoSecrets, auth, startAuthTestbed, totp, type AuthTestbed } from '../helpers/auth'

const wrongTotp = (secret: string) => {
  const current = totp(secret)
  return current === '000000' ? '111111' : '000000'
}

describe('authentication: MFA', () => {
  let bed: AuthTestbed

  before(async () => {
    bed = await startAuthTestbed()
  })
  after(async () => {
    await bed.close()
  })

  /**
   * A signed-up account with MFA turned on; returns its TOTP secret too, and a fresh token (turning MFA on ended
   * the old one) from a login with the previous step's code, so the current code is still unused.
   */
  const withMfa = async () => {
    const user = await signUp(bed.url)
    const setup = await auth(bed.url, { action: 'setupMFA', password: user.password }, user.token)
    assert.equal(setup.status, 201, JSON.stringify(setup.body))
    const on = await auth(
      bed.url,
      { action: 'applyActionCode', code: setup.body.code, payload: { mfaCode: totp(setup.body.secret) } },
      user.token
    )
    assert.equal(on.status, 201, JSON.stringify(on.body))
    const login = await auth(bed.url, {
      email: user.email,
      password: user.password,
      mfaCode: totp(setup.body.secret, -1)
    })
    assert.equal(login.status, 201, JSON.stringify(login.body))
    return { ...user, token: login.body.accessToken as string, secret: setup.body.secret as string }
  }

  it('sets up MFA: setupMFA returns a secret, its otpauth URI and a code; a current TOTP turns MFA on', async () => {
    const user = await signUp(bed.url)
    const setup = await auth(bed.url, { action: 'setupMFA', password: user.password }, user.token)
    assert.equal(setup.status, 201)
    const { code, secret, otpauthURI } = setup.body
    assert.match(secret, /^[A-Z2-7]{32}$/)
    const uri = new URL(otpauthURI)
    assert.equal(uri.protocol, 'otpauth:')
    assert.equal(uri.host, 'totp')
    assert.equal(uri.searchParams.get('secret'), secret)
    assert.equal(uri.searchParams.get('issuer'), 'Clinic')
    assert.ok(decodeURIComponent(uri.pathname).includes(user.email))

    // Not on yet: the password alone still logs in.
    assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 201)
    const on = await auth(
      bed.url,
      { action: 'applyActionCode', code, payload: { mfaCode: totp(secret) } },
      user.token
    )
    assert.equal(on.status, 201)
    assert.equal(on.body.account.mfaEnabled, true)
    assertNoSecrets(on.body, [secret])

    // Turning MFA on ended the session: the old token is refused, a login with password and code works.
    assert.equal(
      (await http(bed.url, 'GET', `/accounts/${user.account.id}`, { token: user.token })).status,
      401
    )
    const login = await auth(bed.url, { email: user.email, password: user.password, mfaCode: totp(secret) })
    assert.equal(login.status, 201)
    const renewed = await auth(bed.url, {
      action: 'refreshAccessToken',
      refreshToken: login.body.refreshToken
    })
    assert.equal(renewed.status, 201, 'the MFA step answers a refresh token of its session too')
    const me = await http(bed.url, 'GET', `/accounts/${user.account.id}`, { token: login.body.accessToken })
    assert.equal(me.body.mfaEnabled, true)
    assertNoSecrets(me.body, [secret])
  })

  it('then refuses a password login without a valid mfaCode with 401 reason "mfa-required", and accepts a current one', async () => {
    const user = await withMfa()
    const missing = await auth(bed.url, { email: user.email, password: user.password })
    assert.equal(missing.status, 401)
    assert.equal(missing.body.data.reason, 'mfa-required')
    assert.equal(missing.body.accessToken, undefined)
    const wrong = await auth(bed.url, {
      email: user.email,
      password: user.password,
      mfaCode: wrongTotp(user.secret)
    })
    assert.equal(wrong.status, 401)
    assert.equal(wrong.body.data.reason, 'mfa-required')
    const wrongPassword = await auth(bed.url, {
      email: user.email,
      password: 'not the password',
      mfaCode: totp(user.secret)
    })
    assert.equal(wrongPassword.status, 401)
    assert.notEqual(wrongPassword.body.data?.reason, 'mfa-required')
    const ok = await auth(bed.url, { email: user.email, password: user.password, mfaCode: totp(user.secret) })
    assert.equal(ok.status, 201)
    assert.equal(typeof ok.body.accessToken, 'string')
    assertNoSecrets(ok.body, [user.secret])
    const badType = await auth(bed.url, { email: user.email, password: user.password, mfaCode: 123456 })
    assert.equal(badType.status, 400)
  })

  it('keeps MFA off after a wrong TOTP (400), leaving the code usable', async () => {
    const user = await signUp(bed.url)
    const setup = await auth(bed.url, { action: 'setupMFA', password: user.password }, user.token)
    const wrong = await auth(
      bed.url,
      {
        action: 'applyActionCode',
        code: setup.body.code,
        payload: { mfaCode: wrongTotp(setup.body.secret) }
      },
      user.token
    )
    assert.equal(wrong.status, 400)
    assert.equal(wrong.body.errors[0].field, 'payload.mfaCode')
    assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 201)
    const ok = await auth(
      bed.url,
      { action: 'applyActionCode', code: setup.body.code, payload: { mfaCode: totp(setup.body.secret) } },
      user.token
    )
    assert.equal(ok.status, 201)
  })

  it('needs the Bearer token (401) and the password (401 wrong, 400 missing) for setupMFA, and the Bearer token to confirm', async () => {
    const user = await signUp(bed.url)
    const other = await signUp(bed.url)
    assert.equal((await auth(bed.url, { action: 'setupMFA', password: user.password })).status, 401)
    assert.equal(
      (await auth(bed.url, { action: 'setupMFA', password: 'wrong password' }, user.token)).status,
      401
    )
    assert.equal((await auth(bed.url, { action: 'setupMFA' }, user.token)).status, 400)
    const setup = await auth(bed.url, { action: 'setupMFA', password: user.password }, user.token)
    const payload = { mfaCode: totp(setup.body.secret) }
    assert.equal(
      (await auth(bed.url, { action: 'applyActionCode', code: setup.body.code, payload })).status,
      401
    )
    assert.equal(
      (await auth(bed.url, { action: 'applyActionCode', code: setup.body.code, payload }, other.token))
        .status,
      400
    )
    assert.equal(
      (await auth(bed.url, { email: user.email, password: user.password })).status,
      201,
      'MFA stayed off'
    )
  })

  it('answers 409 to setupMFA while MFA is on', async () => {
    const user = await withMfa()
    const res = await auth(bed.url, { action: 'setupMFA', password: user.password }, user.token)
    assert.equal(res.status, 409)
  })

  it('turns MFA off with disableMFA, the password and a current TOTP', async () => {
    const user = await withMfa()
    assert.equal(
      (await auth(bed.url, { action: 'disableMFA', password: user.password, mfaCode: totp(user.secret) }))
        .status,
      401,
      'needs the Bearer token'
    )
    const wrongCode = await auth(
      bed.url,
      { action: 'disableMFA', password: user.password, mfaCode: wrongTotp(user.secret) },
      user.token
    )
    assert.equal(wrongCode.status, 401)
    const wrongPassword = await auth(
      bed.url,
      { action: 'disableMFA', password: 'wrong password', mfaCode: totp(user.secret) },
      user.token
    )
    assert.equal(wrongPassword.status, 401)
    assert.equal(
      (await auth(bed.url, { action: 'disableMFA', password: user.password }, user.token)).status,
      400
    )
    const off = await auth(
      bed.url,
      { action: 'disableMFA', password: user.password, mfaCode: totp(user.secret) },
      user.token
    )
    assert.equal(off.status, 201)
    assert.equal(off.body.account.mfaEnabled, false)
    // Turning MFA off ends every session too.
    assert.equal(
      (
        await auth(
          bed.url,
          { action: 'disableMFA', password: user.password, mfaCode: totp(user.secret) },
          user.token
        )
      ).status,
      401
    )
    const login = await auth(bed.url, { email: user.email, password: user.password })
    assert.equal(login.status, 201)
    const again = await auth(
      bed.url,
      { action: 'disableMFA', password: user.password, mfaCode: totp(user.secret) },
      login.body.accessToken
    )
    assert.equal(again.status, 400)
  })

  it('sends account events without any secret to the account’s realtime connection', async () => {
    const user = await signUp(bed.url)
    const { client, close } = socketClient(bed.url)
    try {
      await client.authenticate({ strategy: 'jwt', accessToken: user.token })
      const events = recordEvents(client, 'accounts')
      const setup: any = await client
        .service('authentication')
        .create({ action: 'setupMFA', password: user.password })
      assert.equal(typeof setup.secret, 'string')
      await client
        .service('authentication')
        .create({ action: 'applyActionCode', code: setup.code, payload: { mfaCode: totp(setup.secret) } })
      await waitUntil(() => events.length >= 1, 5000, 'the patched event')
      assert.equal(events[0].event, 'patched')
      assert.equal(events[0].data.mfaEnabled, true)
      assertNoSecrets(events, [setup.secret])
      // Turning MFA on ended the session: the connection stays open but is signed out.
      await assert.rejects(client.service('accounts').get(user.account.id), { name: 'NotAuthenticated' })
    } finally {
      close()
    }
  })
})
