// Many live clients: BENCH_SOCKETS (default 10,000, the target; it needs as many open files per process)
// authenticated Socket.IO connections against the real server started as a child process (`src/index.ts`), as
// members of 50 facilities (BENCH_SOCKET_FACILITIES) and, one in BENCH_PATIENT_EVERY (default 20), patients; the
// clients are spread over child processes (bench/sockets-clients.ts, BENCH_SOCKETS_PER_PROCESS each, default
// 2,500). Then a clinician writes medical records at a steady BENCH_WRITE_RATE per second (default 100) for
// BENCH_SECONDS (default 15), each for one facility in turn and one of its patients: open to every member of the
// facility and to that patient. Every event must reach exactly its permitted readers: counted per record over every
// client (misses: a reader that got nothing; leaks: an event a client may not read). Figures: connect + authenticate time of all the clients,
// write-to-last-reader latency (the POST sent → the last reader's receipt) p50/p99, the server's RSS and CPU.
// Baseline in the same run: the same writes with nobody listening (the POST's own latency). Then the same with
// two instances (BENCH_SOCKETS_MODES=one,two, the default with MONGODB_URL; `two` shares a MongoDB wire emulator started here and a Redis from
// Debian's redis-server, both on loopback; a real MongoDB with MONGODB_URL) with the clients split over the two.
// The measured writes follow BENCH_WARMUP_SECONDS (default 2) of the same writes with everyone listening: the first
// event a connection may receive compiles its read rule (once per connection and service), a one-time cost of
// about 0.1 ms per connection that 10,000 clients signed in at once pay together; its latency is reported on its own
// (`warmUp`), and its deliveries are counted with the others.
// BENCH_PROFILE=1 writes a CPU profile of each server under bench/results/sockets-profile-<mode>-<n>/.
import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Application } from '../src/declarations'
import { startServer, tempDir, testMongoUrl } from '../test/helpers/app'
import { findStartLine } from '../test/helpers/server-process'
import { startRedis, type TestRedis } from '../test/helpers/redis'
import { startMongoEmulator, type MongoEmulator } from '../test/helpers/mongo-emulator'
import { validRecords } from '../test/fixtures/medical-records'
import { round, storeAccount, storeFacility, storeOf } from './lib'

const CLIENTS = Number(process.env.BENCH_SOCKETS ?? 10000)
const FACILITIES = Number(process.env.BENCH_SOCKET_FACILITIES ?? 50)
const PATIENT_EVERY = Number(process.env.BENCH_PATIENT_EVERY ?? 20)
const PER_PROCESS = Number(process.env.BENCH_SOCKETS_PER_PROCESS ?? 2500)
const RATE = Number(process.env.BENCH_WRITE_RATE ?? 100)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
// (two instances by default only on a real MongoDB: on the in-process wire emulator the emulator is the ceiling)
const MODES = (process.env.BENCH_SOCKETS_MODES ?? (process.env.MONGODB_URL ? 'one,two' : 'one'))
  .split(',')
  .filter(Boolean)
const PROFILE = process.env.BENCH_PROFILE === '1'
const root = path.join(__dirname, '..')

interface Listener {
  token: string
  id: string
  /** Staff: the facility they are a member of. Patients have none: they read their own records by uid. */
  organization?: string
}

interface Seed {
  clinician: { id: string; token: string }
  facilities: { id: string; patients: string[]; staff: number }[]
  listeners: Listener[]
}

