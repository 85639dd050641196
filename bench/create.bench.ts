// The app's own overhead on a write: authenticated POST /medical-records (an allergy, the caller a doctor of the
// clinic, with the audit trail on as deployed) at 50 connections, next to two baselines started by this bench in
// the same run: a bare Feathers Koa app serving feathers-nedb persisted to disk (the same embedded engine as it
// ships, NeDB's own append per insert; no auth, no hooks, no validation) and one serving @feathersjs/memory.
// Each is loaded in turn after a warm-up, in rounds (project, engine, memory, project, …) so a burst of load from
// elsewhere on the machine spoils one round, not the figure: the ratio is the median of the rounds' own ratios
// (project ÷ the engine's round next to it), next to the ratio of the median rounds. A second, steadier figure is
// CPU time per create (all servers run in this process, the load generator in its own): the engine's ÷ the
// project's, i.e. how much of the project's work is the engine's own.
// Target (performance issue): project ≥ 0.85 of the bare same-engine service, p99 ≤ 40 ms. BENCH_ROUNDS (default 5)
// rounds of BENCH_SECONDS (default 6) each: about 2 minutes.
import path from 'node:path'
import NeDB from '@seald-io/nedb'
import { NeDBService } from 'feathers-nedb'
import { MemoryService } from '@feathersjs/memory'
import { signUp, startServer, tempDir } from '../test/helpers/app'
import { validRecords } from '../test/fixtures/medical-records'
import { storeEngineCommits } from '../src/store'
import { call, measureLoad, round, startPlainApp, type LoadResult } from './lib'

const DURATION = Number(process.env.BENCH_SECONDS ?? 6)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const CONNECTIONS = 50

type Measured = LoadResult & { cpuMsPerRequest: number }

// The servers run in this process (the load generator in its own), so its CPU time per answered request is a
// second figure, less sensitive than throughput to other work on a shared machine.
const withCpu = async (load: () => Promise<LoadResult>): Promise<Measured> => {
  const cpu = process.cpuUsage()
  const result = await load()
  const used = process.cpuUsage(cpu)
  return { ...result, cpuMsPerRequest: round((used.user + used.system) / 1000 / result.requests, 3) }
}

const median = <T extends LoadResult>(values: T[]): T => {
  const sorted = [...values].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)
  return sorted[Math.floor(sorted.length / 2)]
}
const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

// The project with a doctor of a clinic calling, and the body of their creates.
const startProject = async (storeSync: 'batch' | 'os') => {
  const server = await startServer({ mongodb: '', storeSync })
  const owner = await signUp(server.url, {
    email: 'owner@create-bench.test',
    organization: { name: 'Bench clinic', type: 'facility' }
  })
  const caller = await signUp(server.url, { email: 'doctor@create-bench.test' })
  await call(
    server.url,
    'POST',
    '/organization-members',
    { organization: owner.organization.id, uid: caller.account.id, roles: ['doctor'], privileges: [] },
    owner.token
  )
  const body = {
    ...validRecords.allergy,
    facility: owner.organization.id,
    patient: owner.account.id,
    permissions: [{ organization: owner.organization.id, roles: ['doctor'] }]
  }
  return { server, caller, body }
}

