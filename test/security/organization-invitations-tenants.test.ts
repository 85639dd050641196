// Tenant isolation of /organization-invitations, method × caller × transport. Organization A has a superadmin
// (`owner`, who manages members) and a plain member (`member`: no right to manage members); `outsider` is the
// superadmin of organization B. The owner reads, creates and withdraws A's invitations; the member gets 403 on
// create and sees none (404 by id); the outsider sees nothing (404); no token is 401; patch and update are 405;
// `accept` with a code meant for another address is 403 for every signed-in caller. Realtime events of an
// invitation reach only the owner.
import assert from 'node:assert/strict'
import {
  http,
  signUp,
  socketClient,
  startServer,
  uniqueEmail,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { rawEmit } from '../helpers/tenants'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp'

type Caller = 'owner' | 'member' | 'outsider' | 'anonymous'
const callers: Caller[] = ['anonymous', 'outsider', 'member', 'owner']
const PATH = 'organization-invitations'

const expected: Record<'get' | 'create' | 'remove', Record<Caller, number>> = {
  get: { owner: 200, member: 404, outsider: 404, anonymous: 401 },
  create: { owner: 201, member: 403, outsider: 404, anonymous: 401 },
  remove: { owner: 200, member: 404, outsider: 404, anonymous: 401 }
}

describe('tenant isolation of organization-invitations (method × caller × transport)', function () {
  this.timeout(60000)
  let smtp: TestSmtpServer
  let server: TestServer
  let owner: SignedUp
  let member: SignedUp
  let outsider: SignedUp
  let org: string
  let invitationId: string
  let code: string
  const sockets: Partial<Record<Caller, ReturnType<typeof socketClient>>> = {}
  const tokenOf = (caller: Caller) =>
    ({ owner: owner.token, member: member.token, outsider: outsider.token, anonymous: undefined })[caller]

  const invite = async (email = uniqueEmail('invitee')) => {
    const seen = smtp.messages.length
    const res = await http(server.url, 'POST', `/${PATH}`, {
      token: owner.token,
      body: { organization: org, email }
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= seen && m.to === email)
    return { id: res.body.id as string, code: /^code: (\S+)$/m.exec(mail.text)![1] }
  }

  before(async () => {
    smtp = await startSmtpServer()
    server = await startServer({
      messaging: { smtpUrl: smtp.url, mailFrom: 'clinic@example.test', smsWebhookUrl: '' }
    })
    ;[owner, member, outsider] = await Promise.all([
      signUp(server.url, { organization: { name: 'Clinic A', type: 'facility' } }),
      signUp(server.url),
      signUp(server.url, { organization: { name: 'Clinic B', type: 'facility' } })
    ])
    org = owner.organization.id
    const joined = await http(server.url, 'POST', '/organization-members', {
      token: owner.token,
      body: { organization: org, uid: member.account.id }
    })
    assert.equal(joined.status, 201)
    ;({ id: invitationId, code } = await invite())
    for (const caller of callers) {
      const socket = socketClient(server.url)
      const token = tokenOf(caller)
      if (token) await socket.client.authenticate({ strategy: 'jwt', accessToken: token })
      sockets[caller] = socket
    }
  })
  after(async () => {
    for (const socket of Object.values(sockets)) socket?.close()
    await server?.close()
    await smtp?.close()
  })

  for (const caller of callers) {
    describe(caller, () => {
      it('REST find, get, create, remove, patch, update, accept', async () => {
        const token = tokenOf(caller)
        const found = await http(server.url, 'GET', `/${PATH}?organization=${org}`, { token })
        if (caller === 'anonymous') assert.equal(found.status, 401)
        else {
          assert.equal(found.status, 200)
          assert.equal(
            found.body.data.some((i: any) => i.id === invitationId),
            caller === 'owner'
          )
          assert.ok(found.body.data.every((i: any) => i.codeHash === undefined))
        }
        const got = await http(server.url, 'GET', `/${PATH}/${invitationId}`, { token })
        assert.equal(got.status, expected.get[caller], JSON.stringify(got.body))

        const created = await http(server.url, 'POST', `/${PATH}`, {
          token,
          body: { organization: org, email: uniqueEmail('rest') }
        })
        assert.equal(created.status, expected.create[caller], JSON.stringify(created.body))

        const target = caller === 'owner' ? (await invite()).id : invitationId
        const removed = await http(server.url, 'DELETE', `/${PATH}/${target}`, { token })
        assert.equal(removed.status, expected.remove[caller], JSON.stringify(removed.body))

        for (const method of ['PATCH', 'PUT'])
          assert.equal(
            (
              await http(server.url, method, `/${PATH}/${invitationId}`, {
                token,
                body: { status: 'accepted' }
              })
            ).status,
            405
          )
        const accepted = await http(server.url, 'POST', `/${PATH}`, {
          token,
          body: { code },
          headers: { 'x-service-method': 'accept' }
        })
        assert.equal(accepted.status, caller === 'anonymous' ? 401 : 403, JSON.stringify(accepted.body))
      })

      it('Socket.IO find, get, create, remove, patch, update, accept', async () => {
        const socket = sockets[caller]!.socket
        const found = await rawEmit(socket, 'find', PATH, [{ organization: org }])
        if (caller === 'anonymous') assert.equal(found.error?.code, 401, JSON.stringify(found))
        else
          assert.equal(
            found.result.data.some((i: any) => i.id === invitationId),
            caller === 'owner'
          )
        const got = await rawEmit(socket, 'get', PATH, [invitationId, {}])
        if (caller === 'owner') assert.equal(got.result?.id, invitationId)
        else assert.equal(got.error?.code, expected.get[caller], JSON.stringify(got))

        const created = await rawEmit(socket, 'create', PATH, [
          { organization: org, email: uniqueEmail('io') },
          {}
        ])
        if (caller === 'owner') assert.equal(created.result?.status, 'pending', JSON.stringify(created))
        else assert.equal(created.error?.code, expected.create[caller], JSON.stringify(created))

        const target = caller === 'owner' ? (await invite()).id : invitationId
        const removed = await rawEmit(socket, 'remove', PATH, [target, {}])
        if (caller === 'owner') assert.equal(removed.result?.id, target)
        else assert.equal(removed.error?.code, expected.remove[caller], JSON.stringify(removed))

        for (const method of ['patch', 'update']) {
          const answer = await rawEmit(socket, method, PATH, [invitationId, { status: 'accepted' }, {}])
          assert.equal(answer.error?.code, 405, `${method}: ${JSON.stringify(answer)}`)
        }
        const accepted = await rawEmit(socket, 'accept', PATH, [{ code }, {}])
        assert.equal(accepted.error?.code, caller === 'anonymous' ? 401 : 403, JSON.stringify(accepted))
      })
    })
  }

  describe('afterwards', () => {
    it('the invitation is still pending after every refused write', async () => {
      const got = await http(server.url, 'GET', `/${PATH}/${invitationId}`, { token: owner.token })
      assert.equal(got.status, 200)
      assert.equal(got.body.status, 'pending')
    })

    it('realtime: only the owner receives the events of an invitation', async () => {
      const received: Caller[] = []
      for (const caller of callers)
        sockets[caller]!.client.service(PATH).on('created', () => received.push(caller))
      const removed: string[] = []
      sockets.owner!.client.service(PATH).on('removed', (doc: any) => removed.push(doc.id))
      const { id } = await invite()
      await http(server.url, 'DELETE', `/${PATH}/${id}`, { token: owner.token })
      const { id: second } = await invite()
      await http(server.url, 'DELETE', `/${PATH}/${second}`, { token: owner.token })
      // Events on one connection arrive in order: the last removal seen, every earlier event was delivered.
      await waitUntil(() => removed.includes(second), 5000, 'the removal event')
      assert.deepEqual(received, ['owner', 'owner'])
    })
  })
})
