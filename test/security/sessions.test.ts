// Ending sessions for real: what ends every token of an account (logout-everywhere, a new password or identity,
// account removal, an admin promotion by the bootstrap), seen by clients over REST and Socket.IO; and how the
// admin bootstrap treats an email that already belongs to an account.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import {
  http,
  restClient,
  signUp,
  sleep,
  socketClient,
  startServer,
  recordEvents,
  recordSessionEnd,
  refusal,
  tempDir,
  testMongoUrl,
  uniqueEmail,
  waitUntil,
  type SignedUp
} from '../helpers/app'
import { assertNoSecrets, auth, mailedCode, startAuthTestbed, type AuthTestbed } from '../helpers/auth'
import { startWebhookReceiver, type TestWebhookReceiver } from '../helpers/webhook-receiver'
import { validRecords } from '../fixtures/medical-records'

const NEW_PASSWORD = 'Another horse 42'

describe('sessions: what ends them', () => {
  let bed: AuthTestbed
  let receiver: TestWebhookReceiver
  const sockets: { close(): void }[] = []

  const admin = { email: 'admin@sessions.test', password: 'Admin password 1' }

  before(async () => {
    bed = await startAuthTestbed({ admin })
    receiver = await startWebhookReceiver()
  })
  after(async () => {
    sockets.forEach((s) => s.close())
    await bed.close()
    await receiver.close()
  })

  /** A Feathers client over Socket.IO signed in with `token`. */
  const connect = async (token: string) => {
    const socket = socketClient(bed.url)
    sockets.push(socket)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
    return socket
  }

  const login = async (user: { email: string; password: string }) => {
    const res = await auth(bed.url, { email: user.email, password: user.password })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body.accessToken as string
  }

  const me = (user: SignedUp, token: string) =>
    http(bed.url, 'GET', `/accounts/${user.account.id}`, { token })

  describe('logout-everywhere', () => {
    it('ends every token of the account (REST 401) and disconnects its open sockets, which get no more events', async () => {
      const user = await signUp(bed.url)
      const second = await login(user)
      const live = await connect(second)
      const events = recordEvents(live.client, 'accounts')
      const ending = recordSessionEnd(live)

      const res = await auth(bed.url, { action: 'logout-everywhere' }, user.token)
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.equal(res.body.action, 'logout-everywhere')
      assert.equal(res.body.accessToken, undefined, 'no new token')
      assertNoSecrets(res.body)

      for (const token of [user.token, second]) {
        const refused = await me(user, token)
        assert.equal(refused.status, 401)
        assert.equal(refused.body.data?.reason, 'session-ended')
      }
      await waitUntil(() => !live.socket.connected, 5000, 'the socket to be disconnected')
      assert.deepEqual(ending, ['logout signed-out-everywhere', 'disconnect'], 'told why, then disconnected')

      // A new login works, and its changes reach nobody on the old socket.
      const fresh = await login(user)
      assert.equal((await me(user, fresh)).status, 200)
      assert.equal(
        (
          await http(bed.url, 'PATCH', `/accounts/${user.account.id}`, {
            token: fresh,
            body: { firstName: 'After' }
          })
        ).status,
        200
      )
      await sleep(200)
      assert.deepEqual(events, [])
    })

    it('needs the Bearer token (401), takes no other fields (400), and works over Socket.IO, signing that connection out', async () => {
      const user = await signUp(bed.url)
      assert.equal((await auth(bed.url, { action: 'logout-everywhere' })).status, 401)
      assert.equal(
        (await auth(bed.url, { action: 'logout-everywhere', sessionVersion: 7 }, user.token)).status,
        400
      )

      const other = await login(user)
      const otherSocket = await connect(other)
      const own = await connect(user.token)
      const answer: any = await own.client.service('authentication').create({ action: 'logout-everywhere' })
      assert.equal(answer.action, 'logout-everywhere')
      // The calling socket got its answer and stays connected, signed out; the other one is disconnected.
      await assert.rejects(own.client.service('accounts').get(user.account.id), { name: 'NotAuthenticated' })
      await waitUntil(() => !otherSocket.socket.connected, 5000, 'the other socket to be disconnected')
      assert.equal((await me(user, other)).status, 401)
    })

    it('never lets the session version out (login, account reads, events)', async () => {
      const user = await signUp(bed.url)
      await auth(bed.url, { action: 'logout-everywhere' }, user.token)
      const res = await auth(bed.url, { email: user.email, password: user.password })
      assertNoSecrets(res.body)
      const read = await me(user, res.body.accessToken)
      assert.equal(read.status, 200)
      assertNoSecrets(read.body)
      // Clients cannot set or query it either.
      assert.equal(
        (
          await http(bed.url, 'PATCH', `/accounts/${user.account.id}`, {
            token: res.body.accessToken,
            body: { sessionVersion: 0 }
          })
        ).status,
        400
      )
      assert.equal(
        (await http(bed.url, 'GET', '/accounts?sessionVersion=1', { token: res.body.accessToken })).status,
        400
      )
    })
  })

  describe('a password change applied with its code', () => {
    it('ends old tokens; the account socket first sees the accounts patched event, and an accounts.patch webhook gets a delivery', async () => {
      const user = await signUp(bed.url)
      const hook = await http(bed.url, 'POST', '/webhook-events', {
        token: user.token,
        body: { account: user.account.id, url: receiver.url, events: 'accounts.patch' }
      })
      assert.equal(hook.status, 201, JSON.stringify(hook.body))
      const live = await connect(user.token)
      const events = recordEvents(live.client, 'accounts', ['patched'])
      const ending = recordSessionEnd(live)

      const seen = bed.smtp.messages.length
      assert.equal(
        (
          await auth(
            bed.url,
            { action: 'changePassword', password: user.password, newPassword: NEW_PASSWORD },
            user.token
          )
        ).status,
        201
      )
      const code = await mailedCode(bed.smtp, user.email, 'Confirm Password Change', seen)
      const before = receiver.received.length
      const applied = await auth(bed.url, { action: 'applyActionCode', code })
      assert.equal(applied.status, 201, JSON.stringify(applied.body))

      assert.equal((await me(user, user.token)).status, 401)
      await waitUntil(() => events.length === 1, 5000, 'the patched event on the account socket')
      assert.equal(events[0].data.id, user.account.id)
      assertNoSecrets(events)
      await waitUntil(() => !live.socket.connected, 5000, 'the socket to be disconnected')
      assert.deepEqual(ending, ['logout password-changed', 'disconnect'], 'told why, then disconnected')
      // A later call fails at once, saying why.
      const refused = await refusal(live.client.service('accounts').get(user.account.id))
      assert.equal(refused.code, 401)
      assert.equal(refused.data?.reason, 'password-changed')

      await waitUntil(
        () => receiver.received.slice(before).some((r) => r.body?.event === 'accounts.patch'),
        5000,
        'the accounts.patch delivery'
      )
      const delivery = receiver.received.slice(before).find((r) => r.body?.event === 'accounts.patch')!
      assert.equal(delivery.body.payload.id, user.account.id)
      assertNoSecrets(delivery.body)

      assert.equal((await auth(bed.url, { email: user.email, password: NEW_PASSWORD })).status, 201)
    })
  })

  describe('an identity change applied with its code', () => {
    it('ends old tokens and cuts the account socket', async () => {
      const user = await signUp(bed.url)
      const live = await connect(user.token)
      const ending = recordSessionEnd(live)
      const newEmail = uniqueEmail('moved')
      const seen = bed.smtp.messages.length
      assert.equal(
        (
          await auth(
            bed.url,
            { action: 'changeIdentity', email: newEmail, password: user.password },
            user.token
          )
        ).status,
        201
      )
      const code = await mailedCode(bed.smtp, newEmail, 'Confirm Change Identity', seen)
      assert.equal((await auth(bed.url, { action: 'applyActionCode', code }, user.token)).status, 201)
      assert.equal((await me(user, user.token)).status, 401)
      await waitUntil(() => !live.socket.connected, 5000, 'the socket to be disconnected')
      assert.deepEqual(ending, ['logout identity-changed', 'disconnect'])
      assert.equal((await login({ email: newEmail, password: user.password })).length > 0, true)
    })
  })

  describe('removing an account', () => {
    it('ends its tokens and stops its open socket at once: no more events of records shared with it', async () => {
      const alice = await signUp(bed.url, { organization: { name: 'Sharing Clinic', type: 'facility' } })
      const bob = await signUp(bed.url)
      const api = restClient(bed.url, alice.token)
      const facility = alice.organization.id
      const bobSocket = await connect(bob.token)
      const seenByBob = recordEvents(bobSocket.client, 'medical-records')
      const ending = recordSessionEnd(bobSocket)

      // While Bob exists he sees what is shared with him.
      const first = await api.post('/medical-records', {
        ...validRecords.allergy,
        facility,
        permissions: [{ uid: bob.account.id }]
      })
      assert.equal(first.status, 200, JSON.stringify(first.body))
      await waitUntil(() => seenByBob.length === 1, 5000, 'the created event for Bob')

      // Accounts are removed by an admin (an account may not remove itself: 403).
      assert.equal(
        (await http(bed.url, 'DELETE', `/accounts/${bob.account.id}`, { token: bob.token })).status,
        403
      )
      const removed = await http(bed.url, 'DELETE', `/accounts/${bob.account.id}`, {
        token: await login(admin)
      })
      assert.equal(removed.status, 200, JSON.stringify(removed.body))
      const afterRemoval = seenByBob.length

      const second = await api.post('/medical-records', {
        ...validRecords.allergy,
        facility,
        permissions: [{ uid: bob.account.id }]
      })
      assert.equal(second.status, 200)
      assert.equal((await api.patch(`/medical-records/${first.body.id}`, { name: 'Shellfish' })).status, 200)
      assert.equal((await api.patch(`/medical-records/${second.body.id}`, { name: 'Shellfish' })).status, 200)
      await sleep(300)
      assert.equal(seenByBob.length, afterRemoval, 'no events after the removal')
      assert.equal(seenByBob.filter((e) => e.data.id === second.body.id).length, 0)

      const refused = await me(bob, bob.token)
      assert.equal(refused.status, 401, 'a removed account’s token is a 401, not a 404')
      await waitUntil(() => !bobSocket.socket.connected, 5000, 'Bob’s socket to be disconnected')
      assert.deepEqual(ending, ['logout account-removed', 'disconnect'])
    })
  })
})

