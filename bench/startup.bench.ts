// Start-up at scale on the embedded engine: N medical records are seeded through the store (an in-process app's
// datastore, as bench/find.bench.ts does), the app is closed (which compacts its files, as every shutdown does),
// then the real server is started as a child process on that folder, as `npm start` runs it: the time to its start
// line (every data file loaded and indexed), to the first answered permission-filtered list, and its RSS then.
// Baselines in the same run, each a child process: a bare read of the medical-records file in 16 MB pieces and a
// `JSON.parse` of each of its lines (the least any one-JSON-line-per-document loader pays, time and RSS), and the
// server started on an empty folder (its own boot, which every start-up pays before loading data). The server runs
// under ts-node (as the other benches start it), so its boot and RSS include the TypeScript compiler; CPU seconds
// are printed next to wall-clock seconds, since a busy machine stretches the latter. Sizes: BENCH_STARTUP_SIZES
// (default "100000,1000000"; on a quiet machine the 1,000,000 size takes about 4 minutes to seed and 1 to measure).
// BENCH_STARTUP_DIR=<folder> keeps the seeded folders there and reuses them on the next run.
import fs from 'node:fs'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { signUp, startServer, tempDir } from '../test/helpers/app'
import { startServerProcess } from '../test/helpers/server-process'
import { newId } from '../src/store'
import { normalizePermissions } from '../src/access/medical-records'
import { validRecords } from '../test/fixtures/medical-records'
import { round, random, rssMb } from './lib'

const SIZES = (process.env.BENCH_STARTUP_SIZES ?? '100000,1000000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
const KEEP = process.env.BENCH_STARTUP_DIR
const READABLE = 1000
const LIST = '/medical-records?$limit=20&$sort[createdAt]=-1'

/** CPU seconds (user + system) a process has used so far. */
const cpuSeconds = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return round((Number(fields[11]) + Number(fields[12])) / 100, 1)
}

/** `size` records of every type: READABLE of them shared with `viewer` by uid; 10% shared with an organization. */
function* records(size: number, viewer: string) {
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

interface Seeded {
  dataDir: string
  email: string
  password: string
  seedSeconds: number
}

/** A folder holding `size` records (seeded now, or reused from BENCH_STARTUP_DIR) and a viewer's token. */
const seed = async (size: number): Promise<Seeded> => {
  const dataDir = KEEP ? path.join(KEEP, String(size)) : tempDir('clinic-bench-startup-')
  const marker = path.join(dataDir, 'bench-viewer.json')
  if (KEEP && fs.existsSync(marker)) {
    const viewer = JSON.parse(fs.readFileSync(marker, 'utf8')) as { email: string; password: string }
    return { dataDir, ...viewer, seedSeconds: 0 }
  }
  fs.mkdirSync(dataDir, { recursive: true })
  const seeding = await startServer({ dataDir, mongodb: '' })
  const email = `viewer-${size}@startup-bench.test`
  const viewer = await signUp(seeding.url, { email })
  const model = (seeding.app.service('medical-records' as never) as { options: { Model: any } }).options.Model // (the raw datastore, for a fast seed)
  const started = Date.now()
  let chunk: unknown[] = []
  for (const record of records(size, viewer.account.id)) {
    chunk.push(record)
    if (chunk.length === 10_000) {
      await model.insertAsync(chunk)
      chunk = []
    }
  }
  if (chunk.length) await model.insertAsync(chunk)
  await seeding.close({ keep: true })
  const seedSeconds = round((Date.now() - started) / 1000, 1)
  if (KEEP) fs.writeFileSync(marker, JSON.stringify({ email, password: viewer.password }))
  return { dataDir, email, password: viewer.password, seedSeconds }
}

// A child process that reads the file and parses each line, reporting its time and RSS (the loader's floor).
const parseScript = `
const fs = require('fs')
const t0 = process.hrtime.bigint()
const fd = fs.openSync(process.argv[1], 'r')
const size = fs.fstatSync(fd).size
let readNs = 0n, docs = [], rest = '', at = 0
while (at < size) {
  const r0 = process.hrtime.bigint()
  const buffer = Buffer.allocUnsafe(Math.min(size - at, 16 << 20))
  const read = fs.readSync(fd, buffer, 0, buffer.length, at)
  at += read
  const text = rest + buffer.toString('utf8', 0, read)
  readNs += process.hrtime.bigint() - r0
  let start = 0
  for (let end = text.indexOf('\\n'); end >= 0; end = text.indexOf('\\n', start)) {
    if (end > start) docs.push(JSON.parse(text.slice(start, end)))
    start = end + 1
  }
  rest = text.slice(start)
}
const t2 = process.hrtime.bigint()
const rss = Number(/VmRSS:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024
const cpu = process.cpuUsage()
process.stdout.write(JSON.stringify({ readMs: Number(readNs) / 1e6, parseMs: Number(t2 - t0 - readNs) / 1e6, cpuMs: (cpu.user + cpu.system) / 1000, lines: docs.length, rssMb: rss }))
`

const bareParse = (file: string) =>
  new Promise<{ readMs: number; parseMs: number; lines: number; rssMb: number }>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--max-old-space-size=8192', '-e', parseScript, file],
      { maxBuffer: 1 << 20 },
      (error, out) => (error ? reject(error) : resolve(JSON.parse(out)))
    )
  )

