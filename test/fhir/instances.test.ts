// Two instances on one store (MongoDB) and one data folder: bulk exports kicked off on either are each run by one
// worker once — one audit event per export, every manifest whole — whichever instance claims it.
import assert from 'node:assert/strict'
import { signUp, waitUntil, type TestServer } from '../helpers/app'
import { startSharedStore, type SharedStore } from '../helpers/cluster'
import { clinic, fhirCall, type Clinic } from './helpers'
import { seedRecords } from './seed'

describe('FHIR bulk export on two instances', function () {
  this.timeout(120_000)
  let store: SharedStore
  let a: TestServer
  let b: TestServer
  let site: Clinic
  let records: any[]

  before(async () => {
    store = await startSharedStore('fhir')
    ;[a, b] = await store.startPair({ fhir: { exportPollIntervalMs: 20, exportPageSize: 3 } as never })
    site = await clinic(a, 'Two instances clinic')
    const patient = await signUp(a.url)
    records = await seedRecords(a, site.admin, site.facility, [patient.account.id])
  })
  after(() => store.stop())

  it('runs each of eight exports kicked off on either instance exactly once', async () => {
    const statuses: string[] = []
    for (let i = 0; i < 8; i++) {
      const server = i % 2 === 0 ? a : b
      const started = await fhirCall(server.url, 'GET', `/fhir/Group/${site.facility}/$export`, {
        token: site.admin.token,
        headers: { prefer: 'respond-async' }
      })
      assert.equal(started.status, 202, JSON.stringify(started.body))
      statuses.push((started.headers.get('content-location') ?? '').slice(server.url.length))
    }
    const manifests: any[] = []
    for (const [i, statusPath] of statuses.entries()) {
      const server = i % 2 === 0 ? b : a // (polled on the other instance)
      let answer: any
      await waitUntil(
        async () => {
          answer = await fhirCall(server.url, 'GET', statusPath, { token: site.admin.token })
          return answer.status !== 202
        },
        60_000,
        'an export'
      )
      assert.equal(answer.status, 200, JSON.stringify(answer.body))
      manifests.push(answer.body)
    }
    const first = JSON.stringify(manifests[0].output.map((o: any) => [o.type, o.count]))
    for (const manifest of manifests)
      assert.equal(JSON.stringify(manifest.output.map((o: any) => [o.type, o.count])), first)
    assert.ok(records.length > 0)
    const events = await fetch(`${a.url}/audit-events?action=export&$limit=50`, {
      headers: { authorization: `Bearer ${site.admin.token}` }
    })
    const page = (await events.json()) as { data: { ids: string[] }[] }
    const jobs = statuses.map((statusPath) => statusPath.split('/').pop())
    for (const job of jobs)
      assert.equal(page.data.filter((event) => event.ids.includes(job as string)).length, 1, `export ${job}`)
  })
})
