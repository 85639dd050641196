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
// BENCH_STARTUP_DIR=<folder> keeps the seeded folders there and reuses them on the next run (bench/lib.ts
// seededFolder; the find bench reuses them too).
import fs from 'node:fs'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { tempDir } from '../test/helpers/app'
import { startServerProcess } from '../test/helpers/server-process'
import { READABLE, round, rssMb, seededFolder } from './lib'

const SIZES = (process.env.BENCH_STARTUP_SIZES ?? '100000,1000000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
const KEEP = process.env.BENCH_STARTUP_DIR
const LIST = '/medical-records?$limit=20&$sort[createdAt]=-1'

/** CPU seconds (user + system) a process has used so far. */
const cpuSeconds = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return round((Number(fields[11]) + Number(fields[12])) / 100, 1)
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
  const { dataDir, email, password, seedSeconds, kept } = await seededFolder(size, KEEP)
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
    if (!kept) fs.rmSync(dataDir, { recursive: true, force: true })
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