/** Accounts, facilities and memberships written through the stores of an app on the data the servers will use. */
const seed = async (app: Application): Promise<Seed> => {
  const clinician = await storeAccount(app, 'clinician@sockets-bench.test')
  const facilities: Seed['facilities'] = []
  const listeners: Listener[] = []
  for (let f = 0; f < FACILITIES; f++) {
    facilities.push({ id: await storeFacility(app, `Clinic ${f}`, clinician.id), patients: [], staff: 0 })
  }
  // Accounts in one store call (one file write), then a token each.
  const people = Array.from({ length: CLIENTS }, (_, n) => ({
    facility: facilities[n % FACILITIES],
    patient: n % PATIENT_EVERY === PATIENT_EVERY - 1,
    email: `${n % PATIENT_EVERY === PATIENT_EVERY - 1 ? 'patient' : 'staff'}-${n}@sockets-bench.test`
  }))
  const accounts: { id: string }[] = await storeOf(app, 'accounts')._create(
    people.map((person) => ({ email: person.email, createdAt: Date.now() })),
    { adapter: { multi: true } }
  )
  const authentication = app.service('authentication') as any // (cast: the service's typed surface)
  const members: unknown[] = []
  for (const [n, person] of people.entries()) {
    const id = accounts[n].id
    const token: string = await authentication.createAccessToken({ sub: id })
    const facility = person.facility
    if (person.patient) {
      facility.patients.push(id)
      listeners.push({ token, id })
    } else {
      facility.staff++
      listeners.push({ token, id, organization: facility.id })
      members.push({
        organization: facility.id,
        uid: id,
        roles: ['nurse'],
        privileges: [],
        superadmin: false,
        createdAt: Date.now()
      })
    }
  }
  await storeOf(app, 'organization-members')._create(members, { adapter: { multi: true } })
  return { clinician, facilities, listeners }
}

/** Resident memory and CPU seconds of a process, from /proc (Linux). */
const usage = (pid: number) => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    const ticks = Number(stat[11]) + Number(stat[12])
    return { rss, cpuSeconds: ticks / 100 }
  } catch {
    return { rss: 0, cpuSeconds: 0 }
  }
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

interface ClientProcess {
  child: ChildProcess
  out: string
  wait(pattern: RegExp): Promise<RegExpExecArray>
}

const startClients = (urls: string[], listeners: Listener[]): ClientProcess => {
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=4096',
      '-r',
      'ts-node/register/transpile-only',
      path.join(__dirname, 'sockets-clients.ts')
    ],
    { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] }
  )
  const proc: ClientProcess = {
    child,
    out: '',
    wait: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(proc.out)
          if (match) {
            child.stdout!.off('data', check)
            child.off('exit', exited)
            resolve(match)
          }
        }
        const exited = (code: number | null) =>
          reject(new Error(`clients exited (${code}): ${proc.out.slice(-2000)}`))
        child.stdout!.on('data', check)
        child.once('exit', exited)
        check()
      })
  }
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => (proc.out += chunk))
  child.stdin!.write(JSON.stringify({ urls, listeners }) + '\n')
  return proc
}

/** POSTs at a steady rate (open loop: each at its planned moment, whether or not the earlier ones were answered). */
const writeSteadily = async (
  url: string,
  token: string,
  facilities: Seed['facilities'],
  rate: number,
  seconds: number
) => {
  const writes: { id?: string; sentAt: number; answeredAt: number; facility: number; patient: string }[] = []
  const total = Math.round(rate * seconds)
  const start = Date.now()
  const pending: Promise<void>[] = []
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate
    const wait = due - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const f = i % facilities.length
    const facility = facilities[f]
    const patient =
      facility.patients[Math.floor(i / facilities.length) % Math.max(1, facility.patients.length)]
    const body = {
      ...validRecords.allergy,
      facility: facility.id,
      patient: patient ?? crypto.randomUUID(),
      permissions: [{ organization: facility.id }, ...(patient ? [{ uid: patient }] : [])]
    }
    const write: (typeof writes)[number] = { sentAt: Date.now(), answeredAt: 0, facility: f, patient }
    writes.push(write)
    pending.push(
      fetch(`${url}/medical-records`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${token}`
        },
        body: JSON.stringify(body)
      }).then(async (response) => {
        const answer = (await response.json()) as { id?: string; message?: string }
        write.answeredAt = Date.now()
        if (!response.ok) throw new Error(`POST /medical-records ${response.status}: ${answer.message}`)
        write.id = answer.id
      })
    )
  }
  await Promise.all(pending)
  return { writes, seconds: (Date.now() - start) / 1000 }
}

interface ServerProcess {
  url: string
  child: ChildProcess
  kill(signal: NodeJS.Signals): Promise<void>
}

/** The server as `npm run dev` starts it (src/index.ts), with node flags (a CPU profile); resolves on its start line. */
const startServerProcess = (env: Record<string, string>, flags: string[]): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...flags, '-r', 'ts-node/register/transpile-only', 'src/index.ts'],
      {
        cwd: root,
        env: { ...process.env, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', ...env },
        stdio: ['ignore', 'pipe', 'pipe']
      }
    )
    let out = ''
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const started = findStartLine(out.slice(0, out.lastIndexOf('\n') + 1))
      if (!started) return
      child.stdout!.off('data', onData)
      child.stdout!.resume()
      child.off('exit', failed)
      resolve({
        url: `http://127.0.0.1:${started.port}`,
        child,
        async kill(signal) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal)
          await exited
        }
      })
    }
    const failed = (code: number | null) => reject(new Error(`server exited with code ${code}:\n${out}`))
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.once('exit', failed)
  })