export async function run() {
  // As deployed (STORE_SYNC=batch: a create is answered once its line and its audit event are fdatasync'ed), and
  // with STORE_SYNC=os (answered once handed to the OS, as the bare engine's NeDB appends are): the difference is
  // the price of durability, not of the app's checks.
  const { server, caller, body } = await startProject('batch')
  const osSync = await startProject('os')

  const engineDir = tempDir('clinic-bench-engine-')
  const engine = await startPlainApp(
    'records',
    new NeDBService({
      Model: new NeDB({ filename: path.join(engineDir, 'records.db'), autoload: true }),
      paginate: { default: 10, max: 50 }
    })
  )
  const memory = await startPlainApp('records', new MemoryService({ paginate: { default: 10, max: 50 } }))

  const targets: Record<'project' | 'projectOsSync' | 'engine' | 'memory', () => Promise<Measured>> = {
    project: () =>
      withCpu(() =>
        measureLoad('project', `${server.url}/medical-records`, {
          method: 'POST',
          token: caller.token,
          bodies: [body],
          connections: CONNECTIONS,
          duration: DURATION
        })
      ),
    projectOsSync: () =>
      withCpu(() =>
        measureLoad('project, STORE_SYNC=os', `${osSync.server.url}/medical-records`, {
          method: 'POST',
          token: osSync.caller.token,
          bodies: [osSync.body],
          connections: CONNECTIONS,
          duration: DURATION
        })
      ),
    engine: () =>
      withCpu(() =>
        measureLoad('bare engine', `${engine.base}/records`, {
          method: 'POST',
          bodies: [body],
          connections: CONNECTIONS,
          duration: DURATION
        })
      ),
    memory: () =>
      withCpu(() =>
        measureLoad('bare memory', `${memory.base}/records`, {
          method: 'POST',
          bodies: [body],
          connections: CONNECTIONS,
          duration: DURATION
        })
      )
  }
  const rounds: Record<keyof typeof targets, Measured[]> = {
    project: [],
    projectOsSync: [],
    engine: [],
    memory: []
  }
  // Warm-up (JIT; throughput keeps rising for a few seconds after start), not counted.
  for (const measure of Object.values(targets)) await measure()
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, measure] of Object.entries(targets) as [
      keyof typeof targets,
      () => Promise<Measured>
    ][])
      rounds[name].push(await measure())
  }

  const storeSync = server.app.get('storeSync')
  const records = storeEngineCommits(server.app).get('medical-records')?.stats
  const commitStats = records ? round(records.writes / Math.max(1, records.operations), 3) : null
  await server.close()
  await osSync.server.close()
  await engine.close()
  await memory.close()

  const project = median(rounds.project)
  const bareEngine = median(rounds.engine)
  const bareMemory = median(rounds.memory)
  const roundRatios = rounds.project.map((measured, i) =>
    round(measured.requestsPerSecond / rounds.engine[i].requestsPerSecond, 3)
  )
  const roundCpuRatios = rounds.project.map((measured, i) =>
    round(rounds.engine[i].cpuMsPerRequest / measured.cpuMsPerRequest, 3)
  )
  const ratio = medianOf(roundRatios)
  const projectOsSync = median(rounds.projectOsSync)
  const osSyncRatios = rounds.projectOsSync.map((measured, i) =>
    round(measured.requestsPerSecond / rounds.engine[i].requestsPerSecond, 3)
  )
  return {
    name: 'create',
    connections: CONNECTIONS,
    secondsPerRun: DURATION,
    rounds: ROUNDS,
    storeSync,
    note: 'authenticated POST /medical-records (audit on; STORE_SYNC=batch as deployed, and =os) vs bare Feathers+Koa with feathers-nedb on disk (NeDB appends, no fdatasync) and with @feathersjs/memory, same bodies, same run, rounds in turns; ratios: median of the rounds',
    project,
    bareEngine,
    bareMemory,
    // Throughput ÷ the bare engine's: the median of the rounds' ratios, and the ratio of the median rounds.
    ratioToEngine: ratio,
    ratioOfMedians: round(project.requestsPerSecond / bareEngine.requestsPerSecond, 3),
    roundRatios,
    ratioToMemory: round(project.requestsPerSecond / bareMemory.requestsPerSecond, 3),
    // The same with STORE_SYNC=os (no fdatasync, as the bare engine): what the app's checks cost beside the engine.
    projectOsSync,
    osSyncRatioToEngine: medianOf(osSyncRatios),
    osSyncRoundRatios: osSyncRatios,
    // CPU per request: the bare engine's ÷ the project's (1 = no overhead beyond the engine's own work).
    cpuRatioToEngine: medianOf(roundCpuRatios),
    roundCpuRatios,
    storeWritesPerOperation: commitStats,
    target: { ratioToEngine: 0.85, p99ms: 40 },
    withinTarget: ratio >= 0.85 && project.latencyP99ms <= 40,
    allRounds: rounds
  }
}
