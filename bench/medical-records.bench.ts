// Requests per second of POST /medical-records and of a permission-filtered find over 100k records on the
// embedded engine (the full app: JWT, validation, access query, NeDB), next to a plain @feathersjs/memory
// service on a bare Feathers Koa app in the same run (same documents, same filter, no hooks): ratio = app / memory.
import { MemoryService } from '@feathersjs/memory'
import { signUp, startServer } from '../test/helpers/app'
import { newId } from '../src/store'
import { loadAccessContext } from '../src/access/context'
import { recordQuery, normalizePermissions } from '../src/access/medical-records'
import { validRecords } from '../test/fixtures/medical-records'
import { call, measureLoad, round, startPlainApp, type LoadResult, random } from './lib'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000)
const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 10

// A deterministic pseudo-random sequence, so every run seeds the same records.
/**
 * 100k records from 1,000 authors across 200 organizations. The bench caller (a "doctor" of organization 0)
 * may read about 3%: ~1% through a uid element, ~1% through a role element of its organization, ~1% through
 * an element open to every member; the rest are other people's.
 */
const seedRecords = (caller: string, organization: string) => {
  const next = random(42)
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]
  const authors = Array.from({ length: 1000 }, () => newId())
  const organizations = [organization, ...Array.from({ length: 199 }, () => newId())]
  const types = Object.keys(validRecords) as (keyof typeof validRecords)[]
  const start = Date.now() - RECORDS * 1000
  const records: any[] = []
  for (let i = 0; i < RECORDS; i++) {
    const roll = next()
    const elements: any[] = []
    if (roll < 0.01) elements.push({ uid: caller })
    else if (roll < 0.02) elements.push({ organization, roles: ['doctor'], write: true })
    else if (roll < 0.03) elements.push({ organization })
    else if (roll < 0.5)
      elements.push(
        { uid: pick(authors) },
        { organization: pick(organizations.slice(1)), roles: [pick(['doctor', 'nurse'])] }
      )
    else if (roll < 0.75) elements.push({ organization: pick(organizations), privileges: ['records.read'] })
    const { facility: _f, permissions: _p, ...body } = validRecords[pick(types)] as any
    records.push({
      ...body,
      id: newId(),
      patient: `patient-${i % 5000}`,
      permissions: normalizePermissions(elements),
      createdAt: start + i * 1000,
      createdBy: pick(authors)
    })
  }
  return records
}

// A load of `CONNECTIONS` clients (or `connections`) for `DURATION` seconds; a POST sends `body` each time.
const measure = (
  title: string,
  url: string,
  options: { method?: 'GET' | 'POST'; token?: string; body?: unknown; connections?: number } = {}
) =>
  measureLoad(title, url, {
    method: options.method,
    token: options.token,
    bodies: options.body === undefined ? undefined : [options.body],
    connections: options.connections ?? CONNECTIONS,
    duration: DURATION
  })

export async function run() {
  const server = await startServer({ mongodb: '' })
  const { app, url: base } = server

  // The bench caller: a doctor of the clinic (a second account creates the clinic and adds them).
  const owner = await signUp(base, {
    email: 'owner@bench.test',
    organization: { name: 'Bench clinic', type: 'facility' }
  })
  const caller = await signUp(base, { email: 'doctor@bench.test' })
  await call(
    base,
    'POST',
    '/organization-members',
    { organization: owner.organization.id, uid: caller.account.id, roles: ['doctor'], privileges: [] },
    owner.token
  )

  const records = seedRecords(caller.account.id, owner.organization.id)
  const seedStart = Date.now()
  const model = (app.service('medical-records' as any) as any).options.Model
  for (let i = 0; i < records.length; i += 10_000)
    await model.insertAsync(records.slice(i, i + 10_000).map((r) => ({ ...r })))
  const seedSeconds = (Date.now() - seedStart) / 1000

  // The baseline: a plain memory service with the same documents; its find gets the same permission filter.
  const access = await loadAccessContext(app, { id: caller.account.id })
  const filter = recordQuery(access, 'read')
  const baseline = await startPlainApp(
    'records',
    new MemoryService({ paginate: app.get('medicalRecords').paginate, operators: ['$elemMatch', '$size'] })
  )
  const memory = baseline.app.service('records')
  for (const record of records) memory.store[record.id] = { ...record }
  memory.hooks({
    before: {
      find: [
        (context: any) => {
          context.params.query = { ...context.params.query, $and: [filter] }
        }
      ]
    }
  })

  const readable = (await call(base, 'GET', '/medical-records?$limit=0', undefined, caller.token)).total
  const baselineReadable = (await call(baseline.base, 'GET', '/records?$limit=0')).total
  if (readable !== baselineReadable)
    throw new Error(
      `The two services disagree on what the caller may read: ${readable} vs ${baselineReadable}`
    )

  const findPath = '?$sort[createdAt]=-1&$limit=25'
  const byPatientPath = '?patient=patient-7&$sort[createdAt]=-1&$limit=25'
  const body = {
    ...validRecords.allergy,
    facility: owner.organization.id,
    permissions: [{ organization: owner.organization.id, roles: ['doctor'] }]
  }
  const { facility: _f, ...plainBody } = body

  const find = {
    embedded: await measure('find (embedded)', `${base}/medical-records${findPath}`, {
      token: caller.token,
      connections: 4
    }),
    memory: await measure('find (memory)', `${baseline.base}/records${findPath}`, { connections: 4 })
  }
  const findByPatient = {
    embedded: await measure('find by patient (embedded)', `${base}/medical-records${byPatientPath}`, {
      token: caller.token
    }),
    memory: await measure('find by patient (memory)', `${baseline.base}/records${byPatientPath}`)
  }
  const post = {
    embedded: await measure('POST (embedded)', `${base}/medical-records`, {
      method: 'POST',
      token: caller.token,
      body
    }),
    memory: await measure('POST (memory)', `${baseline.base}/records`, { method: 'POST', body: plainBody })
  }

  await server.close()
  await baseline.close()

  const ratio = (pair: { embedded: LoadResult; memory: LoadResult }) =>
    round(pair.embedded.requestsPerSecond / pair.memory.requestsPerSecond, 3)
  return {
    name: 'medical-records',
    records: RECORDS,
    readableByCaller: readable,
    seedSeconds,
    durationSeconds: DURATION,
    note: 'ratio = embedded app requests/s ÷ plain @feathersjs/memory requests/s, same machine, same run, same documents and permission filter',
    post: { ...post, ratio: ratio(post) },
    permissionFilteredFind: { ...find, ratio: ratio(find) },
    permissionFilteredFindByPatient: { ...findByPatient, ratio: ratio(findByPatient) }
  }
}
