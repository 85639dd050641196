// Removing a record or an encounter removes its files and their bytes durably: the real server runs as a child
// process and is killed (SIGKILL, the test-only FAULT_AFTER_STEP hook) right after each step of the removal; started
// again on the same data, its recovery finishes the removal — the parent gone, no file of it left, no bytes left.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { restClient, signUp, tempDir, testMongoUrl, type SignedUp } from '../../helpers/app'
import { startChild, type ChildServer } from '../../helpers/child'
import { pdf, png, putBytes, sha256 } from '../../attachments/fixtures'

const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((entry) =>
          entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]
        )
    : []

describe('attachments: the removal of a record or an encounter survives kill -9 between its steps', function () {
  this.timeout(300_000)
  const dataDir = tempDir('clinic-files-crash-')
  const mongodb = testMongoUrl()
  let child: ChildServer | undefined
  let owner: SignedUp
  let patient: SignedUp

  const env = (step?: string) => ({
    DATA_DIR: dataDir,
    MONGODB_URL: mongodb,
    BILLING_STALE_AFTER_MS: '0',
    ...(step ? { FAULT_AFTER_STEP: step } : {})
  })
  const root = path.join(dataDir, 'attachments')
  const keptFiles = () => filesUnder(root).filter((f) => !path.relative(root, f).startsWith(`tmp${path.sep}`))

  before(async () => {
    child = await startChild(env(), 90_000)
    owner = await signUp(child.url, { organization: { name: 'Clinic K', type: 'facility' } })
    patient = await signUp(child.url)
    await child.kill()
    child = undefined
  })
  afterEach(async () => {
    await child?.kill('SIGKILL')
    child = undefined
  })
  after(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  /** A ready file on `parent`, its bytes uploaded to the signed URL. */
  const readyFile = async (
    url: string,
    parent: Record<string, string>,
    bytes: Buffer,
    contentType: string
  ) => {
    const api = restClient(url, owner.token)
    const created = await api.post('/attachments', {
      ...parent,
      filename: 'file',
      contentType,
      size: bytes.length,
      sha256: sha256(bytes)
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const put = await putBytes(created.body.uploadUrl, bytes, contentType)
    assert.equal(put.status, 200, JSON.stringify(put.body))
    return created.body.id as string
  }

  const parents = {
    record: async (url: string) => {
      const res = await restClient(url, owner.token).post('/medical-records', {
        type: 'attachment',
        facility: owner.organization.id,
        patient: patient.account.id
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return { path: 'medical-records', field: 'record', id: res.body.id as string }
    },
    encounter: async (url: string) => {
      const res = await restClient(url, owner.token).post('/medical-encounters', {
        facility: owner.organization.id,
        patient: patient.account.id
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      return { path: 'medical-encounters', field: 'encounter', id: res.body.id as string }
    }
  }

  const cases: [keyof typeof parents, string][] = [
    ['record', 'record-cascade:marked'],
    ['record', 'record-cascade:attachments-removed'],
    ['encounter', 'encounter-cascade:marked'],
    ['encounter', 'encounter-cascade:attachments-removed'],
    // The files' documents removed, their bytes not yet released: the start-up sweep removes the bytes.
    ['record', 'attachments:documents-removed'],
    ['encounter', 'attachments:documents-removed']
  ]
  for (const [kind, step] of cases) {
    it(`${kind}: killed after ${step}, the restart finishes the removal with its files and bytes`, async () => {
      child = await startChild(env(step), 90_000)
      const parent = await parents[kind](child.url)
      const files = [
        await readyFile(child.url, { [parent.field]: parent.id }, pdf(2000 + step.length), 'application/pdf'),
        await readyFile(child.url, { [parent.field]: parent.id }, png(500 + step.length), 'image/png')
      ]
      assert.equal(keptFiles().length, 2)
      // The DELETE never gets its answer: the process dies right after the step.
      await restClient(child.url, owner.token)
        .delete(`/${parent.path}/${parent.id}`)
        .catch(() => undefined)
      const exit = await child.exited
      assert.equal(exit.signal, 'SIGKILL', child.output())
      child = await startChild(env(), 90_000)
      const api = restClient(child.url, owner.token)
      assert.equal((await api.get(`/${parent.path}/${parent.id}`)).status, 404)
      for (const id of files) assert.equal((await api.get(`/attachments/${id}`)).status, 404)
      const left = await api.get(`/attachments?${parent.field}=${parent.id}`)
      assert.equal(left.body.total, 0)
      assert.deepEqual(keptFiles(), [])
      await child.kill()
      child = undefined
    })
  }
})
