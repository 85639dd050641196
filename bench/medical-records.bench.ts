// Requests per second of POST /medical-records and of a permission-filtered find over 100k records on the
// embedded engine (the full app: JWT, validation, access query, NeDB), next to a plain @feathersjs/memory
// service on a bare Feathers Koa app in the same run (same documents, same filter, no hooks): ratio = app / memory.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Server } from 'node:http'
import { execFile } from 'node:child_process'
import { feathers } from '@feathersjs/feathers'
import { koa, rest, bodyParser, errorHandler } from '@feathersjs/koa'
import { MemoryService } from '@feathersjs/memory'
import { createApp } from '../src/app'
import { newId } from '../src/store'
import { loadAccessContext } from '../src/access/context'
import { recordQuery, normalizePermissions } from '../src/services/medical-records/medical-records.access'
import { validRecords } from '../test/fixtures/medical-records'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000)
const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 10

const call = async (base: string, method: string, url: string, body?: unknown, token?: string) => {
  const response = await fetch(base + url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const json: any = await response.json()
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

const signUp = async (base: string, email: string, extra: Record<string, unknown> = {}) => {
  const created = await call(base, 'POST', '/accounts', { email, password: 'correct horse battery', ...extra })
  const login = await call(base, 'POST', '/authentication', { email, password: 'correct horse battery' })
  return { id: login.account.id as string, token: login.accessToken as string, organization: created.organization }
}

// A deterministic pseudo-random sequence, so every run seeds the same records.
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

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
    else if (roll < 0.5) elements.push({ uid: pick(authors) }, { organization: pick(organizations.slice(1)), roles: [pick(['doctor', 'nurse'])] })
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

// autocannon runs in its own process (its CLI, JSON out), so the load generator does not share the servers'
// event loop; afterwards the server is given time to finish what it had already accepted.
const measure = async (
  title: string,
  url: string,
  options: { method?: 'GET' | 'POST'; token?: string; body?: unknown; connections?: number } = {}
) => {
  const args = [require.resolve('autocannon/autocannon.js'), '--json', '-c', String(options.connections ?? CONNECTIONS), '-d', String(DURATION)]
  args.push('-m', options.method ?? 'GET', '-H', 'content-type=application/json')
  if (options.token) args.push('-H', `authorization=Bearer ${options.token}`)
  if (options.body !== undefined) args.push('-b', JSON.stringify(options.body))
  args.push(url)
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (error, out) => (error ? reject(error) : resolve(out)))
  )
  const result = JSON.parse(stdout)
  const ok = result['2xx']
  if (result.non2xx > 0 || result.errors > 0 || ok === 0) throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${ok} ok`)
  await drain(url)
  return {
    requestsPerSecond: Math.round((ok / (result.duration || DURATION)) * 10) / 10,
    latencyP50ms: result.latency.p50,
    latencyP99ms: result.latency.p99,
    requests: ok
  }
}

// Requests still queued when the load stops are finished before the next measurement starts.
const drain = async (url: string) => {
  await new Promise((resolve) => setTimeout(resolve, 200))
  await fetch(new URL('/bench-drain-probe', url)).then((response) => response.text())
}

const listen = async (app: any): Promise<{ server: Server; base: string }> => {
  const server: Server = await app.listen(0, '127.0.0.1')
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
  const address = server.address()
  return { server, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }
}

export async function run() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clinic-bench-'))
  const app = createApp({ host: '127.0.0.1', port: 0, logLevel: 'error', dataDir, mongodb: '' })
  const { base } = await listen(app)

  // The bench caller: a doctor of the clinic (a second account creates the clinic and adds them).
  const owner = await signUp(base, 'owner@bench.test', { organization: { name: 'Bench clinic', type: 'facility' } })
  const caller = await signUp(base, 'doctor@bench.test')
  await call(base, 'POST', '/organization-members', { organization: owner.organization.id, uid: caller.id, roles: ['doctor'], privileges: [] }, owner.token)

  const records = seedRecords(caller.id, owner.organization.id)
  const seedStart = Date.now()
  const model = (app.service('medical-records' as any) as any).options.Model
  for (let i = 0; i < records.length; i += 10_000) await model.insertAsync(records.slice(i, i + 10_000).map((r) => ({ ...r })))
  const seedSeconds = (Date.now() - seedStart) / 1000

  // The baseline: a plain memory service with the same documents; its find gets the same permission filter.
  const access = await loadAccessContext(app, { id: caller.id })
  const filter = recordQuery(access, 'read')
  const plain: any = koa(feathers())
  plain.use(errorHandler())
  plain.use(bodyParser())
  plain.configure(rest())
  plain.use('records', new MemoryService({ paginate: app.get('medicalRecords').paginate, operators: ['$elemMatch', '$size'] }))
  const memory = plain.service('records')
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
  const baseline = await listen(plain)

  const readable = (await call(base, 'GET', '/medical-records?$limit=0', undefined, caller.token)).total
  const baselineReadable = (await call(baseline.base, 'GET', '/records?$limit=0')).total
  if (readable !== baselineReadable) throw new Error(`The two services disagree on what the caller may read: ${readable} vs ${baselineReadable}`)

  const findPath = '?$sort[createdAt]=-1&$limit=25'
  const byPatientPath = '?patient=patient-7&$sort[createdAt]=-1&$limit=25'
  const body = { ...validRecords.allergy, facility: owner.organization.id, permissions: [{ organization: owner.organization.id, roles: ['doctor'] }] }
  const { facility: _f, ...plainBody } = body

  const find = {
    embedded: await measure('find (embedded)', `${base}/medical-records${findPath}`, { token: caller.token, connections: 4 }),
    memory: await measure('find (memory)', `${baseline.base}/records${findPath}`, { connections: 4 })
  }
  const findByPatient = {
    embedded: await measure('find by patient (embedded)', `${base}/medical-records${byPatientPath}`, { token: caller.token }),
    memory: await measure('find by patient (memory)', `${baseline.base}/records${byPatientPath}`)
  }
  const post = {
    embedded: await measure('POST (embedded)', `${base}/medical-records`, { method: 'POST', token: caller.token, body }),
    memory: await measure('POST (memory)', `${baseline.base}/records`, { method: 'POST', body: plainBody })
  }

  await app.teardown()
  await plain.teardown()
  fs.rmSync(dataDir, { recursive: true, force: true })

  const ratio = (pair: { embedded: { requestsPerSecond: number }; memory: { requestsPerSecond: number } }) =>
    Math.round((pair.embedded.requestsPerSecond / pair.memory.requestsPerSecond) * 1000) / 1000
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
