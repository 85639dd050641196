// Privilege and configuration changes in the audit trail, client-level: memberships added, changed (roles,
// privileges, superadmin) and removed, MFA on and off, password, identity and OAuth link changes, admin promotion,
// webhooks registered, changed and removed — each with its actor, the account it is about, the privilege fields
// before and after (never a secret or hash), and seen by that account, the organization's superadmins and admins
// but not by outsiders.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import {
  http,
  restClient,
  signUp,
  startServer,
  tempDir,
  testMongoUrl,
  uniqueEmail,
  type SignedUp
} from '../../helpers/app'
import {
  assertNoSecrets,
  auth,
  GOOGLE_REDIRECT,
  mailedCode,
  startAuthTestbed,
  totp,
  type AuthTestbed
} from '../../helpers/auth'

const adminEmail = 'privileges-admin@example.test'
const adminPassword = 'Admin password 1'

const events = async (url: string, token: string, query: string) => {
  const res = await http(url, 'GET', `/audit-events${query}`, { token })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data as any[] // `as any`: JSON answers are untyped
}

describe('audit trail: privilege and configuration changes', function () {
  this.timeout(60000)
  let bed: AuthTestbed
  let url: string
  let admin: { token: string; id: string }
  let owner: SignedUp // superadmin of the clinic
  let doctor: SignedUp
  let stranger: SignedUp

  before(async () => {
    bed = await startAuthTestbed({
      admin: { email: adminEmail, password: adminPassword, promoteExisting: false },
      webhooks: { allowPrivate: true } as any
    })
    url = bed.url
    const login = await auth(url, { email: adminEmail, password: adminPassword })
    admin = { token: login.body.accessToken, id: login.body.account.id }
    ;[owner, doctor, stranger] = await Promise.all([
      signUp(url, { organization: { name: 'Privilege clinic', type: 'facility' } }),
      signUp(url),
      signUp(url)
    ])
  })
  after(async () => {
    await bed?.close()
  })

  it('records a membership added, its roles, privileges and superadmin changed, and its removal, with before/after; the member sees them', async () => {
    const api = restClient(url, owner.token)
    const organization = owner.organization.id
    const added = await api.post('/organization-members', {
      organization,
      uid: doctor.account.id,
      roles: ['doctor']
    })
    assert.equal(added.status, 201, JSON.stringify(added.body))
    const changed = await api.patch(`/organization-members/${added.body.id}`, {
      roles: ['doctor', 'billing'],
      privileges: ['billing']
    })
    assert.equal(changed.status, 200, JSON.stringify(changed.body))
    const promoted = await api.patch(`/organization-members/${added.body.id}`, { superadmin: true })
    assert.equal(promoted.status, 200)
    // A patch that changes nothing is no privilege change.
    assert.equal(
      (await api.patch(`/organization-members/${added.body.id}`, { superadmin: true })).status,
      200
    )
    const removed = await api.delete(`/organization-members/${added.body.id}`)
    assert.equal(removed.status, 200, JSON.stringify(removed.body))

    // The member sees every change of their own rights, newest first.
    const seen = await events(url, doctor.token, `?account=${doctor.account.id}&service=organization-members`)
    assert.deepEqual(
      seen.map((event) => event.action),
      ['member-remove', 'privilege-change', 'privilege-change', 'member-add']
    )
    const [remove, superadmin, roles, add] = seen
    for (const event of seen) {
      assert.equal(event.actor, owner.account.id)
      assert.equal(event.account, doctor.account.id)
      assert.equal(event.facility, organization)
      assert.deepEqual(event.ids, [added.body.id])
      assert.equal(event.outcome, 'allowed')
      assert.ok(event.requestId, 'the request id of the call')
    }
    assert.equal(add.status, 201)
    assert.equal(add.before, undefined)
    assert.deepEqual(add.after, { roles: ['doctor'], privileges: [], superadmin: false })
    assert.deepEqual(roles.before, { roles: ['doctor'], privileges: [], superadmin: false })
    assert.deepEqual(roles.after, {
      roles: ['doctor', 'billing'],
      privileges: ['billing'],
      superadmin: false
    })
    assert.deepEqual(superadmin.before, {
      roles: ['doctor', 'billing'],
      privileges: ['billing'],
      superadmin: false
    })
    assert.deepEqual(superadmin.after, {
      roles: ['doctor', 'billing'],
      privileges: ['billing'],
      superadmin: true
    })
    assert.deepEqual(remove.before, {
      roles: ['doctor', 'billing'],
      privileges: ['billing'],
      superadmin: true
    })
    assert.equal(remove.after, undefined)

    // The organization's superadmin sees the organization's membership events; an admin too; an outsider none.
    const ownerSees = await events(url, owner.token, `?facility=${organization}&action=privilege-change`)
    assert.equal(ownerSees.length, 2)
    const adminSees = await events(
      url,
      admin.token,
      `?account=${doctor.account.id}&service=organization-members`
    )
    assert.equal(adminSees.length, 4)
    assert.deepEqual(await events(url, stranger.token, `?account=${doctor.account.id}`), [])
    assert.equal((await http(url, 'GET', `/audit-events/${roles.id}`, { token: stranger.token })).status, 404)
  })

  it('records the memberships an organization removal takes with it, by the one who removed it', async () => {
    const boss = await signUp(url, { organization: { name: 'Short-lived clinic', type: 'facility' } })
    const member = await signUp(url)
    const added = await restClient(url, boss.token).post('/organization-members', {
      organization: boss.organization.id,
      uid: member.account.id,
      roles: ['nurse']
    })
    assert.equal(added.status, 201)
    assert.equal(
      (await restClient(url, boss.token).delete(`/organization-members/${added.body.id}`)).status,
      200
    )
    assert.equal(
      (
        await restClient(url, boss.token).post('/organization-members', {
          organization: boss.organization.id,
          uid: member.account.id,
          roles: ['nurse']
        })
      ).status,
      201
    )
    assert.equal(
      (await restClient(url, boss.token).delete(`/organizations/${boss.organization.id}`)).status,
      200
    )
    const removals = await events(url, admin.token, `?facility=${boss.organization.id}&action=member-remove`)
    assert.deepEqual(
      removals.map((event) => [event.account, event.actor]).sort(),
      [
        [boss.account.id, boss.account.id],
        [member.account.id, boss.account.id],
        [member.account.id, boss.account.id]
      ].sort()
    )
  })

  it('records MFA turned on and off with before/after, never the secret or a code; the account sees both', async () => {
    const user = await signUp(url)
    const setup = await auth(url, { action: 'setupMFA', password: user.password }, user.token)
    assert.equal(setup.status, 201, JSON.stringify(setup.body))
    const on = await auth(
      url,
      { action: 'applyActionCode', code: setup.body.code, payload: { mfaCode: totp(setup.body.secret) } },
      user.token
    )
    assert.equal(on.status, 201, JSON.stringify(on.body))
    const login = await auth(url, {
      email: user.email,
      password: user.password,
      mfaCode: totp(setup.body.secret, -1)
    })
    assert.equal(login.status, 201, JSON.stringify(login.body))
    const off = await auth(
      url,
      { action: 'disableMFA', password: user.password, mfaCode: totp(setup.body.secret, 1) },
      login.body.accessToken
    )
    assert.equal(off.status, 201, JSON.stringify(off.body))

    const relogin = await auth(url, { email: user.email, password: user.password })
    const seen = await events(
      url,
      relogin.body.accessToken,
      `?account=${user.account.id}&service=authentication`
    )
    assert.deepEqual(
      seen.map((event) => [event.action, event.before, event.after, event.actor]),
      [
        ['mfa-disable', { mfaEnabled: true }, { mfaEnabled: false }, user.account.id],
        ['mfa-enable', { mfaEnabled: false }, { mfaEnabled: true }, user.account.id]
      ]
    )
    assertNoSecrets(seen, [setup.body.secret, setup.body.code, user.password])
    assert.deepEqual(await events(url, stranger.token, `?account=${user.account.id}`), [])
  })

  it('records a password change and an email change (the old and new email, never a password or its hash)', async () => {
    const user = await signUp(url)
    const newPassword = 'A brand new password 2'
    let seenMails = bed.smtp.messages.length
    assert.equal(
      (await auth(url, { action: 'changePassword', password: user.password, newPassword }, user.token))
        .status,
      201
    )
    const passwordCode = await mailedCode(bed.smtp, user.email, 'Confirm Password Change', seenMails)
    assert.equal((await auth(url, { action: 'applyActionCode', code: passwordCode })).status, 201)

    const login = await auth(url, { email: user.email, password: newPassword })
    assert.equal(login.status, 201)
    const newEmail = uniqueEmail('moved')
    seenMails = bed.smtp.messages.length
    const change = await auth(
      url,
      { action: 'changeIdentity', email: newEmail, password: newPassword },
      login.body.accessToken
    )
    assert.equal(change.status, 201, JSON.stringify(change.body))
    const identityCode = await mailedCode(bed.smtp, newEmail, 'Confirm Change Identity', seenMails)
    assert.equal((await auth(url, { action: 'applyActionCode', code: identityCode })).status, 201)

    const relogin = await auth(url, { email: newEmail, password: newPassword })
    const seen = await events(
      url,
      relogin.body.accessToken,
      `?account=${user.account.id}&service=authentication`
    )
    assert.deepEqual(
      seen.map((event) => [event.action, event.before, event.after]),
      [
        ['identity-change', { email: user.email }, { email: newEmail }],
        ['password-change', { passwordSet: true }, { passwordSet: true }]
      ]
    )
    assertNoSecrets(seen, [user.password, newPassword, passwordCode, identityCode])
  })

  it('records an OAuth identity link (which provider, not its user id)', async () => {
    const user = await signUp(url)
    const connect = await auth(url, { action: 'connectOAuthAccount', provider: 'google' }, user.token)
    assert.equal(connect.status, 201, JSON.stringify(connect.body))
    const providerUser = `g-${Date.now()}`
    const oauthCode = bed.google.issueCode(
      { id: providerUser, email: uniqueEmail('g') },
      { redirectUri: GOOGLE_REDIRECT }
    )
    const link = await auth(
      url,
      {
        action: 'applyActionCode',
        code: connect.body.code,
        payload: { code: oauthCode, redirectURI: GOOGLE_REDIRECT }
      },
      user.token
    )
    assert.equal(link.status, 201, JSON.stringify(link.body))
    const [event] = await events(url, user.token, `?account=${user.account.id}&action=identity-link`)
    assert.ok(event, 'the link is recorded')
    assert.deepEqual(
      [event.before, event.after, event.actor],
      [{ googleLinked: false }, { googleLinked: true }, user.account.id]
    )
    assertNoSecrets(event, [providerUser])
  })

  it('records webhook registration, change and removal: destination origin, events, active — never the secret or the path', async () => {
    const api = restClient(url, owner.token)
    const registered = await api.post('/webhook-events', {
      organization: owner.organization.id,
      url: 'http://127.0.0.1:9/hooks/secret-token-in-path',
      events: 'medical-records'
    })
    assert.equal(registered.status, 201, JSON.stringify(registered.body))
    assert.equal((await api.patch(`/webhooks/${registered.body.id}`, { active: false })).status, 200)
    assert.equal((await api.delete(`/webhooks/${registered.body.id}`)).status, 200)
    const own = await restClient(url, doctor.token).post('/webhook-events', {
      account: doctor.account.id,
      url: 'http://127.0.0.1:9/mine',
      events: '*'
    })
    assert.equal(own.status, 201, JSON.stringify(own.body))

    const seen = await events(url, owner.token, `?facility=${owner.organization.id}&service=webhooks`)
    assert.deepEqual(
      seen.map((event) => [event.action, event.before, event.after, event.actor]),
      [
        [
          'webhook-remove',
          { destination: 'http://127.0.0.1:9', events: 'medical-records', active: false },
          undefined,
          owner.account.id
        ],
        [
          'webhook-change',
          { destination: 'http://127.0.0.1:9', events: 'medical-records', active: true },
          { destination: 'http://127.0.0.1:9', events: 'medical-records', active: false },
          owner.account.id
        ],
        [
          'webhook-add',
          undefined,
          { destination: 'http://127.0.0.1:9', events: 'medical-records', active: true },
          owner.account.id
        ]
      ]
    )
    const text = JSON.stringify(seen)
    assert.ok(!text.includes(registered.body.secret) && !text.includes('secret-token-in-path'))
    // An account's webhook: the account sees it (as the one it is about), an outsider does not.
    const [mine] = await events(url, doctor.token, `?account=${doctor.account.id}&action=webhook-add`)
    assert.deepEqual(
      [mine.ids, mine.after],
      [[own.body.id], { destination: 'http://127.0.0.1:9', events: '*', active: true }]
    )
    assert.deepEqual(await events(url, stranger.token, '?service=webhooks'), [])
  })

  it('records the promotion of the admin the server created at start (actor null); the admin sees it', async () => {
    const [promotion] = await events(url, admin.token, `?account=${admin.id}&action=admin-promote`)
    assert.ok(promotion, 'the promotion is recorded')
    assert.deepEqual(
      [promotion.actor, promotion.before, promotion.after, promotion.service],
      [null, { admin: false }, { admin: true }, 'accounts']
    )
  })
})

describe('audit trail: promotion of an existing account to admin', function () {
  this.timeout(60000)

  it('records ADMIN_PROMOTE_EXISTING promoting an account that signed up with the admin email', async () => {
    const dataDir = tempDir()
    const mongodb = testMongoUrl()
    try {
      let server = await startServer({ dataDir, mongodb })
      const email = uniqueEmail('future-admin')
      const user = await signUp(server.url, { email, password: adminPassword })
      await server.close({ keep: true })
      server = await startServer({
        dataDir,
        mongodb,
        admin: { email, password: adminPassword, promoteExisting: true }
      })
      try {
        const login = await auth(server.url, { email, password: adminPassword })
        const [promotion] = await events(
          server.url,
          login.body.accessToken,
          `?account=${user.account.id}&action=admin-promote`
        )
        assert.ok(promotion, 'the promotion is recorded')
        assert.deepEqual(
          [promotion.actor, promotion.before, promotion.after],
          [null, { admin: false }, { admin: true }]
        )
      } finally {
        await server.close()
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
