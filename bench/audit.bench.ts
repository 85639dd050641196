// What the audit trail costs: authenticated POST /medical-records creates per second on the embedded engine with
// the audit trail on (each create appends a hash-chained audit event to the data file before answering) and off
// (config `audit.enabled: false`, switched on the running server between runs), in one run on one server — same
// process, heap and data, only the switch differs — after a warm-up, in 12 short pairs of runs (on/off, then
// off/on, …): each pair gives a ratio, and the figure is the median of the 12, so a burst of load from elsewhere on
// a shared machine spoils one pair, not the result. The budget: a loss of at most 10% (ratio ≥ 0.9).
import { signUp, startServer } from '../test/helpers/app'
import { validRecords } from '../test/fixtures/medical-records'
import { call, measureLoad, round, type LoadResult } from './lib'
import { auditLog } from '../src/audit/log'

const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
// As the create bench (bench/create.bench.ts), whose loss the budget is about.
const CONNECTIONS = 50
const PAIRS = 12
const ORDER = Array.from({ length: PAIRS }, (_, pair) => (pair % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const))).flat()

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const mean = (results: LoadResult[]) => round(results.reduce((sum, r) => sum + r.requestsPerSecond, 0) / results.length, 1)

export async function run() {
  const server = await startServer({ mongodb: '' })
  const owner = await signUp(server.url, { email: 'owner@audit-bench.test', organization: { name: 'Bench clinic', type: 'facility' } })
  const caller = await signUp(server.url, { email: 'doctor@audit-bench.test' })
  await call(server.url, 'POST', '/organization-members', { organization: owner.organization.id, uid: caller.account.id, roles: ['doctor'], privileges: [] }, owner.token)
  const body = { ...validRecords.allergy, facility: owner.organization.id, patient: owner.account.id, permissions: [{ organization: owner.organization.id, roles: ['doctor'] }] }
  const settings = server.app.get('audit')
  const load = (title: string, duration: number) =>
    measureLoad(title, `${server.url}/medical-records`, { method: 'POST', token: caller.token, bodies: [body], connections: CONNECTIONS, duration })

  // Warm-up (JIT, caches; throughput keeps rising for several seconds after start), not counted.
  await load('warm-up', Math.max(3, DURATION))
  const runs: { audit: 'on' | 'off'; result: LoadResult; cpuMsPerCreate: number }[] = []
  for (const [index, audit] of ORDER.entries()) {
    server.app.set('audit', { ...settings, enabled: audit === 'on' })
    // The server runs in this process (the load generator in its own): its CPU time per create is a second figure,
    // less sensitive than throughput to other work on the machine.
    const cpu = process.cpuUsage()
    const result = await load(`POST with audit ${audit} (${index + 1})`, Math.max(1, Math.round(DURATION / 4)))
    const used = process.cpuUsage(cpu)
    runs.push({ audit, result, cpuMsPerCreate: round((used.user + used.system) / 1000 / result.requests, 3) })
  }
  server.app.set('audit', settings)

  const audited = (await server.app.service('audit-events').find({ query: { action: 'create', $limit: 0 } })) as unknown as { total: number }
  const log = auditLog(server.app)!
  const verify = await log.verify()
  await server.close()

  const withAudit = mean(runs.filter((r) => r.audit === 'on').map((r) => r.result))
  const withoutAudit = mean(runs.filter((r) => r.audit === 'off').map((r) => r.result))
  // One ratio per pair of adjacent runs (on ÷ off), and their median.
  const pairRatios = Array.from({ length: PAIRS }, (_, pair) => {
    const [a, b] = [runs[2 * pair], runs[2 * pair + 1]]
    const on = a.audit === 'on' ? a : b
    const off = a.audit === 'on' ? b : a
    return round(on.result.requestsPerSecond / off.result.requestsPerSecond, 3)
  })
  const ratio = round(median(pairRatios), 3)
  const cpuOn = round(runs.filter((r) => r.audit === 'on').reduce((sum, r) => sum + r.cpuMsPerCreate, 0) / (ORDER.length / 2), 3)
  const cpuOff = round(runs.filter((r) => r.audit === 'off').reduce((sum, r) => sum + r.cpuMsPerCreate, 0) / (ORDER.length / 2), 3)
  const createdWithAudit = runs.filter((r) => r.audit === 'on').reduce((sum, r) => sum + r.result.requests, 0)
  return {
    name: 'audit',
    secondsPerRun: Math.max(1, Math.round(DURATION / 4)),
    connections: CONNECTIONS,
    note: 'creates/s of authenticated POST /medical-records (embedded engine), one server, audit.enabled switched between 12 pairs of short runs after a warm-up as long as BENCH_SECONDS; ratio = median of the pairs\' on ÷ off; budget ≥ 0.9',
    createsPerSecondWithAudit: withAudit,
    createsPerSecondWithoutAudit: withoutAudit,
    ratio,
    pairRatios,
    ratioOfMeans: round(withAudit / withoutAudit, 3),
    lossPercent: round((1 - ratio) * 100, 1),
    withinBudget: ratio >= 0.9,
    cpuMsPerCreateWithAudit: cpuOn,
    cpuMsPerCreateWithoutAudit: cpuOff,
    cpuRatio: round(cpuOff / cpuOn, 3),
    runs: runs.map((r) => ({ audit: r.audit, ...r.result, cpuMsPerCreate: r.cpuMsPerCreate })),
    // Every create answered with audit on has its event (warm-up creates included), and the chain verifies.
    auditCreateEvents: audited.total,
    createsAnsweredWithAuditOn: createdWithAudit,
    chainAfterLoad: verify,
    meanEventsPerStoreWrite: round(log.stats.events / Math.max(1, log.stats.batches), 2)
  }
}