interface Mode {
  name: 'one' | 'two'
  database: string
  servers: ServerProcess[]
  stop(): Promise<void>
}

const startMode = async (name: 'one' | 'two'): Promise<{ mode: Mode; seeded: Seed }> => {
  const dataDir = tempDir('clinic-sockets-bench-')
  let mongo: MongoEmulator | undefined
  let redis: TestRedis | undefined
  // Two instances share a MongoDB: MONGODB_URL's server when set (a fresh database on it), else the wire emulator.
  let mongodb = ''
  if (name === 'two') {
    mongodb = testMongoUrl()
    if (!mongodb) {
      mongo = await startMongoEmulator()
      mongodb = mongo.url
    }
    redis = await startRedis()
  }
  const seedApp = await startServer({ dataDir, mongodb })
  const seeded = await seed(seedApp.app)
  await seedApp.close({ keep: true })
  const env: Record<string, string> = {
    // (the tokens were signed with the secret the seeding app generated in DATA_DIR; both read it there)
    DATA_DIR: dataDir,
    MONGODB_URL: mongodb,
    REDIS_URL: redis?.url ?? '',
    LOG_LEVEL: 'error',
    // (BENCH_SERVER_NODE_OPTIONS: node options of the servers alone)
    ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {})
  }
  const servers: ServerProcess[] = []
  for (let i = 0; i < (name === 'two' ? 2 : 1); i++)
    servers.push(
      await startServerProcess(
        env,
        PROFILE
          ? [
              '--cpu-prof',
              `--cpu-prof-dir=${path.join(__dirname, 'results', `sockets-profile-${name}-${i}`)}`
            ]
          : []
      )
    )
  return {
    seeded,
    mode: {
      name,
      database: name === 'one' ? 'the embedded engine' : mongo ? 'the MongoDB wire emulator' : 'MONGODB_URL',
      servers,
      async stop() {
        for (const server of servers) await server.kill('SIGTERM')
        await redis?.stop()
        await mongo?.stop()
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    }
  }
}

