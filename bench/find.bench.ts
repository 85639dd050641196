// Lists at scale on the embedded engine: the permission-filtered first page a clinician opens
// (`GET /medical-records?$limit=20&$sort[createdAt]=-1`) over 100,000 and 1,000,000 records, of which the viewer
// may read 1,000 through a `permissions.uid` element (the rest belong to others: other authors, other
// organizations — 10% of them shared with an organization the viewer is NOT in). The records are seeded through
// the store (not HTTP, so it is quick; bench/lib.ts seededFolder, as the startup bench seeds them; with
// BENCH_STARTUP_DIR a kept folder is reused, on a copy), then the real server is started as a child process on that
// data directory, as `npm start` runs it: start-up time to the start line (the whole data file loaded and indexed), its RSS after
// start-up and after the load, p50/p99 of the list at 10 connections, the server's CPU time per list (every thread,
// the audit writer's included: steadier than latency on a shared machine) and the read-audit events written per
// list (one per patient on the page). Baseline in the same run: the same page answered by a bare Feathers Koa app
// over @feathersjs/memory holding the viewer's 1,000 readable records only (what an ideal index would leave to
// scan), so the ratio shows what finding them among the others costs. Both are loaded in turns (BENCH_ROUNDS,
// default 3, of BENCH_SECONDS, default 5, each after a 2 s warm-up); each figure is the median round.
// Sizes: BENCH_FIND_SIZES (default "100000,1000000"); about 1.5 minutes at 100,000 on a quiet 2-core machine, and
// at 1,000,000 several minutes (the seed, and the start-up that loads the whole file; about 1.5 minutes with a kept
// folder).
import fs from 'node:fs'
import { MemoryService } from '@feathersjs/memory'
import { sleep, tempDir } from '../test/helpers/app'
import { startServerProcess } from '../test/helpers/server-process'
import {
  call,
  logIn,
  measureLoad,
  READABLE,
  round,
  seededFolder,
  startPlainApp,
  type LoadResult,
  rssMb
} from './lib'

