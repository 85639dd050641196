// The app's own overhead on a write: authenticated POST /medical-records (an allergy, the caller a doctor of the
// clinic, with the audit trail on as deployed) at 50 connections, next to two baselines started by this bench in
// the same run: a bare Feathers Koa app serving feathers-nedb persisted to disk (the same embedded engine as it
// ships, NeDB's own append per insert; no auth, no hooks, no validation) and one serving @feathersjs/memory.
// Each is loaded in turn after a warm-up, in rounds (project, engine, memory, project, …) so a burst of load from
// elsewhere on the machine spoils one round, not the figure; the figure per target is its median round.
// Target (performance issue): project ≥ 0.6 of the bare same-engine service, p99 ≤ 60 ms.
import path from 'node:path'
import NeDB from '@seald-io/nedb'
import { NeDBService } from 'feathers-nedb'
import { MemoryService } from '@feathersjs/memory'
import { signUp, startServer, tempDir } from '../test/helpers/app'
import { validRecords } from '../test/fixtures/medical-records'
import { storeEngineCommits } from '../src/store'
import { call, measureLoad, round, startPlainApp, type LoadResult } from './lib'

const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
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

export async function run() {
  const server = await startServer({ mongodb: '' })
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

  const engineDir = tempDir('clinic-bench-engine-')
  const engine = await startPlainApp(
    'records',
    new NeDBService({
      Model: new NeDB({ filename: path.join(engineDir, 'records.db'), autoload: true }),
      paginate: { default: 10, max: 50 }
    })
  )
  const memory = await startPlainApp('records', new MemoryService({ paginate: { default: 10, max: 50 } }))

  const targets: Record<'project' | 'engine' | 'memory', () => Promise<Measured>> = {
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
  const rounds: Record<keyof typeof targets, Measured[]> = { project: [], engine: [], memory: [] }
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
  await engine.close()
  await memory.close()

  const project = median(rounds.project)
  const bareEngine = median(rounds.engine)
  const bareMemory = median(rounds.memory)
  const ratio = round(project.requestsPerSecond / bareEngine.requestsPerSecond, 3)
  return {
    name: 'create',
    connections: CONNECTIONS,
    secondsPerRun: DURATION,
    rounds: ROUNDS,
    storeSync,
    note: 'authenticated POST /medical-records (audit on) vs bare Feathers+Koa with feathers-nedb on disk and with @feathersjs/memory, same bodies, same run; median round each',
    project,
    bareEngine,
    bareMemory,
    ratioToEngine: ratio,
    ratioToMemory: round(project.requestsPerSecond / bareMemory.requestsPerSecond, 3),
    // CPU per request: the bare engine's ÷ the project's (1 = no overhead beyond the engine's own work).
    cpuRatioToEngine: round(bareEngine.cpuMsPerRequest / project.cpuMsPerRequest, 3),
    storeWritesPerOperation: commitStats,
    target: { ratioToEngine: 0.6, p99ms: 60 },
    withinTarget: ratio >= 0.6 && project.latencyP99ms <= 60,
    allRounds: rounds
  }
}
