// Abuse limits (config `rateLimits`), each on a server configured with low limits: failed password logins per
// email and all logins per IP (REST and Socket.IO alike), action-code attempts per IP and wrong codes per
// account, and confirmation messages per account.
import assert from 'node:assert/strict'
import { signUp, socketClient, uniqueEmail } from '../helpers/app'
import { auth, startAuthTestbed, type AuthTestbed } from '../helpers/auth'

const limit = (points: number) => ({ points, durationMs: 900000 })

describe('authentication: rate limits', () => {
  describe('failed password logins per email', () => {
    let bed: AuthTestbed
    before(async () => {
      bed = await startAuthTestbed({ rateLimits: { failedLoginsPerEmail: limit(3) } })
    })
    after(async () => {
      await bed.close()
    })

    it('answers 429 after 3 failed logins for an email, even to the right password, while other emails still log in', async () => {
      const user = await signUp(bed.url)
      const other = await signUp(bed.url)
      const statuses = []
      for (let i = 0; i < 3; i++)
        statuses.push((await auth(bed.url, { email: user.email, password: `wrong ${i}` })).status)
      assert.deepEqual(statuses, [401, 401, 401])
      const blocked = await auth(bed.url, { email: ` ${user.email.toUpperCase()}`, password: user.password })
      assert.equal(blocked.status, 429)
      assert.match(blocked.body.message, /Too many failed login attempts/)
      assert.ok(blocked.body.data.retryAfterSeconds > 0)
      assert.equal((await auth(bed.url, { email: other.email, password: other.password })).status, 201)
    })

    it('counts failures over Socket.IO too, answering 429 there', async () => {
      const user = await signUp(bed.url)
      const { client, close } = socketClient(bed.url)
      try {
        const codes = []
        for (let i = 0; i < 4; i++) {
          codes.push(
            await client
              .service('authentication')
              .create({ email: user.email, password: `wrong ${i}` })
              .then(
                () => 201,
                (error: any) => error.code
              )
          )
        }
        assert.deepEqual(codes, [401, 401, 401, 429])
      } finally {
        close()
      }
      // Over REST as well: the limit is per email, whatever the transport.
      assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 429)
    })

    it('resets the count after a successful login', async () => {
      const user = await signUp(bed.url)
      for (let i = 0; i < 2; i++)
        assert.equal((await auth(bed.url, { email: user.email, password: 'wrong' })).status, 401)
      assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 201)
      for (let i = 0; i < 2; i++)
        assert.equal((await auth(bed.url, { email: user.email, password: 'wrong' })).status, 401)
      assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 201)
    })

    it('counts wrong current passwords of the password-confirmed actions as failed logins', async () => {
      const user = await signUp(bed.url)
      for (let i = 0; i < 3; i++)
        assert.equal((await auth(bed.url, { action: 'setupMFA', password: 'wrong' }, user.token)).status, 401)
      assert.equal(
        (await auth(bed.url, { action: 'setupMFA', password: user.password }, user.token)).status,
        429
      )
      assert.equal((await auth(bed.url, { email: user.email, password: user.password })).status, 429)
    })
  })

  describe('logins per IP', () => {
    let bed: AuthTestbed
    before(async () => {
      bed = await startAuthTestbed({ rateLimits: { loginsPerIp: limit(4) } })
    })
    after(async () => {
      await bed.close()
    })

    it('answers 429 past 4 login attempts from one address, over REST and Socket.IO', async () => {
      const statuses = []
      for (let i = 0; i < 4; i++)
        statuses.push((await auth(bed.url, { email: uniqueEmail(), password: 'whatever it is' })).status)
      assert.deepEqual(statuses, [401, 401, 401, 401])
      assert.equal((await auth(bed.url, { email: uniqueEmail(), password: 'whatever it is' })).status, 429)
      const { client, close } = socketClient(bed.url)
      try {
        const error: any = await client
          .service('authentication')
          .create({ email: uniqueEmail(), password: 'whatever it is' })
          .catch((e: any) => e)
        assert.equal(error.code, 429)
      } finally {
        close()
      }
    })
  })

  describe('action codes', () => {
    let bed: AuthTestbed
    before(async () => {
      bed = await startAuthTestbed({
        rateLimits: {
          actionCodesPerIp: limit(6),
          failedActionCodesPerAccount: limit(2),
          messagesPerAccount: limit(1)
        }
      })
    })
    after(async () => {
      await bed.close()
    })

    it('answers 429 after 2 wrong codes for an account, and past 6 attempts from one address', async () => {
      const user = await signUp(bed.url)
      const wrong = { action: 'applyActionCode', code: 'ABCDEFGH-12345678' }
      assert.equal((await auth(bed.url, wrong, user.token)).status, 400)
      assert.equal((await auth(bed.url, wrong, user.token)).status, 400)
      const blocked = await auth(bed.url, wrong, user.token)
      assert.equal(blocked.status, 429)
      assert.match(blocked.body.message, /wrong action codes for this account/)
      const { client, close } = socketClient(bed.url)
      try {
        await client.authenticate({ strategy: 'jwt', accessToken: user.token })
        const error: any = await client
          .service('authentication')
          .create(wrong)
          .catch((e: any) => e)
        assert.equal(error.code, 429, 'over Socket.IO as well')
      } finally {
        close()
      }
      // Without the token, the attempts still count per address: 4 made so far, 2 more allowed.
      for (let i = 0; i < 2; i++) assert.equal((await auth(bed.url, wrong)).status, 400)
      const byAddress = await auth(bed.url, wrong)
      assert.equal(byAddress.status, 429)
      assert.match(byAddress.body.message, /action code attempts from this address/)
    })

    it('answers 429 to a second confirmation message within the window', async () => {
      const user = await signUp(bed.url)
      const first = await auth(
        bed.url,
        { action: 'changePassword', password: user.password, newPassword: 'Brand new pass 1' },
        user.token
      )
      assert.equal(first.status, 201)
      const second = await auth(
        bed.url,
        { action: 'changePassword', password: user.password, newPassword: 'Brand new pass 2' },
        user.token
      )
      assert.equal(second.status, 429)
    })
  })
})