describe('admin bootstrap (ADMIN_EMAIL of an existing account)', () => {
  // One data dir (and MongoDB database when MONGODB_URL is set) per test, shared by its restarts.
  let dataDir: string
  let mongodb: string
  beforeEach(() => {
    dataDir = tempDir()
    mongodb = testMongoUrl()
  })
  afterEach(async () => {
    // A last start (without admin settings) to drop the MongoDB database; the data dir is removed by hand.
    const last = await startServer({ dataDir, mongodb })
    await last.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const signedUpAccount = async () => {
    const first = await startServer({ dataDir, mongodb })
    try {
      return await signUp(first.url)
    } finally {
      await first.close({ keep: true })
    }
  }

  it('refuses to start when the email belongs to an account it did not create, saying what to do', async () => {
    const squatter = await signedUpAccount()
    await assert.rejects(
      startServer({
        dataDir,
        mongodb,
        admin: { email: squatter.email.toUpperCase(), password: 'Admin password 1' }
      }),
      (error: any) => {
        assert.match(error.message, /belongs to an existing account/)
        assert.match(error.message, /another email/)
        assert.match(error.message, /ADMIN_PROMOTE_EXISTING=true/)
        return true
      }
    )
    // Nothing was changed: the account is not admin and its token still works.
    const again = await startServer({ dataDir, mongodb })
    try {
      const read = await http(again.url, 'GET', `/accounts/${squatter.account.id}`, { token: squatter.token })
      assert.equal(read.status, 200)
      assert.equal(read.body.admin, undefined)
    } finally {
      await again.close({ keep: true })
    }
  })

  it('with promoteExisting promotes that account and ends its sessions; a restart then changes nothing', async () => {
    const owner = await signedUpAccount()
    const admin = { email: owner.email, password: 'Unused admin password 1', promoteExisting: true }
    const promoted = await startServer({ dataDir, mongodb, admin })
    let token: string
    try {
      const old = await http(promoted.url, 'GET', `/accounts/${owner.account.id}`, { token: owner.token })
      assert.equal(old.status, 401, 'the old token ended')
      const login = await auth(promoted.url, { email: owner.email, password: owner.password })
      assert.equal(login.status, 201, 'the account keeps its own password')
      assert.equal(login.body.account.admin, true)
      assertNoSecrets(login.body)
      assert.equal((await auth(promoted.url, { email: owner.email, password: admin.password })).status, 401)
      token = login.body.accessToken
    } finally {
      await promoted.close({ keep: true })
    }

    // A restart (the account is admin now) changes nothing: its token stays valid.
    const restarted = await startServer({ dataDir, mongodb, admin })
    try {
      const read = await http(restarted.url, 'GET', `/accounts/${owner.account.id}`, { token })
      assert.equal(read.status, 200)
      assert.equal(read.body.admin, true)
    } finally {
      await restarted.close({ keep: true })
    }
  })
})