const runMode = async (name: 'one' | 'two') => {
  const seedStart = Date.now()
  const { mode, seeded } = await startMode(name)
  const seedSeconds = (Date.now() - seedStart) / 1000
  const urls = mode.servers.map((server) => server.url)
  const pids = mode.servers.map((server) => server.child.pid as number)
  try {
    // Warm-up (the server's first calls compile its code), then the baseline: the same steady writes with nobody listening (the POST's own latency), a third of the duration.
    await writeSteadily(urls[0], seeded.clinician.token, seeded.facilities, RATE, 2)
    const baseline = await writeSteadily(
      urls[0],
      seeded.clinician.token,
      seeded.facilities,
      RATE,
      Math.max(3, SECONDS / 3)
    )
    const baselineLatency = baseline.writes.map((write) => write.answeredAt - write.sentAt)

    const connectStart = Date.now()
    const processes: ClientProcess[] = []
    for (let offset = 0; offset < seeded.listeners.length; offset += PER_PROCESS)
      processes.push(startClients(urls, seeded.listeners.slice(offset, offset + PER_PROCESS)))
    const ready = await Promise.all(processes.map((proc) => proc.wait(/READY (\S+) (\d+)/)))
    const connectSeconds = (Date.now() - connectStart) / 1000
    const failedConnects = ready.reduce((total, match) => total + Number(match[2]), 0)
    const idle = pids.map(usage)
    // Channels are joined just after authentication answers (the access context loads): let the last ones settle.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const warm =
      WARMUP > 0
        ? await writeSteadily(urls[0], seeded.clinician.token, seeded.facilities, RATE, WARMUP)
        : { writes: [] as Awaited<ReturnType<typeof writeSteadily>>['writes'] }

    const cpuBefore = pids.map(usage)
    // The listeners' processes and this one (the writer) share the machine with the server: their CPU shows what
    // is left for the server on it.
    const clientPids = processes.map((proc) => proc.child.pid as number)
    const clientsBefore = clientPids.map(usage)
    const writerBefore = process.cpuUsage()
    let peakRss = idle.map((one) => one.rss)
    const sampler = setInterval(() => {
      peakRss = pids.map((pid, i) => Math.max(peakRss[i], usage(pid).rss))
    }, 500)
    const load = await writeSteadily(urls[0], seeded.clinician.token, seeded.facilities, RATE, SECONDS)
    // Events still in flight: 3 s, plus the slowest POST's time (a write answered late has its events late too).
    const slowest = Math.max(0, ...load.writes.map((write) => write.answeredAt - write.sentAt))
    await new Promise((resolve) => setTimeout(resolve, 3000 + slowest))
    clearInterval(sampler)
    const cpuAfter = pids.map(usage)
    const clientsAfter = clientPids.map(usage)
    const writerUsed = process.cpuUsage(writerBefore)

    const counts = new Map<string, [number, number]>()
    let leaks = 0
    for (const proc of processes) {
      proc.out = ''
      const line = proc.wait(/^\{.*\}$/m)
      proc.child.stdin!.write('STOP\n')
      const report = JSON.parse((await line)[0]) as { leaks: number; records: [string, [number, number]][] }
      leaks += report.leaks
      for (const [id, [count, last]] of report.records) {
        const seen = counts.get(id)
        if (seen) {
          seen[0] += count
          seen[1] = Math.max(seen[1], last)
        } else counts.set(id, [count, last])
      }
    }
    await Promise.all(
      processes.map((proc) =>
        proc.child.exitCode !== null || proc.child.signalCode !== null
          ? undefined
          : new Promise((resolve) => proc.child.once('exit', resolve))
      )
    )

    // Expected readers of each record: its facility's staff and its patient.
    let expected = 0
    let received = 0
    let missed = 0
    let extra = 0
    const toLast: number[] = []
    const warmToLast: number[] = []
    let measuredReceived = 0
    for (const [writes, latencies] of [
      [warm.writes, warmToLast],
      [load.writes, toLast]
    ] as const) {
      for (const write of writes) {
        const readers = seeded.facilities[write.facility].staff + (write.patient ? 1 : 0)
        expected += readers
        const [count, last] = counts.get(write.id ?? '') ?? [0, 0]
        received += count
        if (writes === load.writes) measuredReceived += count
        if (count < readers) missed += readers - count
        if (count > readers) extra += count - readers
        if (count > 0) latencies.push(last - write.sentAt)
      }
    }
    const writeLatency = load.writes.map((write) => write.answeredAt - write.sentAt)
    const cpuSeconds = pids.map((_, i) => round(cpuAfter[i].cpuSeconds - cpuBefore[i].cpuSeconds, 1))
    const clientCpuSeconds = clientPids.reduce(
      (total, _, i) => total + clientsAfter[i].cpuSeconds - clientsBefore[i].cpuSeconds,
      0
    )
    const writerCpuSeconds = (writerUsed.user + writerUsed.system) / 1e6
    // (the window: the writes and the wait for their last events)
    const windowSeconds = load.seconds + (3000 + slowest) / 1000
    return {
      mode: name === 'one' ? 'one instance' : `two instances over Redis (${mode.database})`,
      clients: seeded.listeners.length,
      patients: seeded.listeners.filter((listener) => !listener.organization).length,
      clientProcesses: processes.length,
      seedSeconds: round(seedSeconds, 1),
      connectSeconds: round(connectSeconds, 1),
      failedConnects,
      writesPerSecond: round(load.writes.length / load.seconds, 1),
      writes: load.writes.length,
      warmUpWrites: warm.writes.length,
      readersPerWrite: round(expected / Math.max(1, load.writes.length + warm.writes.length), 1),
      deliveriesExpected: expected,
      deliveriesReceived: received,
      missed,
      duplicates: extra,
      leaks,
      exact: missed === 0 && extra === 0 && leaks === 0,
      deliveriesPerSecond: round(measuredReceived / load.seconds, 0),
      writeToLastReaderP50ms: percentile(toLast, 50),
      writeToLastReaderP99ms: percentile(toLast, 99),
      writeToLastReaderMaxms: percentile(toLast, 100),
      // The warm-up's writes: each reader's first event (its read rule compiled then).
      warmUpWriteToLastReaderP50ms: percentile(warmToLast, 50),
      warmUpWriteToLastReaderP99ms: percentile(warmToLast, 99),
      postP50ms: percentile(writeLatency, 50),
      postP99ms: percentile(writeLatency, 99),
      baselinePostP50ms: percentile(baselineLatency, 50),
      baselinePostP99ms: percentile(baselineLatency, 99),
      serverRssIdleMB: idle.map((one) => round(one.rss / 1048576, 0)),
      serverRssPeakMB: peakRss.map((rss) => round(rss / 1048576, 0)),
      serverCpuSecondsDuringWrites: cpuSeconds,
      serverCpuShareDuringWrites: cpuSeconds.map((seconds) => round(seconds / load.seconds, 2)),
      serverCpuMsPerDelivery: round(
        (cpuSeconds.reduce((a, b) => a + b, 0) * 1000) / Math.max(1, received),
        3
      ),
      clientCpuSecondsDuringWrites: round(clientCpuSeconds, 1),
      clientCpuMsPerDelivery: round((clientCpuSeconds * 1000) / Math.max(1, measuredReceived), 3),
      writerCpuSecondsDuringWrites: round(writerCpuSeconds, 1),
      // Cores busy on the machine in the window (server, listeners, writer), of os.cpus().length.
      coresBusy: round(
        (cpuSeconds.reduce((a, b) => a + b, 0) + clientCpuSeconds + writerCpuSeconds) / windowSeconds,
        2
      ),
      loadAverage: os.loadavg().map((value) => round(value, 2))
    }
  } finally {
    await mode.stop()
  }
}

