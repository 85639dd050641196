// Bulk FHIR export of one facility with 100k medical records (every record type, 1,000 patients) on the embedded
// engine, through the real job: kick-off over HTTP, the worker streaming pages through the mapping into NDJSON
// files, polling until the manifest. Reported: resources written per second, next to a baseline measured in the
// same run (the same stored documents written as NDJSON lines without the mapping: ratio = export / baseline), and
// the peak RSS and heap during the export against those before it and the total size of the files (streamed: the
// growth, garbage not yet collected included, stays below the output's size; the embedded engine's documents are
// in memory before the export starts).
import fs from 'node:fs'
import path from 'node:path'
import { signUp, startServer, tempDir } from '../test/helpers/app'
import { newId } from '../src/store'
import { validRecords } from '../test/fixtures/medical-records'
import { call, round } from './lib'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000)
const PATIENTS = 1000
const MB = 1024 * 1024

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function run() {
  const server = await startServer({ mongodb: '' })
  const { app, url: base } = server
  const owner = await signUp(base, {
    email: 'owner@fhir-bench.test',
    organization: { name: 'FHIR bench clinic', type: 'facility' }
  })
  const facility = owner.organization.id

  // Seeded directly through the store, in batches (the services' validation is not what is measured).
  const now = Date.now()
  const patients = Array.from({ length: PATIENTS }, (_, i) => ({
    id: newId(),
    email: `patient-${i}@fhir-bench.test`,
    firstName: 'Bench',
    lastName: `Patient ${i}`,
    createdAt: now
  }))
  const accounts = (app.service('accounts') as any).options.Model
  await accounts.insertAsync(patients.map((p) => ({ ...p })))
  const types = Object.keys(validRecords) as (keyof typeof validRecords)[]
  const model = (app.service('medical-records') as any).options.Model
  const seedStart = Date.now()
  for (let i = 0; i < RECORDS; i += 10_000) {
    const batch = []
    for (let j = i; j < Math.min(RECORDS, i + 10_000); j++) {
      const { encounter: _e, permissions: _p, ...body } = validRecords[types[j % types.length]] as any
      batch.push({
        ...body,
        id: newId(),
        facility,
        patient: patients[j % PATIENTS].id,
        permissions: [{ organization: facility, roles: [], privileges: [], write: false, share: false }],
        createdAt: now - (RECORDS - j) * 1000,
        createdBy: owner.account.id
      })
    }
    await model.insertAsync(batch)
  }
  const seedSeconds = (Date.now() - seedStart) / 1000

  // The baseline: the same documents read in the same pages (the embedded engine's way: the ids listed by one
  // scan, pages read by `$in`) and written as NDJSON lines, without the mapping.
  const baselineDir = tempDir('fhir-bench-baseline-')
  const baselineStart = Date.now()
  const out = fs.createWriteStream(path.join(baselineDir, 'records.ndjson'))
  let baselineLines = 0
  const pageSize = app.get('fhir').exportPageSize
  const store = app.service('medical-records')
  const ids: string[] = []
  await store._scan(['id', 'facility'], (doc) => {
    if (doc.facility === facility) ids.push(doc.id)
  })
  ids.sort()
  for (let i = 0; i < ids.length; i += pageSize) {
    const page = await store._find({
      query: { id: { $in: ids.slice(i, i + pageSize) }, facility, $sort: { id: 1 } },
      paginate: false
    })
    for (const doc of page) {
      if (!out.write(`${JSON.stringify(doc)}\n`))
        await new Promise<void>((resolve) => out.once('drain', () => resolve()))
      baselineLines += 1
    }
  }
  await new Promise<void>((resolve) => out.end(() => resolve()))
  const baselineSeconds = (Date.now() - baselineStart) / 1000
  fs.rmSync(baselineDir, { recursive: true, force: true })

  // The export, with RSS sampled while it runs.
  global.gc?.()
  const rssBefore = process.memoryUsage().rss
  const heapBefore = process.memoryUsage().heapUsed
  let peak = rssBefore
  let peakHeap = heapBefore
  const sampler = setInterval(() => {
    const usage = process.memoryUsage()
    peak = Math.max(peak, usage.rss)
    peakHeap = Math.max(peakHeap, usage.heapUsed)
  }, 20)
  const start = Date.now()
  const kick = await fetch(`${base}/fhir/Group/${facility}/$export`, {
    headers: {
      authorization: `Bearer ${owner.token}`,
      prefer: 'respond-async',
      accept: 'application/fhir+json'
    }
  })
  if (kick.status !== 202) throw new Error(`kick-off answered ${kick.status}`)
  const status = kick.headers.get('content-location') ?? ''
  let manifest: any
  for (;;) {
    const answer = await fetch(status, { headers: { authorization: `Bearer ${owner.token}` } })
    if (answer.status === 200) {
      manifest = await answer.json()
      break
    }
    if (answer.status !== 202) throw new Error(`status answered ${answer.status}: ${await answer.text()}`)
    await sleep(100)
  }
  const seconds = (Date.now() - start) / 1000
  clearInterval(sampler)
  const resources = manifest.output.reduce((sum: number, o: any) => sum + o.count, 0)
  const jobId = status.split('/').pop() ?? ''
  const folder = path.join(server.dataDir, 'fhir-exports', jobId)
  const bytes = fs
    .readdirSync(folder)
    .reduce((sum, file) => sum + fs.statSync(path.join(folder, file)).size, 0)
  const health = await call(base, 'GET', '/health/live')

  await server.close()
  return {
    name: 'fhir bulk export',
    records: RECORDS,
    patients: PATIENTS,
    seedSeconds: round(seedSeconds, 1),
    exportSeconds: round(seconds, 2),
    resources,
    resourcesPerSecond: Math.round(resources / seconds),
    baselineLinesPerSecond: Math.round(baselineLines / baselineSeconds),
    ratio: round(resources / seconds / (baselineLines / baselineSeconds), 3),
    outputMB: round(bytes / MB, 1),
    rssBeforeMB: round(rssBefore / MB, 1),
    peakRssMB: round(peak / MB, 1),
    rssGrowthMB: round((peak - rssBefore) / MB, 1),
    heapBeforeMB: round(heapBefore / MB, 1),
    peakHeapGrowthMB: round((peakHeap - heapBefore) / MB, 1),
    byType: Object.fromEntries(manifest.output.map((o: any) => [o.type, o.count])),
    serverAlive: !!health
  }
}