const SIZES = (process.env.BENCH_FIND_SIZES ?? '100000,1000000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
const DURATION = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const KEEP = process.env.BENCH_STARTUP_DIR
const CONNECTIONS = 10
const LIST = '/medical-records?$limit=20&$sort[createdAt]=-1'

type Measured = LoadResult & { cpuMsPerList: number }
const appLoad = { connections: CONNECTIONS, duration: DURATION } as {
  connections: number
  duration: number
  token?: string
}
const memoryLoad = { connections: CONNECTIONS, duration: DURATION }

const median = (values: Measured[]): Measured => {
  const sorted = [...values].sort(
    (a, b) => a.latencyP50ms - b.latencyP50ms || b.requestsPerSecond - a.requestsPerSecond
  )
  return sorted[Math.floor(sorted.length / 2)]
}

// CPU time (user + system, every thread) a process has used, from /proc (clock ticks of 10 ms).
const cpuMs = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

// Lines in the audit trail's files of a data directory (one per event).
const auditLines = (dataDir: string) =>
  fs
    .readdirSync(dataDir)
    .filter((file) => file.startsWith('audit'))
    .reduce((sum, file) => sum + fs.readFileSync(`${dataDir}/${file}`, 'utf8').split('\n').length - 1, 0)

const measureSize = async (size: number) => {
  const seeded = await seededFolder(size, KEEP)
  // A kept folder is run on a copy: the load's read-audit events would otherwise grow the folder every run.
  const dataDir = seeded.kept ? tempDir('clinic-bench-find-') : seeded.dataDir
  try {
    if (seeded.kept) fs.cpSync(seeded.dataDir, dataDir, { recursive: true, preserveTimestamps: true })
    const { seedSeconds } = seeded
    const dataFileMb = round(fs.statSync(`${dataDir}/medical-records.db`).size / 1024 / 1024, 0)

    // The server as deployed: a child process loading the data file at start-up.
    const started = Date.now()
    // (BENCH_SERVER_NODE_OPTIONS: node options of the server alone, e.g. `--require ./bench/cpu-profile.cjs`, whose
    // profile runs between the SIGUSR2 sent before the first measured round and after the last, with
    // BENCH_PROFILE_SIGNAL set)
    const nodeOptions = process.env.BENCH_SERVER_NODE_OPTIONS
    const server = await startServerProcess(
      { DATA_DIR: dataDir, MONGODB_URL: '', ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) },
      600_000
    )
    const startupSeconds = round((Date.now() - started) / 1000, 1)
    const pid = server.child.pid as number
    const rssAfterStartMb = rssMb(pid)
    try {
      const token = await logIn(server.url, seeded)
      appLoad.token = token
      // The viewer's readable records, as the server answers them (the memory baseline's data).
      const readable: unknown[] = []
      for (let total = Infinity; readable.length < total;) {
        const page = (await call(
          server.url,
          'GET',
          `/medical-records?$limit=50&$skip=${readable.length}&$sort[createdAt]=-1`,
          undefined,
          token
        )) as { total: number; data: unknown[] }
        if (page.total !== READABLE)
          throw new Error(`the viewer should read ${READABLE} records, the server says ${page.total}`)
        total = page.total
        readable.push(...page.data)
      }
      const baseline = await startPlainApp(
        'medical-records',
        new MemoryService({ paginate: { default: 20, max: 100 }, multi: ['create'] })
      )
      await baseline.app.service('medical-records').create(readable)
      // Warm-up of both (JIT), then rounds taking turns (app, memory, app, …): the figure of each is its median
      // round; the server's CPU time per list (all its threads, the audit writer's included) is read from /proc.
      await measureLoad(`warm-up at ${size}`, server.url + LIST, { ...appLoad, duration: 2 })
      await measureLoad(`memory warm-up at ${size}`, baseline.base + LIST, { ...memoryLoad, duration: 2 })
      if (process.env.BENCH_PROFILE_SIGNAL) server.child.kill('SIGUSR2')
      const rounds: { app: Measured[]; memory: Measured[] } = { app: [], memory: [] }
      const auditBefore = auditLines(dataDir)
      let appLists = 0
      for (let i = 0; i < ROUNDS; i++) {
        const cpu = cpuMs(pid)
        const app = await measureLoad(`list at ${size}`, server.url + LIST, appLoad)
        rounds.app.push({ ...app, cpuMsPerList: round((cpuMs(pid) - cpu) / app.requests, 3) })
        appLists += app.requests
        const own = process.cpuUsage()
        const memory = await measureLoad(`memory list at ${size}`, baseline.base + LIST, memoryLoad)
        const used = process.cpuUsage(own)
        rounds.memory.push({
          ...memory,
          cpuMsPerList: round((used.user + used.system) / 1000 / memory.requests, 3)
        })
      }
      if (process.env.BENCH_PROFILE_SIGNAL) server.child.kill('SIGUSR2')
      const rssAfterLoadMb = rssMb(pid)
      await baseline.close()
      // (the read-audit events are appended in the journal file of the audit trail: one line each)
      await sleep(500)
      const auditEventsPerList = round((auditLines(dataDir) - auditBefore) / (appLists + 1), 1)
      const app = median(rounds.app)
      const memory = median(rounds.memory)
      return {
        records: size,
        readableByViewer: READABLE,
        seedSeconds,
        dataFileMb,
        startupSeconds,
        rssAfterStartMb,
        rssAfterLoadMb,
        list: app,
        memoryBaseline: memory,
        ratioToMemory: round(app.requestsPerSecond / memory.requestsPerSecond, 3),
        auditEventsPerList,
        rounds
      }
    } finally {
      await server.kill('SIGTERM')
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function run() {
  const sizes: Record<string, unknown> = {}
  for (const size of SIZES) sizes[size] = await measureSize(size)
  return {
    name: 'find',
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    rounds: ROUNDS,
    list: LIST,
    targets: {
      '100000': { p50ms: 10, p99ms: 25 },
      '1000000': { p50ms: 20, rssMb: 1536, startupSeconds: 20 }
    },
    note: "embedded engine, server as a child process (npm start), 10 connections, median of the rounds; cpuMsPerList: the server's CPU time per list (all threads); baseline: bare Feathers + memory holding only the viewer's readable records",
    sizes
  }
}
