import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import {
  http,
  restClient,
  signUp,
  startServer,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { ADMIN } from '../helpers/subscriptions'
import { toFhir } from '../../src/fhir/mapping'
import { assertOutcome, assertValid, clinic, fhirCall, type Clinic } from './helpers'
import { seedRecords } from './seed'
import { pdf, putBytes } from '../attachments/fixtures'

/** The NDJSON lines of a file answer. */
const lines = (text: string) => text.split('\n').filter((line) => line.length > 0)

describe('FHIR bulk export (Group/:facility/$export)', function () {
  this.timeout(60_000)
  let server: TestServer
  let clinicA: Clinic
  let patients: SignedUp[]
  let stranger: SignedUp
  let records: any[]
  const seeded = { encounters: [] as any[] }
  let adminToken: string
  let fileId: string

  const kickOff = (
    who: SignedUp | undefined,
    query = '',
    prefer = 'respond-async',
    facility = clinicA.facility
  ) =>
    fhirCall(server.url, 'GET', `/fhir/Group/${facility}/$export${query}`, {
      token: who?.token,
      headers: prefer ? { prefer } : {}
    })

  /** Kicks an export off as the facility's superadmin and polls its status until it is no longer 202. */
  const exportAndWait = async (query = '') => {
    const started = await kickOff(clinicA.admin, query)
    assert.equal(started.status, 202, JSON.stringify(started.body))
    const location = started.headers.get('content-location') ?? ''
    assert.match(location, /\/fhir\/\$export-status\/[0-9a-f]+$/)
    const statusPath = location.slice(server.url.length)
    let answer = await fhirCall(server.url, 'GET', statusPath, { token: clinicA.admin.token })
    await waitUntil(
      async () => {
        answer = await fhirCall(server.url, 'GET', statusPath, { token: clinicA.admin.token })
        if (answer.status === 202) assert.ok(answer.headers.get('x-progress'))
        return answer.status !== 202
      },
      30_000,
      'the export to complete'
    )
    return { statusPath, answer }
  }

  // (fetch itself: a one-line NDJSON file is also JSON, which the JSON helper would parse)
  const download = async (url: string, token?: string) => {
    const response = await fetch(url, {
      headers: { accept: 'application/fhir+ndjson', ...(token ? { authorization: `Bearer ${token}` } : {}) }
    })
    return { status: response.status, headers: response.headers, body: await response.text() }
  }

  before(async () => {
    server = await startServer({
      admin: ADMIN,
      sandboxClock: true,
      fhir: { exportPollIntervalMs: 50, exportPageSize: 2 } as never
    })
    clinicA = await clinic(server)
    patients = [
      await signUp(server.url, { firstName: 'Ann' }),
      await signUp(server.url, { firstName: 'Ben' })
    ]
    stranger = await signUp(server.url, { organization: { name: 'Other clinic', type: 'facility' } })
    records = await seedRecords(
      server,
      clinicA.admin,
      clinicA.facility,
      patients.map((p) => p.account.id),
      seeded
    )
    const login = await http(server.url, 'POST', '/authentication', { body: { strategy: 'local', ...ADMIN } })
    adminToken = login.body.accessToken
    // One uploaded file (attachments service) on a record that is not finalized: a DocumentReference of its own.
    const open = records.find((record) => !record.finalizedAt)
    const bytes = pdf(32)
    const file = await restClient(server.url, clinicA.admin.token).post('/attachments', {
      record: open.id,
      filename: 'referral.pdf',
      contentType: 'application/pdf',
      size: bytes.length
    })
    assert.equal(file.status, 201, JSON.stringify(file.body))
    assert.equal((await putBytes(file.body.uploadUrl, bytes, 'application/pdf')).status, 200)
    fileId = file.body.id
  })
  after(() => server.close())

  it('refuses a kick-off without Prefer: respond-async with a 400 OperationOutcome', async () => {
    const answer = await kickOff(clinicA.admin, '', '')
    assertOutcome(answer, 400)
    assert.deepEqual(answer.body.issue[0].expression, ['Prefer'])
  })

  it("answers a member who is no superadmin 403, and a stranger's facility 404", async () => {
    assertOutcome(await kickOff(clinicA.staff), 403, 'forbidden')
    assertOutcome(await kickOff(stranger), 404, 'not-found')
    assertOutcome(await kickOff(undefined), 401)
  })

  it('refuses an unknown _type and a _since that is no instant with a 400 naming the parameter', async () => {
    const type = await kickOff(clinicA.admin, '?_type=Patient,Spaceship')
    assertOutcome(type, 400)
    assert.deepEqual(type.body.issue[0].expression, ['_type'])
    const since = await kickOff(clinicA.admin, '?_since=yesterday')
    assertOutcome(since, 400)
    assert.deepEqual(since.body.issue[0].expression, ['_since'])
  })

  it('exports the facility: a manifest whose NDJSON files hold one line per stored resource, each valid', async () => {
    const { answer } = await exportAndWait()
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const manifest = answer.body
    assert.equal(manifest.requiresAccessToken, true)
    assert.deepEqual(manifest.error, [])
    assert.ok(!Number.isNaN(Date.parse(manifest.transactionTime)))
    assert.match(manifest.request, /\/fhir\/Group\/[0-9a-f]+\/\$export$/)
    // What the mapping makes of the stored documents, counted by type.
    const expected = new Map<string, number>()
    const systemBase = server.app.get('fhir').systemBase
    for (const record of records)
      for (const resource of toFhir({ kind: 'record', doc: record }, { systemBase }))
        expected.set(resource.resourceType, (expected.get(resource.resourceType) ?? 0) + 1)
    expected.set('Patient', patients.length)
    expected.set('Encounter', seeded.encounters.length)
    expected.set('Organization', 1)
    expected.set('DocumentReference', (expected.get('DocumentReference') ?? 0) + 1) // the uploaded file
    for (const output of manifest.output) {
      const file = await download(output.url, clinicA.admin.token)
      assert.equal(file.status, 200)
      assert.match(file.headers.get('content-type') ?? '', /ndjson/)
      const resources = lines(String(file.body)).map((line) => JSON.parse(line))
      assert.equal(resources.length, output.count, output.type)
      for (const resource of resources) assert.equal(resource.resourceType, output.type)
      assertValid(resources)
      if (expected.has(output.type)) assert.equal(output.count, expected.get(output.type), output.type)
      if (output.type === 'DocumentReference') {
        const file = resources.find((resource) => JSON.stringify(resource).includes(fileId))
        assert.ok(file, 'the uploaded file is exported')
        assert.equal(file.content[0].attachment.url, `${server.url}/fhir/Binary/${fileId}`)
      }
    }
    for (const [type] of expected)
      assert.ok(
        manifest.output.some((o: any) => o.type === type),
        `${type} in the manifest`
      )
  })

  it('lets only the requester (or a superadmin of the facility) download the files, with the bearer', async () => {
    const { answer } = await exportAndWait('?_type=Patient')
    const url = answer.body.output[0].url
    assert.equal((await download(url)).status, 401)
    assert.equal((await download(url, clinicA.staff.token)).status, 404)
    assert.equal((await download(url, stranger.token)).status, 404)
    assert.equal((await download(url, clinicA.admin.token)).status, 200)
  })

  it('exports only the types named by _type', async () => {
    const { answer } = await exportAndWait('?_type=Patient,Organization')
    assert.deepEqual(answer.body.output.map((o: any) => o.type).sort(), ['Organization', 'Patient'])
    assert.equal(answer.body.output.find((o: any) => o.type === 'Patient').count, patients.length)
  })

  it('exports only what changed since _since', async () => {
    // Stored times are to the millisecond, `_since` to the second: the next second after the last record so far.
    const latest = Math.max(...records.map((record) => record.createdAt))
    const sinceMs = Math.floor(latest / 1000) * 1000 + 1000
    await waitUntil(() => Date.now() >= sinceMs, 5000, 'the next second')
    const since = new Date(sinceMs).toISOString().replace(/\.\d+Z$/, 'Z')
    const later = await seedRecords(server, clinicA.admin, clinicA.facility, [patients[0].account.id])
    const { answer } = await exportAndWait(`?_since=${since}`)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const systemBase = server.app.get('fhir').systemBase
    const expected = later.flatMap((record) => toFhir({ kind: 'record', doc: record }, { systemBase })).length
    const recordTypes = answer.body.output.filter(
      (o: any) =>
        !['Patient', 'Organization', 'Practitioner', 'PractitionerRole', 'Encounter'].includes(o.type)
    )
    assert.equal(answer.body.output.find((o: any) => o.type === 'Encounter')?.count, 1, 'the new encounter')
    assert.equal(
      recordTypes.reduce((sum: number, o: any) => sum + o.count, 0),
      expected
    )
    assert.ok(!answer.body.output.some((o: any) => o.type === 'Patient'), 'patients unchanged since')
  })

  it('records one audit event of the export with the counts by type', async () => {
    const api = restClient(server.url, clinicA.admin.token)
    const events = await api.get(`/audit-events?action=export&facility=${clinicA.facility}`)
    assert.equal(events.status, 200, JSON.stringify(events.body))
    assert.ok(events.body.data.length >= 1)
    const event = events.body.data[0]
    assert.equal(event.actor, clinicA.admin.account.id)
    assert.equal(event.service, 'fhir-export')
    assert.equal(typeof event.after, 'object')
    assert.ok(Object.values(event.after).every((count) => typeof count === 'number'))
  })

  it('cancels an export on DELETE: 202, then its status and files are gone', async () => {
    const started = await kickOff(clinicA.admin)
    const statusPath = (started.headers.get('content-location') ?? '').slice(server.url.length)
    const jobId = statusPath.split('/').pop() ?? ''
    const cancelled = await fhirCall(server.url, 'DELETE', statusPath, { token: clinicA.admin.token })
    assert.equal(cancelled.status, 202)
    assertOutcome(await fhirCall(server.url, 'GET', statusPath, { token: clinicA.admin.token }), 404)
    const folder = path.join(server.dataDir, 'fhir-exports', jobId)
    await waitUntil(() => !fs.existsSync(folder), 10_000, 'the files removed')
    assertOutcome(await fhirCall(server.url, 'DELETE', statusPath, { token: clinicA.admin.token }), 404)
  })

  it('removes the files FHIR_EXPORT_TTL_MS after completion: then status and files are 404', async () => {
    const { statusPath, answer } = await exportAndWait('?_type=Organization')
    const url = answer.body.output[0].url
    const jobId = statusPath.split('/').pop() ?? ''
    const moved = await restClient(server.url, adminToken).patch('/sandbox/clock', {
      advanceMs: server.app.get('fhir').exportTtlMs + 1000
    })
    assert.equal(moved.status, 200)
    assertOutcome(await fhirCall(server.url, 'GET', statusPath, { token: clinicA.admin.token }), 404)
    assert.equal((await download(url, clinicA.admin.token)).status, 404)
    assert.equal(fs.existsSync(path.join(server.dataDir, 'fhir-exports', jobId)), false)
  })
})
