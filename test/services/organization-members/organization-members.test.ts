import assert from 'node:assert/strict'
import { startServer, restClient, signUp, type TestServer } from '../../helpers/app'
import { accountIsMemberWith } from '../../../src/access/context'

describe('organization-members', () => {
  let server: TestServer
  let api: ReturnType<typeof restClient>
  let owner: Awaited<ReturnType<typeof signUp>>
  let nurse: Awaited<ReturnType<typeof signUp>>
  let stranger: Awaited<ReturnType<typeof signUp>>
  let org: string

  before(async () => {
    server = await startServer()
    api = restClient(server.url)
    owner = await signUp(server.url, { organization: { name: 'Members Clinic', type: 'facility' } })
    org = owner.organization.id
    nurse = await signUp(server.url, { firstName: 'Nora', lastName: 'Nightingale' })
    stranger = await signUp(server.url)
    const res = await api.post(
      '/organization-members',
      { organization: org, uid: nurse.account.id, roles: ['nurse'], privileges: ['billing'] },
      { token: owner.token }
    )
    assert.equal(res.status, 201)
    assert.equal(res.body.superadmin, false)
  })
  after(() => server.close())

  it('lets members list their organization and filter by uid', async () => {
    const all = await api.get(`/organization-members?organization=${org}`, { token: nurse.token })
    assert.equal(all.body.total, 2)
    const one = await api.get(`/organization-members?organization=${org}&uid=${nurse.account.id}`, {
      token: nurse.token
    })
    assert.deepEqual(
      one.body.data.map((m: any) => m.roles),
      [['nurse']]
    )
  })

  it("shows each member's display name to colleagues (never stored, null without one)", async () => {
    const all = await api.get(`/organization-members?organization=${org}&$sort[createdAt]=1`, {
      token: nurse.token
    })
    const byUid = Object.fromEntries(all.body.data.map((m: any) => [m.uid, m.name]))
    assert.equal(byUid[nurse.account.id], 'Nora Nightingale')
    assert.ok(owner.account.id in byUid)
    const [member] = all.body.data.filter((m: any) => m.uid === nurse.account.id)
    assert.ok(!JSON.stringify(member).includes(nurse.email), 'no email on a member')
    const stored = await server.app.service('organization-members')._get(member.id)
    assert.equal((stored as any).name, undefined)
    const got = await api.get(`/organization-members/${member.id}`, { token: owner.token })
    assert.equal(got.body.name, 'Nora Nightingale')
  })

  it('shows strangers nothing', async () => {
    const res = await api.get(`/organization-members?organization=${org}`, { token: stranger.token })
    assert.equal(res.status, 200)
    assert.equal(res.body.total, 0)
  })

  it('lets only superadmins add members (403 for a plain member, 401 anonymous)', async () => {
    const res = await api.post(
      '/organization-members',
      { organization: org, uid: stranger.account.id },
      { token: nurse.token }
    )
    assert.equal(res.status, 403)
    assert.equal(
      (await api.post('/organization-members', { organization: org, uid: stranger.account.id })).status,
      401
    )
  })

  it('refuses a duplicate membership with 409 and an unknown account with 400', async () => {
    const dup = await api.post(
      '/organization-members',
      { organization: org, uid: nurse.account.id },
      { token: owner.token }
    )
    assert.equal(dup.status, 409)
    const unknown = await api.post(
      '/organization-members',
      { organization: org, uid: '000000000000000000000000' },
      { token: owner.token }
    )
    assert.equal(unknown.status, 400)
    assert.equal(unknown.body.errors[0].field, 'uid')
    const bad = await api.post(
      '/organization-members',
      { organization: org, uid: stranger.account.id, roles: 'nurse' },
      { token: owner.token }
    )
    assert.equal(bad.status, 400)
    assert.equal(bad.body.errors[0].field, 'roles')
  })

  it('lets superadmins change roles; members cannot (403)', async () => {
    const [membership] = (
      await api.get(`/organization-members?organization=${org}&uid=${nurse.account.id}`, {
        token: owner.token
      })
    ).body.data
    assert.equal(
      (
        await api.patch(
          `/organization-members/${membership.id}`,
          { roles: ['doctor'] },
          { token: nurse.token }
        )
      ).status,
      403
    )
    const ok = await api.patch(
      `/organization-members/${membership.id}`,
      { roles: ['nurse', 'triage'] },
      { token: owner.token }
    )
    assert.equal(ok.status, 200)
    assert.deepEqual(ok.body.roles, ['nurse', 'triage'])
    assert.deepEqual(ok.body.privileges, ['billing'], 'fields not sent are kept')
    assert.equal(ok.body.superadmin, false)
    const [mine] = (
      await api.get(`/organization-members?organization=${org}&uid=${owner.account.id}`, {
        token: owner.token
      })
    ).body.data
    const own = await api.patch(
      `/organization-members/${mine.id}`,
      { roles: ['director'] },
      { token: owner.token }
    )
    assert.equal(own.body.superadmin, true, 'a patch without superadmin keeps it')
    const moveOrg = await api.patch(
      `/organization-members/${membership.id}`,
      { organization: 'other' },
      { token: owner.token }
    )
    assert.equal(moveOrg.status, 400)
  })

  it('keeps at least one superadmin (409)', async () => {
    const [mine] = (
      await api.get(`/organization-members?organization=${org}&uid=${owner.account.id}`, {
        token: owner.token
      })
    ).body.data
    const demote = await api.patch(
      `/organization-members/${mine.id}`,
      { superadmin: false },
      { token: owner.token }
    )
    assert.equal(demote.status, 409)
    assert.equal((await api.delete(`/organization-members/${mine.id}`, { token: owner.token })).status, 409)
  })

  it('answers "is account X a member of O with any of roles R or privileges P" in one function', async () => {
    const app = server.app
    assert.equal(await accountIsMemberWith(app, nurse.account.id, org), true)
    assert.equal(await accountIsMemberWith(app, nurse.account.id, org, { roles: ['nurse'] }), true)
    assert.equal(await accountIsMemberWith(app, nurse.account.id, org, { roles: ['doctor'] }), false)
    assert.equal(
      await accountIsMemberWith(app, nurse.account.id, org, { roles: ['doctor'], privileges: ['billing'] }),
      true
    )
    assert.equal(await accountIsMemberWith(app, nurse.account.id, org, { privileges: ['admin'] }), false)
    assert.equal(await accountIsMemberWith(app, nurse.account.id, org, { superadmin: true }), false)
    assert.equal(await accountIsMemberWith(app, owner.account.id, org, { superadmin: true }), true)
    assert.equal(await accountIsMemberWith(app, stranger.account.id, org), false)
    assert.equal(
      await accountIsMemberWith(app, stranger.account.id, org, { roles: [], privileges: [] }),
      false
    )
  })

  it('lets a member leave; afterwards the organization is invisible to them', async () => {
    const temp = await signUp(server.url)
    const added = await api.post(
      '/organization-members',
      { organization: org, uid: temp.account.id },
      { token: owner.token }
    )
    assert.equal((await api.get(`/organizations/${org}`, { token: temp.token })).status, 200)
    assert.equal(
      (await api.delete(`/organization-members/${added.body.id}`, { token: temp.token })).status,
      200
    )
    assert.equal((await api.get(`/organizations/${org}`, { token: temp.token })).status, 404)
  })
})
