// Authentication hardening, as clients meet it: a TOTP signs in once, an account without a password fails a
// password login as slowly as a wrong password, and concurrent wrong tries on one action code are compared at
// most `actionCodes.maxAttempts` times.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { signUp, sleep, uniqueEmail } from '../helpers/app'
import { auth, GOOGLE_REDIRECT, mailedCode, startAuthTestbed, totp, type AuthTestbed } from '../helpers/auth'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** Waits, if needed, until the current 30 s TOTP step has at least 5 s left, so codes computed now stay current. */
const awayFromStepBoundary = async () => {
  const left = 30000 - (Date.now() % 30000)
  if (left < 5000) await sleep(left + 200)
}

describe('authentication: hardening', () => {
  let bed: AuthTestbed

  before(async () => {
    bed = await startAuthTestbed()
  })
  after(async () => {
    await bed.close()
  })

  describe('TOTP replay', () => {
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
      return { ...user, secret: setup.body.secret as string }
    }

    it('lets one code log in only once within its step; a replay is a 401 with reason mfa-required', async () => {
      await awayFromStepBoundary()
      const user = await withMfa()
      const code = totp(user.secret, -1)
      const first = await auth(bed.url, { email: user.email, password: user.password, mfaCode: code })
      assert.equal(first.status, 201, JSON.stringify(first.body))
      const replay = await auth(bed.url, { email: user.email, password: user.password, mfaCode: code })
      assert.equal(replay.status, 401)
      assert.equal(replay.body.data.reason, 'mfa-required')
      assert.equal(replay.body.accessToken, undefined)
      // The next code still works.
      assert.equal(
        (await auth(bed.url, { email: user.email, password: user.password, mfaCode: totp(user.secret) }))
          .status,
        201
      )
    })

    it('lets only one of several concurrent logins with the same code through', async () => {
      await awayFromStepBoundary()
      const user = await withMfa()
      const code = totp(user.secret)
      const answers = await Promise.all(
        [1, 2, 3, 4].map(() => auth(bed.url, { email: user.email, password: user.password, mfaCode: code }))
      )
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 401, 401, 401])
      for (const refused of answers.filter((a) => a.status === 401))
        assert.equal(refused.body.data.reason, 'mfa-required')
    })

    it('refuses a code already used to log in for disableMFA too (401), and takes the next one', async () => {
      await awayFromStepBoundary()
      const user = await withMfa()
      const code = totp(user.secret)
      const login = await auth(bed.url, { email: user.email, password: user.password, mfaCode: code })
      assert.equal(login.status, 201)
      const token = login.body.accessToken
      const replay = await auth(
        bed.url,
        { action: 'disableMFA', password: user.password, mfaCode: code },
        token
      )
      assert.equal(replay.status, 401)
      assert.equal(replay.body.data.reason, 'mfa-required')
      const off = await auth(
        bed.url,
        { action: 'disableMFA', password: user.password, mfaCode: totp(user.secret, 1) },
        token
      )
      assert.equal(off.status, 201, JSON.stringify(off.body))
      assert.equal(off.body.account.mfaEnabled, false)
    })
  })

  describe('concurrent wrong action codes', () => {
    it('compares at most 5 of 15 concurrent wrong tries; the rest are refused as locked, and the right code no longer works', async () => {
      const user = await signUp(bed.url)
      const seen = bed.smtp.messages.length
      const asked = await auth(
        bed.url,
        { action: 'changePassword', password: user.password, newPassword: 'Another horse 42' },
        user.token
      )
      assert.equal(asked.status, 201)
      const code = await mailedCode(bed.smtp, user.email, 'Confirm Password Change', seen)
      const [selector, secret] = code.split('-')
      const wrong = `${selector}-${secret === '00000000' ? '11111111' : '00000000'}`

      const answers = await Promise.all(
        Array.from({ length: 15 }, () => auth(bed.url, { action: 'applyActionCode', code: wrong }))
      )
      assert.deepEqual(
        [...new Set(answers.map((a) => a.status))],
        [400],
        JSON.stringify(answers.map((a) => a.body))
      )
      const compared = answers.filter((a) => /^The action code is not valid/.test(a.body.message))
      const refused = answers.filter((a) =>
        /^The action code is locked after 5 wrong tries/.test(a.body.message)
      )
      assert.ok(compared.length <= 5, `${compared.length} tries were compared`)
      assert.equal(compared.length + refused.length, 15)
      for (const answer of refused) assert.equal(answer.body.data.reason, 'code-locked')

      const right = await auth(bed.url, { action: 'applyActionCode', code })
      assert.equal(right.status, 400)
      assert.match(right.body.message, /locked/)
      assert.equal(
        (await auth(bed.url, { email: user.email, password: user.password })).status,
        201,
        'the password did not change'
      )
    })
  })
})

describe('authentication: login timing of an account without a password', () => {
  let bed: AuthTestbed

  // A realistic hash cost here (the test config uses the minimum), so a skipped comparison would show.
  before(async () => {
    const base = JSON.parse(
      fs.readFileSync(path.join(__dirname, '../../config/default.json'), 'utf8')
    ).authentication
    bed = await startAuthTestbed({ authentication: { ...base, local: { ...base.local, hashSize: 10 } } })
  })
  after(async () => {
    await bed.close()
  })

  it("answers the same 401 'Invalid login', taking about as long as a wrong password", async () => {
    const email = uniqueEmail('oauth-only')
    const registered = await auth(bed.url, {
      strategy: 'google',
      redirectURI: GOOGLE_REDIRECT,
      code: bed.google.issueCode({ id: `g-${Date.now()}`, email })
    })
    assert.equal(registered.status, 201, JSON.stringify(registered.body))
    const user = await signUp(bed.url)

    const timed = async (body: Record<string, string>) => {
      const start = process.hrtime.bigint()
      const res = await auth(bed.url, body)
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      assert.equal(res.status, 401)
      assert.equal(res.body.message, 'Invalid login')
      return ms
    }
    const noPassword: number[] = []
    const wrongPassword: number[] = []
    for (let i = 0; i < 5; i++) {
      noPassword.push(await timed({ email, password: `Some password ${i}` }))
      wrongPassword.push(await timed({ email: user.email, password: `Wrong password ${i}` }))
    }
    assert.ok(
      median(noPassword) >= 0.5 * median(wrongPassword),
      `median ${median(noPassword).toFixed(1)} ms without a password vs ${median(wrongPassword).toFixed(1)} ms for a wrong one`
    )
  })
})
