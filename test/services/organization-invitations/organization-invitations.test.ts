// Members by email: a superadmin invites an address, the mail (through the real SMTP counterpart) carries a
// single-use code, and the invitee, signed in with that address, accepts it over REST or Socket.IO and is a member
// (audited as `member-add`, seen live by the organization). Re-inviting replaces the code; expiry follows the
// sandbox clock; bad input is a 400 naming the field.
import assert from 'node:assert/strict'
import {
  http,
  refusal,
  signUp,
  socketClient,
  startServer,
  uniqueEmail,
  type SignedUp,
  type TestServer
} from '../../helpers/app'
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp'
import { ADMIN, LONG_SESSIONS } from '../../helpers/subscriptions'

const accept = (url: string, token: string | undefined, body: unknown) =>
  http(url, 'POST', '/organization-invitations', { token, body, headers: { 'x-service-method': 'accept' } })

describe('organization-invitations', function () {
  this.timeout(60000)
  let smtp: TestSmtpServer
  let server: TestServer
  let owner: SignedUp
  let org: string
  let admin: string

  const invite = async (email: string, extra: Record<string, unknown> = {}) => {
    const seen = smtp.messages.length
    const res = await http(server.url, 'POST', '/organization-invitations', {
      token: owner.token,
      body: { organization: org, email, ...extra }
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= seen && m.to === email.toLowerCase())
    const code = /^code: (\S+)$/m.exec(mail.text)?.[1]
    assert.ok(code, mail.text)
    return { invitation: res.body, mail, code }
  }

  before(async () => {
    smtp = await startSmtpServer()
    server = await startServer({
      admin: ADMIN,
      sandboxClock: true,
      // The test moves the clock a week: sessions outlive it.
      sessions: LONG_SESSIONS,
      messaging: { smtpUrl: smtp.url, mailFrom: 'clinic@example.test', smsWebhookUrl: '' }
    })
    owner = await signUp(server.url, { organization: { name: 'Invite Clinic', type: 'facility' } })
    org = owner.organization.id
    const login = await http(server.url, 'POST', '/authentication', { body: { strategy: 'local', ...ADMIN } })
    admin = login.body.accessToken
  })
  after(async () => {
    await server?.close()
    await smtp?.close()
  })

  it('mails a code that the invitee applies after signing up: a member with the invited grants', async () => {
    const email = uniqueEmail('nurse')
    const { invitation, mail, code } = await invite(email, { roles: ['nurse'], privileges: ['billing'] })
    assert.equal(invitation.status, 'pending')
    assert.equal(invitation.codeHash, undefined, 'the hash stays on the server')
    assert.ok(!JSON.stringify(invitation).includes(code.replace(/-/g, '')))
    assert.equal(mail.subject, 'Invitation to join Invite Clinic')
    assert.match(mail.text, /expires in 7 days/)

    const pending = await http(
      server.url,
      'GET',
      `/organization-invitations?organization=${org}&status=pending`,
      {
        token: owner.token
      }
    )
    assert.deepEqual(
      pending.body.data.map((i: any) => i.email),
      [email]
    )

    // The organization sees the membership arrive live.
    const watcher = socketClient(server.url)
    await watcher.client.authenticate({ strategy: 'jwt', accessToken: owner.token })
    const joined = new Promise<any>((resolve) =>
      watcher.client.service('organization-members').on('created', (m: any) => resolve(m))
    )
    const invitee = await signUp(server.url, { email, firstName: 'Ines', lastName: 'Invited' })
    // Signing up with the invited address joins nothing by itself: the mailed code does.
    const before = await http(server.url, 'GET', `/organization-members?uid=${invitee.account.id}`, {
      token: invitee.token
    })
    assert.equal(before.body.total, 0)
    const res = await accept(server.url, invitee.token, { code: code.toLowerCase() })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.equal(res.body.invitation.status, 'accepted')
    assert.equal(res.body.invitation.acceptedBy, invitee.account.id)
    assert.deepEqual([res.body.member.roles, res.body.member.privileges], [['nurse'], ['billing']])
    const seen = await joined
    assert.equal(seen.uid, invitee.account.id)
    assert.equal(seen.name, 'Ines Invited', 'the live event names the new member')
    watcher.close()

    const members = await http(server.url, 'GET', `/organization-members?organization=${org}`, {
      token: invitee.token
    })
    assert.equal(members.status, 200)
    assert.ok(members.body.data.some((m: any) => m.uid === invitee.account.id))

    // Audited like every membership write, with the invitee as the actor.
    const audit = await http(
      server.url,
      'GET',
      `/audit-events?account=${invitee.account.id}&service=organization-members`,
      { token: invitee.token }
    )
    assert.deepEqual(
      audit.body.data.map((e: any) => [e.action, e.actor, e.facility]),
      [['member-add', invitee.account.id, org]]
    )

    // Single use.
    const again = await accept(server.url, invitee.token, { code })
    assert.equal(again.status, 400)
    assert.equal(again.body.errors[0].field, 'code')
    assert.match(again.body.message, /already been used/)
  })

  it('accepts over Socket.IO for an account that existed before the invitation', async () => {
    const invitee = await signUp(server.url)
    const { code } = await invite(invitee.email)
    const socket = socketClient(server.url)
    await socket.client.authenticate({ strategy: 'jwt', accessToken: invitee.token })
    const result = await socket.client.service('organization-invitations').accept({ code })
    assert.equal(result.member.uid, invitee.account.id)
    assert.equal(result.member.organization, org)
    socket.close()
  })

  it('refuses a code applied by another address, then lets the right account use it', async () => {
    const email = uniqueEmail('doctor')
    const { code } = await invite(email)
    const other = await signUp(server.url)
    const wrong = await accept(server.url, other.token, { code })
    assert.equal(wrong.status, 403)
    assert.equal(wrong.body.errors[0].field, 'code')
    assert.equal((await accept(server.url, undefined, { code })).status, 401)
    const invitee = await signUp(server.url, { email })
    assert.equal((await accept(server.url, invitee.token, { code })).status, 200)
  })

  it('inviting again replaces the code; the old one no longer works', async () => {
    const email = uniqueEmail('again')
    const first = await invite(email, { roles: ['nurse'] })
    const second = await invite(email, { roles: ['physician'] })
    const list = await http(
      server.url,
      'GET',
      `/organization-invitations?organization=${org}&email=${email}`,
      {
        token: owner.token
      }
    )
    assert.equal(list.body.total, 1, 'one invitation per address')
    const invitee = await signUp(server.url, { email })
    const old = await accept(server.url, invitee.token, { code: first.code })
    assert.equal(old.status, 400)
    assert.equal(old.body.errors[0].field, 'code')
    const res = await accept(server.url, invitee.token, { code: second.code })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.member.roles, ['physician'])
  })

  it('a withdrawn invitation (remove) no longer works', async () => {
    const email = uniqueEmail('revoked')
    const { invitation, code } = await invite(email)
    const removed = await http(server.url, 'DELETE', `/organization-invitations/${invitation.id}`, {
      token: owner.token
    })
    assert.equal(removed.status, 200)
    const invitee = await signUp(server.url, { email })
    assert.equal((await accept(server.url, invitee.token, { code })).status, 400)
  })

  it('says which field is wrong, and refuses to invite a member again', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ organization: org, email: 'not-an-email' }, 'email'],
      [{ organization: org }, 'email'],
      [{ email: uniqueEmail() }, 'organization'],
      [{ organization: org, email: uniqueEmail(), roles: 'nurse' }, 'roles'],
      [{ organization: org, email: uniqueEmail(), status: 'accepted' }, 'status'],
      [{ organization: org, email: uniqueEmail(), codeHash: 'x' }, 'codeHash']
    ]
    for (const [body, field] of cases) {
      const res = await http(server.url, 'POST', '/organization-invitations', { token: owner.token, body })
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.status}`)
      assert.ok(JSON.stringify(res.body).includes(field), `${field}: ${JSON.stringify(res.body)}`)
    }
    const self = await http(server.url, 'POST', '/organization-invitations', {
      token: owner.token,
      body: { organization: org, email: owner.email.toUpperCase() }
    })
    assert.equal(self.status, 409)
    assert.equal(self.body.errors[0].field, 'email')

    const invitee = await signUp(server.url)
    for (const [body, field] of [
      [{}, 'code'],
      [{ code: 12 }, 'code'],
      [{ code: 'AAAAA-BBBBB' }, 'code'],
      [{ code: 'x', extra: 1 }, 'extra']
    ] as const) {
      const res = await accept(server.url, invitee.token, body)
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.status}`)
      assert.equal(res.body.errors[0].field, field)
    }
    const patch = await refusal(
      (async () => {
        const res = await http(server.url, 'PATCH', '/organization-invitations/x', {
          token: owner.token,
          body: {}
        })
        if (res.status !== 405) return res
        throw res
      })()
    )
    assert.equal(patch.status, 405)
  })

  it('lasts as long as INVITATION_EXPIRES_IN_MS says, and the mail says how long in words', async () => {
    const HOUR = 3600 * 1000
    server.app.set('invitations', { expiresInMs: 36 * HOUR })
    try {
      const email = uniqueEmail('short')
      const { invitation, mail, code } = await invite(email)
      assert.equal(invitation.expiresAt - invitation.createdAt, 36 * HOUR)
      assert.match(mail.text, /expires in 1 day, 12 hours\./)
      const invitee = await signUp(server.url, { email })
      const moved = await http(server.url, 'PATCH', '/sandbox/clock', {
        token: admin,
        body: { advanceMs: 36 * HOUR + 1000 }
      })
      assert.equal(moved.status, 200, JSON.stringify(moved.body))
      const res = await accept(server.url, invitee.token, { code })
      assert.equal(res.status, 400)
      assert.equal(res.body.errors[0].field, 'code')
      assert.match(res.body.message, /expired/)
    } finally {
      server.app.set('invitations', { expiresInMs: 7 * 24 * HOUR })
    }
  })

  it('an invitation expires after seven days (on the sandbox clock)', async () => {
    const email = uniqueEmail('late')
    const { code } = await invite(email)
    const invitee = await signUp(server.url, { email })
    const moved = await http(server.url, 'PATCH', '/sandbox/clock', {
      token: admin,
      body: { advanceMs: 7 * 24 * 3600 * 1000 + 1000 }
    })
    assert.equal(moved.status, 200, JSON.stringify(moved.body))
    const res = await accept(server.url, invitee.token, { code })
    assert.equal(res.status, 400)
    assert.equal(res.body.errors[0].field, 'code')
    assert.match(res.body.message, /expired/)
  })
})
