// A bulk export and an import survive the process dying mid-way: the real server runs as a child process with the
// test-only fault hook (FAULT_AFTER_STEP) that SIGKILLs it right after the named step, then starts again on the same
// data. The export then completes from scratch (never a half manifest); the import is undone entirely.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { signUp, tempDir, testMongoUrl, uniqueEmail, waitUntil, type TestServer } from '../helpers/app'
import { startChild, type ChildServer } from '../helpers/child'
import { clinic, fhirCall } from './helpers'
import { seedRecords } from './seed'

describe('FHIR crash recovery (server killed mid-way, then restarted)', function () {
  this.timeout(120_000)
  const dataDir = tempDir('clinic-fhir-crash-')
  const mongodb = testMongoUrl()
  let child: ChildServer | undefined

  const env = (step?: string) => ({
    DATA_DIR: dataDir,
    MONGODB_URL: mongodb,
    FHIR_EXPORT_PAGE_SIZE: '1',
    FHIR_EXPORT_POLL_INTERVAL_MS: '50',
    FHIR_EXPORT_LEASE_MS: '1000',
    FHIR_IMPORT_STALE_AFTER_MS: '1',
    ...(step ? { FAULT_AFTER_STEP: step } : {})
  })
  const asServer = (url: string) => ({ url }) as TestServer

  afterEach(async () => {
    if (child) await child.kill('SIGKILL')
    child = undefined
  })
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }))

  it('completes an export whose process was killed mid-file, with every file whole', async () => {
    child = await startChild(env('fhir-export-page'))
    const server = asServer(child.url)
    const site = await clinic(server, 'Crash clinic')
    const patient = await signUp(child.url)
    const records = await seedRecords(server, site.admin, site.facility, [patient.account.id])
    const started = await fhirCall(child.url, 'GET', `/fhir/Group/${site.facility}/$export`, {
      token: site.admin.token,
      headers: { prefer: 'respond-async' }
    })
    assert.equal(started.status, 202, JSON.stringify(started.body))
    const statusPath = (started.headers.get('content-location') ?? '').slice(child.url.length)
    const jobId = statusPath.split('/').pop() ?? ''
    const exit = await child.exited
    assert.equal(exit.signal, 'SIGKILL')
    child = undefined
    // Killed mid-file: only temporary files, no complete one.
    const folder = path.join(dataDir, 'fhir-exports', jobId)
    const left = fs.existsSync(folder) ? fs.readdirSync(folder) : []
    assert.ok(
      left.every((name) => name.endsWith('.part')),
      left.join(', ')
    )

    child = await startChild(env())
    const restarted = child
    let answer: any
    await waitUntil(
      async () => {
        answer = await fhirCall(restarted.url, 'GET', statusPath, { token: site.admin.token })
        return answer.status !== 202
      },
      60_000,
      'the export after the restart'
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const files = fs.readdirSync(folder)
    assert.ok(
      files.every((name) => name.endsWith('.ndjson')),
      files.join(', ')
    )
    for (const output of answer.body.output) {
      const file = output.url.slice(output.url.indexOf('/fhir/'))
      const response = await fetch(restarted.url + file, {
        headers: { authorization: `Bearer ${site.admin.token}` }
      })
      const lines = (await response.text()).split('\n').filter(Boolean)
      assert.equal(lines.length, output.count, output.type)
    }
    const patients = answer.body.output.find((o: any) => o.type === 'Patient')
    assert.equal(patients.count, 1)
    assert.ok(records.length > 0)
  })

  it('undoes an import whose process was killed after its first create', async () => {
    child = await startChild(env('fhir-import-create'))
    const site = await clinic(asServer(child.url), 'Import crash clinic')
    const email = uniqueEmail('crash')
    const body = {
      resourceType: 'Bundle',
      type: 'collection',
      entry: [
        {
          fullUrl: 'urn:uuid:0b7c5d1e-0000-4000-8000-000000000001',
          resource: { resourceType: 'Patient', telecom: [{ system: 'email', value: email }] }
        },
        {
          fullUrl: 'urn:uuid:0b7c5d1e-0000-4000-8000-000000000002',
          resource: {
            resourceType: 'AllergyIntolerance',
            patient: { reference: 'urn:uuid:0b7c5d1e-0000-4000-8000-000000000001' },
            code: { text: 'Penicillin' }
          }
        }
      ]
    }
    const killed = await fhirCall(child.url, 'POST', `/fhir?facility=${site.facility}`, {
      token: site.admin.token,
      body
    }).catch((error: Error) => error)
    assert.ok(killed instanceof Error, 'the process died before answering')
    assert.equal((await child.exited).signal, 'SIGKILL')
    child = undefined

    child = await startChild(env())
    const restarted = child
    // The recovery pass removed the patient account the dead import had created: importing it again creates it.
    let again: any
    await waitUntil(
      async () => {
        again = await fhirCall(restarted.url, 'POST', `/fhir?facility=${site.facility}`, {
          token: site.admin.token,
          body
        })
        return again.status === 200
      },
      30_000,
      'an import after the restart'
    )
    assert.equal(again.body.entry[0].response.status, '201 Created', JSON.stringify(again.body))
    const records = await fetch(`${restarted.url}/medical-records?facility=${site.facility}`, {
      headers: { authorization: `Bearer ${site.admin.token}` }
    })
    const page = (await records.json()) as { total: number }
    assert.equal(page.total, 1, 'only the second import’s record')
  })
})
