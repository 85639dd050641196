// Directory entries converge by themselves: a failed entry rebuild leaves the organization write answered as it
// succeeded and the entry catches up within 2 s; and a server killed (SIGKILL) between an organization write and
// its entry rebuild — create, rename, removal — has the entries right as soon as it is started again on the same
// data (the test-only FAULT_AFTER_STEP hook, honoured only with NODE_ENV=test, kills the child right there).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import {
  http,
  signUp,
  startServer,
  tempDir,
  testMongoUrl,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { startChild, type ChildServer } from '../helpers/child'

const names = async (url: string, search: string): Promise<string[]> => {
  const res = await http(url, 'GET', `/bff/unified-directory?$search=${encodeURIComponent(search)}`)
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data.map((entry: any) => entry.name)
}

describe('directory entries converge after failed rebuilds', function () {
  this.timeout(60_000)
  let server: TestServer
  let owner: SignedUp

  before(async () => {
    server = await startServer()
    owner = await signUp(server.url)
  })
  after(() => server.close())
  afterEach(() => server.app.set('directoryFailRebuilds' as any, 0))

  it('answers the organization write as it succeeded, and the entry follows within 2 s', async () => {
    const created = await http(server.url, 'POST', '/organizations', {
      token: owner.token,
      body: { type: 'facility', name: 'Riverbend Clinic', directory: { listed: true } }
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    assert.deepEqual(await names(server.url, 'riverbend'), ['Riverbend Clinic'])

    // The next two rebuilds fail (as a store outage would): the first in the request, the second its first retry.
    server.app.set('directoryFailRebuilds' as any, 2)
    const renamed = await http(server.url, 'PATCH', `/organizations/${created.body.id}`, {
      token: owner.token,
      body: { name: 'Brookside Clinic' }
    })
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
    assert.equal(renamed.body.name, 'Brookside Clinic')
    const changed = Date.now()
    await waitUntil(
      async () => (await names(server.url, 'brookside')).length === 1,
      2000,
      'the entry to follow the rename'
    )
    assert.ok(Date.now() - changed <= 2000)
    assert.deepEqual(await names(server.url, 'riverbend'), [])
  })

  it('a failed rebuild after a create and a removal converges too', async () => {
    server.app.set('directoryFailRebuilds' as any, 1)
    const created = await http(server.url, 'POST', '/organizations', {
      token: owner.token,
      body: { type: 'facility', name: 'Quarry Hill Dental', directory: { listed: true } }
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    await waitUntil(async () => (await names(server.url, 'quarry')).length === 1, 2000, 'the new entry')

    server.app.set('directoryFailRebuilds' as any, 1)
    const removed = await http(server.url, 'DELETE', `/organizations/${created.body.id}`, {
      token: owner.token
    })
    assert.equal(removed.status, 200, JSON.stringify(removed.body))
    await waitUntil(async () => (await names(server.url, 'quarry')).length === 0, 2000, 'the entry to go')
  })
})

describe('directory entries after a crash between the organization write and the entry write', function () {
  this.timeout(300_000) // (five child-process start-ups, each compiling the app: slow on a loaded machine)
  const dataDir = tempDir('clinic-directory-crash-')
  const mongodb = testMongoUrl()
  const env = (step?: string) => ({
    DATA_DIR: dataDir,
    MONGODB_URL: mongodb,
    ...(step ? { FAULT_AFTER_STEP: step } : {})
  })
  let child: ChildServer | undefined
  after(async () => {
    await child?.kill('SIGKILL')
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  /** Runs `request` on a child that dies right after `step`; checks it died there. */
  const crashDuring = async (step: string, request: (url: string) => Promise<unknown>) => {
    child = await startChild(env(step))
    await request(child.url).catch(() => undefined)
    const exit = await child.exited
    assert.equal(exit.signal, 'SIGKILL', `the child should have died after ${step}:\n${child.output()}`)
    assert.match(child.output(), new RegExp(`^FAULT ${step}$`, 'm'))
  }

  it('has created, renamed and removed organizations right in the directory after restart', async () => {
    child = await startChild(env())
    const owner = await signUp(child.url)
    const create = (url: string, name: string) =>
      http(url, 'POST', '/organizations', {
        token: owner.token,
        body: { type: 'facility', name, directory: { listed: true } }
      })
    const renamed = await create(child.url, 'Harbor View Clinic')
    const removed = await create(child.url, 'Old Mill Pharmacy')
    assert.equal(renamed.status, 201)
    assert.equal(removed.status, 201)
    assert.deepEqual(await names(child.url, 'harbor'), ['Harbor View Clinic'])
    assert.deepEqual(await names(child.url, 'mill'), ['Old Mill Pharmacy'])
    await child.kill('SIGTERM')

    await crashDuring('directory-source-written:organizations:patch', (url) =>
      http(url, 'PATCH', `/organizations/${renamed.body.id}`, {
        token: owner.token,
        body: { name: 'Seaside Clinic' }
      })
    )
    await crashDuring('directory-source-written:organizations:create', (url) =>
      create(url, 'Summit Wellness Center')
    )
    await crashDuring('directory-source-written:organizations:remove', (url) =>
      http(url, 'DELETE', `/organizations/${removed.body.id}`, { token: owner.token })
    )

    child = await startChild(env())
    // The first searches after the restart already answer right (they wait for the start-up repair).
    assert.deepEqual(await names(child.url, 'seaside'), ['Seaside Clinic'])
    assert.deepEqual(await names(child.url, 'harbor'), [])
    assert.deepEqual(await names(child.url, 'summit'), ['Summit Wellness Center'])
    assert.deepEqual(await names(child.url, 'mill'), [])
    await child.kill('SIGTERM')
    child = undefined
  })
})
