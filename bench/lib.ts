// Helpers shared by the bench/*.bench.ts files. Starting the app and signing up come from test/helpers/app
// (startServer, signUp), as in the tests; what is here is what only the benches need.
import fs from 'node:fs'
import path from 'node:path'
import type { Server } from 'node:http'
import { execFile } from 'node:child_process'
import { feathers } from '@feathersjs/feathers'
import { koa, rest, bodyParser, errorHandler } from '@feathersjs/koa'
import { signUp, sleep, startServer, tempDir } from '../test/helpers/app'
import { newId } from '../src/store'
import { normalizePermissions } from '../src/access/medical-records'
import { validRecords } from '../test/fixtures/medical-records'
import type { Application } from '../src/declarations'

// Rounds to `digits` decimals, so the printed figures and ratios do not carry float noise.
export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits

/** A seeded pseudo-random generator in [0, 1): the same data in every run of a bench. */
export const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

/** The resident set of a process, in MB (from /proc). */
export const rssMb = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return round(kb / 1024, 0)
}

// The headers of a JSON request, with the bearer token when there is one (setup calls and load alike).
export const jsonHeaders = (token?: string): Record<string, string> => ({
  'content-type': 'application/json',
  ...(token ? { authorization: `Bearer ${token}` } : {})
})