/**
 * Starts the server on `dataDir`: seconds to the start line and to the first answered list (the viewer logs in —
 * one bcrypt compare — and lists), its CPU seconds and RSS.
 */
const startOnce = async (dataDir: string, viewer: { email: string; password: string }) => {
  const started = Date.now()
  const server = await startServerProcess({ DATA_DIR: dataDir, MONGODB_URL: '' }, 900_000)
  const startSeconds = (Date.now() - started) / 1000
  const pid = server.child.pid as number
  const rssAtStartMb = rssMb(pid)
  const cpuAtStartSeconds = cpuSeconds(pid)
  try {
    const { accessToken: token } = (await fetch(server.url + '/authentication', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ strategy: 'local', ...viewer })
    }).then((r) => r.json())) as { accessToken: string }
    const list = (await fetch(server.url + LIST, { headers: { authorization: `Bearer ${token}` } }).then(
      (r) => r.json()
    )) as { total: number }
    const firstListSeconds = (Date.now() - started) / 1000
    if (list.total !== READABLE)
      throw new Error(`the viewer should read ${READABLE} records, the server says ${list.total}`)
    return {
      startSeconds: round(startSeconds, 1),
      firstListSeconds: round(firstListSeconds, 1),
      cpuAtStartSeconds,
      rssAtStartMb,
      rssAfterFirstListMb: rssMb(pid)
    }
  } finally {
    await server.kill('SIGTERM')
  }
}

/** The server's own boot (an empty folder): what every start-up pays before loading any data. */
const emptyStart = async () => {
  const dataDir = tempDir('clinic-bench-startup-empty-')
  try {
    const started = Date.now()
    const server = await startServerProcess({ DATA_DIR: dataDir, MONGODB_URL: '' }, 900_000)
    const startSeconds = round((Date.now() - started) / 1000, 1)
    const pid = server.child.pid as number
    const figures = { startSeconds, cpuAtStartSeconds: cpuSeconds(pid), rssAtStartMb: rssMb(pid) }
    await server.kill('SIGTERM')
    return figures
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

const measureSize = async (size: number) => {
  const { dataDir, email, password, seedSeconds } = await seed(size)
  try {
    const file = path.join(dataDir, 'medical-records.db')
    const dataFileMb = round(fs.statSync(file).size / 1024 / 1024, 0)
    const baseline = await bareParse(file)
    const server = await startOnce(dataDir, { email, password })
    return {
      records: size,
      seedSeconds,
      dataFileMb,
      bareReadAndParse: {
        seconds: round((baseline.readMs + baseline.parseMs) / 1000, 1),
        readSeconds: round(baseline.readMs / 1000, 1),
        rssMb: round(baseline.rssMb, 0)
      },
      server,
      ratioToBareParse: round(server.startSeconds / ((baseline.readMs + baseline.parseMs) / 1000), 2)
    }
  } finally {
    if (!KEEP) fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function run() {
  const emptyFolder = await emptyStart()
  console.log(JSON.stringify({ emptyFolder }))
  const sizes: Record<string, unknown> = {}
  for (const size of SIZES) {
    sizes[size] = await measureSize(size)
    console.log(JSON.stringify(sizes[size]))
  }
  return {
    name: 'startup',
    list: LIST,
    targets: { '1000000': { startSeconds: 20, rssMb: 1536 } },
    note: 'embedded engine, server as a child process (npm start); baseline: a bare read + JSON.parse per line of the same file',
    emptyFolder,
    sizes
  }
}
