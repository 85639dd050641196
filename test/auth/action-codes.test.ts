// Action codes sent in messages: changePassword and changeIdentity, confirmed with applyActionCode (with or
// without a Bearer token), over HTTP with a real SMTP server and SMS receiver; and what makes a code unusable.
import assert from 'node:assert/strict'
import { signUp, uniqueEmail, sleep } from '../helpers/app'
import { assertNoSecrets, auth, mailedCode, startAuthTestbed, type AuthTestbed } from '../helpers/auth'

const NEW_PASSWORD = 'Another horse 42'

describe('authentication: action codes', () => {
  let bed: AuthTestbed

  before(async () => {
    bed = await startAuthTestbed()
  })
  after(async () => {
    await bed.close()
  })

  /** Asks for a password change and returns the code mailed to the account. */
  const passwordChangeCode = async (
    user: { email: string; password: string; token: string },
    newPassword = NEW_PASSWORD
  ) => {
    const seen = bed.smtp.messages.length
    const res = await auth(
      bed.url,
      { action: 'changePassword', password: user.password, newPassword },
      user.token
    )
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return mailedCode(bed.smtp, user.email, 'Confirm Password Change', seen)
  }

  describe('changePassword', () => {
    it('mails a "Confirm Password Change" code; applying it without a Bearer token swaps the passwords', async () => {
      const user = await signUp(bed.url)
      const seen = bed.smtp.messages.length
      const res = await auth(
        bed.url,
        { action: 'changePassword', password: user.password, newPassword: NEW_PASSWORD },
        user.token
      )
      assert.equal(res.status, 201)
      assert.deepEqual(res.body.sentTo, { email: user.email })
      assertNoSecrets(res.body, [NEW_PASSWORD])
      const code = await mailedCode(bed.smtp, user.email, 'Confirm Password Change', seen)
      assert.match(code, /^[0-9A-Z]{8}-[0-9]{8}$/)
      assert.equal(bed.smtp.messages.at(-1)!.from, 'clinic@example.test')

      // Until the code is applied the old password still works.
      assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 201)
      assert.equal((await auth(bed.url, { email: user.email, password: NEW_PASSWORD })).status, 401)

      const applied = await auth(bed.url, { action: 'applyActionCode', code })
      assert.equal(applied.status, 201, JSON.stringify(applied.body))
      assert.equal(applied.body.action, 'changePassword')
      assertNoSecrets(applied.body)

      assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 401)
      assert.equal((await auth(bed.url, { email: user.email, password: NEW_PASSWORD })).status, 201)
    })

    it('refuses the reused code with a 400', async () => {
      const user = await signUp(bed.url)
      const code = await passwordChangeCode(user)
      assert.equal((await auth(bed.url, { action: 'applyActionCode', code })).status, 201)
      const again = await auth(bed.url, { action: 'applyActionCode', code })
      assert.equal(again.status, 400)
      assert.match(again.body.message, /already been used/)
    })

    it('accepts the code with the Bearer token of its own account, and refuses it with the token of another account', async () => {
      const user = await signUp(bed.url)
      const other = await signUp(bed.url)
      const code = await passwordChangeCode(user)
      const refused = await auth(bed.url, { action: 'applyActionCode', code }, other.token)
      assert.equal(refused.status, 400)
      assert.match(refused.body.message, /belongs to another account/)
      assert.equal(
        (await auth(bed.url, { email: other.email, password: other.password })).status,
        201,
        'the other account is untouched'
      )
      assert.equal((await auth(bed.url, { action: 'applyActionCode', code }, user.token)).status, 201)
      assert.equal((await auth(bed.url, { email: user.email, password: NEW_PASSWORD })).status, 201)
    })

    it('needs the Bearer token (401), the right current password (401) and a strong enough new password (400)', async () => {
      const user = await signUp(bed.url)
      const before = bed.smtp.messages.length
      assert.equal(
        (
          await auth(bed.url, {
            action: 'changePassword',
            password: user.password,
            newPassword: NEW_PASSWORD
          })
        ).status,
        401
      )
      const wrong = await auth(
        bed.url,
        { action: 'changePassword', password: 'not my password', newPassword: NEW_PASSWORD },
        user.token
      )
      assert.equal(wrong.status, 401)
      assert.equal(wrong.body.data.reason, 'invalid-password')
      for (const weak of ['short', 'alllowercaseletters', user.email]) {
        const res = await auth(
          bed.url,
          { action: 'changePassword', password: user.password, newPassword: weak },
          user.token
        )
        assert.equal(res.status, 400, weak)
        assert.equal(res.body.errors[0].field, 'newPassword')
      }
      const same = await auth(
        bed.url,
        { action: 'changePassword', password: user.password, newPassword: user.password },
        user.token
      )
      assert.equal(same.status, 400)
      const missing = await auth(bed.url, { action: 'changePassword', newPassword: NEW_PASSWORD }, user.token)
      assert.equal(missing.status, 400)
      assert.match(missing.body.message, /'password'/)
      const extra = await auth(
        bed.url,
        { action: 'changePassword', password: user.password, newPassword: NEW_PASSWORD, admin: true },
        user.token
      )
      assert.equal(extra.status, 400)
      assert.equal(bed.smtp.messages.length, before, 'no message went out')
    })

    it('supersedes an earlier code when a new change is asked for', async () => {
      const user = await signUp(bed.url)
      const first = await passwordChangeCode(user, 'First new password 1')
      const second = await passwordChangeCode(user, 'Second new password 2')
      const old = await auth(bed.url, { action: 'applyActionCode', code: first })
      assert.equal(old.status, 400)
      assert.match(old.body.message, /replaced by a newer one/)
      assert.equal((await auth(bed.url, { action: 'applyActionCode', code: second })).status, 201)
      assert.equal(
        (await auth(bed.url, { email: user.email, password: 'Second new password 2' })).status,
        201
      )
    })
  })

  describe('changeIdentity', () => {
    it('mails a "Confirm Change Identity" code to the new email; after applying it only the new email logs in', async () => {
      const user = await signUp(bed.url)
      const newEmail = uniqueEmail('moved')
      const seen = bed.smtp.messages.length
      const res = await auth(
        bed.url,
        { action: 'changeIdentity', email: newEmail, password: user.password },
        user.token
      )
      assert.equal(res.status, 201, JSON.stringify(res.body))
      const code = await mailedCode(bed.smtp, newEmail, 'Confirm Change Identity', seen)
      assert.ok(
        !bed.smtp.messages.slice(seen).some((m) => m.to === user.email && m.text.includes(code)),
        'the code goes to the new identity only'
      )

      assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 201)
      assert.equal((await auth(bed.url, { email: newEmail, password: user.password })).status, 401)

      const applied = await auth(bed.url, { action: 'applyActionCode', code })
      assert.equal(applied.status, 201)
      assert.equal(applied.body.account.email, newEmail)
      assertNoSecrets(applied.body)

      assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 401)
      assert.equal((await auth(bed.url, { email: newEmail, password: user.password })).status, 201)
      // The old email is free again.
      assert.equal((await signUp(bed.url, { email: user.email })).account.email, user.email)
    })

    it('texts the code to a new mobile number through the SMS webhook', async () => {
      const user = await signUp(bed.url)
      const mobileNo = `+63917${String(Date.now()).slice(-7)}`
      const res = await auth(
        bed.url,
        { action: 'changeIdentity', mobileNo, password: user.password },
        user.token
      )
      assert.equal(res.status, 201, JSON.stringify(res.body))
      const sms = await bed.sms.waitFor((m) => m.to === mobileNo)
      assert.equal(sms.text.split('\n')[0], 'Confirm Change Identity')
      const code = /^code: (\S+)$/m.exec(sms.text)![1]
      const applied = await auth(bed.url, { action: 'applyActionCode', code }, user.token)
      assert.equal(applied.status, 201)
      assert.equal(applied.body.account.mobileNo, mobileNo)
      assert.equal(applied.body.account.email, user.email)
    })

    it('answers 409 up front, sending nothing, when the new email belongs to another account', async () => {
      const user = await signUp(bed.url)
      const other = await signUp(bed.url)
      const before = bed.smtp.messages.length
      const res = await auth(
        bed.url,
        { action: 'changeIdentity', email: ` ${other.email.toUpperCase()} `.trim(), password: user.password },
        user.token
      )
      assert.equal(res.status, 409)
      assert.equal(res.body.errors[0].field, 'email')
      assert.equal(bed.smtp.messages.length, before)
    })

    it('needs the Bearer token (401), the current password (401, 400 when missing) and a new, valid identity (400)', async () => {
      const user = await signUp(bed.url)
      const email = uniqueEmail()
      assert.equal(
        (await auth(bed.url, { action: 'changeIdentity', email, password: user.password })).status,
        401
      )
      assert.equal(
        (await auth(bed.url, { action: 'changeIdentity', email, password: 'wrong password' }, user.token))
          .status,
        401
      )
      const noPassword = await auth(bed.url, { action: 'changeIdentity', email }, user.token)
      assert.equal(noPassword.status, 400)
      assert.match(noPassword.body.message, /'password'/)
      const nothing = await auth(bed.url, { action: 'changeIdentity', password: user.password }, user.token)
      assert.equal(nothing.status, 400)
      const badEmail = await auth(
        bed.url,
        { action: 'changeIdentity', email: 'not-an-email', password: user.password },
        user.token
      )
      assert.equal(badEmail.status, 400)
      assert.equal(badEmail.body.errors[0].field, 'email')
      const same = await auth(
        bed.url,
        { action: 'changeIdentity', email: user.email, password: user.password },
        user.token
      )
      assert.equal(same.status, 400)
      assert.match(same.body.message, /same as the current/)
    })
  })

  describe('applyActionCode', () => {
    it('answers 400 for a code of another action', async () => {
      const user = await signUp(bed.url)
      const code = await passwordChangeCode(user)
      const asMfa = await auth(
        bed.url,
        { action: 'applyActionCode', code, payload: { mfaCode: '123456' } },
        user.token
      )
      assert.equal(asMfa.status, 400)
      assert.match(asMfa.body.message, /is for 'changePassword'/)
      const asLink = await auth(
        bed.url,
        { action: 'applyActionCode', code, payload: { code: 'x', redirectURI: 'https://app.example.test/' } },
        user.token
      )
      assert.equal(asLink.status, 400)
      assert.match(asLink.body.message, /is for 'changePassword'/)
      // A wrong-action attempt does not spend the code.
      assert.equal((await auth(bed.url, { action: 'applyActionCode', code })).status, 201)
    })

    it('answers 400 for unknown, malformed or missing codes and unknown payload fields', async () => {
      for (const code of ['ABCDEFGH-12345678', 'nonsense', '']) {
        const res = await auth(bed.url, { action: 'applyActionCode', code })
        assert.equal(res.status, 400, code)
      }
      assert.equal((await auth(bed.url, { action: 'applyActionCode' })).status, 400)
      assert.equal((await auth(bed.url, { action: 'applyActionCode', code: { $gt: '' } })).status, 400)
      assert.equal(
        (
          await auth(bed.url, {
            action: 'applyActionCode',
            code: 'ABCDEFGH-12345678',
            payload: { admin: true }
          })
        ).status,
        400
      )
    })

    it('locks a code after 5 wrong tries: even the right code is then refused', async () => {
      const user = await signUp(bed.url)
      const code = await passwordChangeCode(user)
      const [selector, secret] = code.split('-')
      const wrong = `${selector}-${secret === '00000000' ? '11111111' : '00000000'}`
      const answers = []
      for (let i = 0; i < 5; i++)
        answers.push(await auth(bed.url, { action: 'applyActionCode', code: wrong }))
      assert.deepEqual(
        answers.map((a) => a.status),
        [400, 400, 400, 400, 400]
      )
      assert.match(answers[4].body.message, /locked after 5 wrong tries/)
      const right = await auth(bed.url, { action: 'applyActionCode', code })
      assert.equal(right.status, 400)
      assert.match(right.body.message, /locked/)
      assert.equal(
        (await auth(bed.url, { email: user.email, password: NEW_PASSWORD })).status,
        401,
        'the change was not applied'
      )
    })

    it('answers 400 for an unknown action, and for a body with both action and strategy', async () => {
      const user = await signUp(bed.url)
      const unknown = await auth(bed.url, { action: 'becomeAdmin' }, user.token)
      assert.equal(unknown.status, 400)
      assert.match(unknown.body.message, /'action'/)
      const both = await auth(bed.url, {
        action: 'changePassword',
        strategy: 'local',
        email: user.email,
        password: user.password
      })
      assert.equal(both.status, 400)
    })

    it('keeps action codes out of the API', async () => {
      const user = await signUp(bed.url)
      for (const path of ['/action-codes', '/action-codes/x']) {
        const res = await fetch(bed.url + path, { headers: { authorization: `Bearer ${user.token}` } })
        assert.equal(res.status, 404, path)
      }
    })
  })

  describe('expiry', () => {
    it('answers 400 for an expired code (expiry from config)', async () => {
      const short = await startAuthTestbed({ actionCodes: { expiresInMs: 50 } })
      try {
        const user = await signUp(short.url)
        const seen = short.smtp.messages.length
        assert.equal(
          (
            await auth(
              short.url,
              { action: 'changePassword', password: user.password, newPassword: NEW_PASSWORD },
              user.token
            )
          ).status,
          201
        )
        const code = await mailedCode(short.smtp, user.email, 'Confirm Password Change', seen)
        assert.match(short.smtp.messages.at(-1)!.text, /expires in 1 minute/)
        await sleep(100)
        const res = await auth(short.url, { action: 'applyActionCode', code })
        assert.equal(res.status, 400)
        assert.match(res.body.message, /expired/)
        assert.equal((await auth(short.url, { email: user.email, password: user.password })).status, 201)
      } finally {
        await short.close()
      }
    })
  })
})