// A setup call (sign-up aside): JSON in and out, and any status from 300 up stops the bench, since the
// figures measured after a failed setup would be meaningless.
export const call = async (base: string, method: string, url: string, body?: unknown, token?: string) => {
  const response = await fetch(base + url, {
    method,
    headers: jsonHeaders(token),
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const json: any = await response.json()
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

// A bare Feathers Koa app (error handler, JSON body, REST; no hooks, no auth) serving one service: the
// baseline the app's figures are divided by, started on 127.0.0.1 and a free port.
export const startPlainApp = async (servicePath: string, service: unknown) => {
  const app: any = koa(feathers())
  app.use(errorHandler())
  app.use(bodyParser())
  app.configure(rest())
  app.use(servicePath, service)
  const server: Server = await app.listen(0, '127.0.0.1')
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
  const address = server.address()
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return { app, base, close: (): Promise<void> => app.teardown() }
}

// Requests still queued when a load stops are finished before anything is checked or measured next.
const drain = async (url: string) => {
  await sleep(300)
  await fetch(new URL('/bench-drain-probe', url)).then((response) => response.text())
}

// What measureLoad reports of one load, as the benches print it.
export interface LoadResult {
  requestsPerSecond: number
  latencyP50ms: number
  latencyP99ms: number
  requests: number
}

// autocannon runs in its own process so the load generator does not share the server's event loop; with
// `bodies`, each request takes the next body of the list (one body: every request alike).
const loadScript = `
const autocannon = require(process.argv[1])
const o = JSON.parse(process.argv[2])
let next = 0
const requests = o.bodies ? [{ setupRequest: (req) => { req.body = JSON.stringify(o.bodies[next++ % o.bodies.length]); return req } }] : undefined
autocannon({
  url: o.url, method: o.method, headers: o.headers, connections: o.connections, duration: o.duration, ...(requests ? { requests } : {})
}, (error, result) => { if (error) { console.error(error); process.exit(1) } process.stdout.write(JSON.stringify(result)) })
`

// The one load measurement of the benches whose requests must all succeed: any non-2xx answer or error
// fails the bench (a figure made of refusals is no figure); drains the server before returning.
export const measureLoad = async (
  title: string,
  url: string,
  options: {
    connections: number
    duration: number
    method?: 'GET' | 'POST'
    token?: string
    bodies?: unknown[]
  }
): Promise<LoadResult> => {
  const settings = {
    url,
    method: options.method ?? 'GET',
    headers: jsonHeaders(options.token),
    connections: options.connections,
    duration: options.duration,
    bodies: options.bodies
  }
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['-e', loadScript, require.resolve('autocannon'), JSON.stringify(settings)],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, out) => (error ? reject(error) : resolve(out))
    )
  )
  const result = JSON.parse(stdout)
  const ok = result['2xx']
  if (result.non2xx > 0 || result.errors > 0 || ok === 0)
    throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${ok} ok`)
  await drain(url)
  return {
    requestsPerSecond: round(ok / (result.duration || options.duration), 1),
    latencyP50ms: result.latency.p50,
    latencyP99ms: result.latency.p99,
    requests: ok
  }
}

/** Medical records the viewer of a seeded folder may read (through a `permissions.uid` element). */
export const READABLE = 1000

/**
 * `size` medical records of every type, the same in every run but for their ids: READABLE of them shared with
 * `viewer` by uid, spread evenly over time; the rest other authors' (10% also shared with an organization the viewer
 * is not in), over 50 facilities and 20,000 patients.
 */
function* benchRecords(size: number, viewer: string) {
  const next = random(11)
  const authors = Array.from({ length: 2000 }, () => newId())
  const organizations = Array.from({ length: 500 }, () => newId())
  const types = Object.keys(validRecords) as (keyof typeof validRecords)[]
  const every = Math.floor(size / READABLE)
  const start = Date.now() - size * 1000
  for (let i = 0; i < size; i++) {
    const elements: Record<string, unknown>[] =
      i % every === 0 ? [{ uid: viewer }] : [{ uid: authors[Math.floor(next() * authors.length)] }]
    if (next() < 0.1)
      elements.push({
        organization: organizations[Math.floor(next() * organizations.length)],
        roles: ['doctor']
      })
    const { permissions: _p, ...body } = validRecords[types[i % types.length]] as Record<string, unknown>
    yield {
      ...body,
      id: newId(),
      facility: `facility-${i % 50}`,
      patient: `patient-${i % 20000}`,
      permissions: normalizePermissions(elements as never),
      createdAt: start + i * 1000,
      createdBy: authors[Math.floor(next() * authors.length)]
    }
  }
}

/** A data folder holding `size` medical records and the viewer who may read READABLE of them. */
export interface SeededFolder {
  dataDir: string
  email: string
  password: string
  /** Seconds the seed took (0: a kept folder reused). */
  seedSeconds: number
  /** Whether dataDir is a kept folder (not to be removed after the run). */
  kept: boolean
}

/**
 * A folder of `size` records: seeded now through the store of an in-process app (not HTTP, so it is quick), which
 * is then closed (compacting its files, as every shutdown does). With `keepIn` (BENCH_STARTUP_DIR), the folder is
 * `<keepIn>/<size>` and reused by the next run when its viewer's file, bench-viewer.json, is there (seeding a
 * million records takes minutes).
 */
export const seededFolder = async (size: number, keepIn?: string): Promise<SeededFolder> => {
  const dataDir = keepIn ? path.join(keepIn, String(size)) : tempDir('clinic-bench-seed-')
  const marker = path.join(dataDir, 'bench-viewer.json')
  if (keepIn && fs.existsSync(marker)) {
    const viewer = JSON.parse(fs.readFileSync(marker, 'utf8')) as { email: string; password: string }
    return { dataDir, ...viewer, seedSeconds: 0, kept: true }
  }
  fs.mkdirSync(dataDir, { recursive: true })
  const seeding = await startServer({ dataDir, mongodb: '' })
  const email = `viewer-${size}@bench.test`
  const viewer = await signUp(seeding.url, { email })
  const model = (seeding.app.service('medical-records' as never) as { options: { Model: any } }).options.Model // (the raw datastore, for a fast seed)
  const started = Date.now()
  let chunk: unknown[] = []
  for (const record of benchRecords(size, viewer.account.id)) {
    chunk.push(record)
    if (chunk.length === 10_000) {
      await model.insertAsync(chunk)
      chunk = []
    }
  }
  if (chunk.length) await model.insertAsync(chunk)
  await seeding.close({ keep: true })
  const seedSeconds = round((Date.now() - started) / 1000, 1)
  if (keepIn) fs.writeFileSync(marker, JSON.stringify({ email, password: viewer.password }))
  return { dataDir, email, password: viewer.password, seedSeconds, kept: !!keepIn }
}

/** Signs the viewer of a seeded folder in on a running server: its access token. */
export const logIn = async (base: string, viewer: { email: string; password: string }): Promise<string> => {
  const { accessToken } = (await call(base, 'POST', '/authentication', { strategy: 'local', ...viewer })) as {
    accessToken: string
  }
  return accessToken
}

// (casts: the benches seed accounts, organizations and memberships straight through the stores, by name)
export const storeOf = (app: Application, name: string) => app.service(name as any) as any

/** An account made in the store (no bcrypt per account) and an access token for it. */
export const storeAccount = async (app: Application, email: string) => {
  const created = await storeOf(app, 'accounts')._create({ email, createdAt: Date.now() })
  const token = await (app.service('authentication') as any).createAccessToken({ sub: created.id }) // (cast: the service's typed surface)
  return { id: created.id as string, token: token as string }
}

/** A facility made in the store, with `clinician` its superadmin doctor; its id. */
export const storeFacility = async (app: Application, name: string, clinician: string): Promise<string> => {
  const organization = await storeOf(app, 'organizations')._create({
    name,
    type: 'facility',
    createdAt: Date.now(),
    createdBy: clinician
  })
  await storeOf(app, 'organization-members')._create({
    organization: organization.id,
    uid: clinician,
    roles: ['doctor'],
    privileges: [],
    superadmin: true,
    createdAt: Date.now()
  })
  return organization.id as string
}