/** The most files one process may open here (ulimit -n). */
const fileDescriptorLimit = () =>
  Number(fs.readFileSync('/proc/self/limits', 'utf8').match(/Max open files\s+(\d+)/)?.[1] ?? 0)

export async function run() {
  // The server holds a socket per client, and its own files besides.
  const needed = CLIENTS + 500
  if (fileDescriptorLimit() < needed) {
    throw new Error(
      `The sockets bench opens ${CLIENTS} connections to one server: it needs at least ${needed} open files per ` +
        `process, and this shell allows ${fileDescriptorLimit()}. Raise it (ulimit -n ${needed}) or set BENCH_SOCKETS lower.`
    )
  }
  const results = []
  for (const name of MODES as ('one' | 'two')[]) {
    const result = await runMode(name)
    console.log(JSON.stringify(result))
    results.push(result)
  }
  return {
    name: 'sockets',
    note: `${CLIENTS} authenticated Socket.IO clients (${FACILITIES} facilities, one in ${PATIENT_EVERY} a patient) on the real server (child process), ${RATE} medical-record writes/s for ${SECONDS} s, each open to its facility's staff and its patient; targets at 10,000 clients: every event exactly to its readers, write-to-last-reader p99 <= 250 ms, RSS <= 1.5 GB, connect+authenticate <= 60 s`,
    fileDescriptorLimit: fileDescriptorLimit(),
    ephemeralPorts: fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim(),
    cores: os.cpus().length,
    results
  }
}
