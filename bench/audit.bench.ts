// What the audit trail costs: authenticated POST /medical-records creates per second on the embedded engine with
// the audit trail on (each create appends a hash-chained, synced audit event before answering) and off (config
// `audit.enabled: false`), as the create bench loads it (50 connections).
// Method: one continuous load on one server (same process, heap and data), during which the switch flips every
// PHASE_MS (on, off, on, …). Each create is counted in the phase its `createdAt` falls in (the switch is read when
// the call starts, microseconds before `createdAt` is set), leaving out the first SETTLE_MS of every phase (calls
// still finishing from the phase before). With phases this short, whatever drifts during the run — the heap and
// the collection growing, the disk's own flushes, other load on the machine — falls alike on both sides; runs of
// seconds each (this bench's first form) scattered from 0.65 to 1.33 per pair. The figure: creates per second in
// the "on" phases ÷ in the "off" phases; also the median of the ratios of adjacent phase pairs. The issue's
// budget: a loss of at most 10% (ratio ≥ 0.9).
import { signUp, startServer } from '../test/helpers/app'
import { validRecords } from '../test/fixtures/medical-records'
import { call, measureLoad, round } from './lib'
import { auditLog } from '../src/audit/log'

const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
// As the create bench (bench/create.bench.ts), whose loss the budget is about.
const CONNECTIONS = 50
const PHASE_MS = 500
const SETTLE_MS = 150

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

export async function run() {
  const server = await startServer({ mongodb: '' })
  const owner = await signUp(server.url, {
    email: 'owner@audit-bench.test',
    organization: { name: 'Bench clinic', type: 'facility' }
  })
  const caller = await signUp(server.url, { email: 'doctor@audit-bench.test' })
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
  const settings = server.app.get('audit')
  const load = (title: string, duration: number) =>
    measureLoad(title, `${server.url}/medical-records`, {
      method: 'POST',
      token: caller.token,
      bodies: [body],
      connections: CONNECTIONS,
      duration
    })

  // Warm-up (JIT, caches; throughput keeps rising for several seconds after start), not counted.
  await load('warm-up', Math.max(3, DURATION))

  // The measured load: the switch flips every PHASE_MS on the server's own clock, each flip's time recorded.
  const measuredSeconds = Math.max(10, DURATION * 4)
  const phases: { audit: boolean; start: number }[] = []
  const flip = (audit: boolean) => {
    server.app.set('audit', { ...settings, enabled: audit })
    phases.push({ audit, start: Date.now() })
  }
  flip(true)
  const timer = setInterval(() => flip(!phases[phases.length - 1].audit), PHASE_MS)
  let total
  try {
    total = await load('alternating audit on/off', measuredSeconds)
  } finally {
    clearInterval(timer)
    server.app.set('audit', settings)
  }
  const end = Date.now()

  // Creates per phase, by `createdAt` (the store's own field; the bench reads it with an internal call).
  const created = (await server.app.service('medical-records')._find({
    query: { createdAt: { $gte: phases[0].start }, $select: ['createdAt'] },
    paginate: false
  })) as unknown as { createdAt: number }[]
  const times = created.map((record) => record.createdAt).sort((a, b) => a - b)
  let cursor = 0
  const counted = phases.map((phase, index) => {
    const from = phase.start + SETTLE_MS
    const to = index + 1 < phases.length ? phases[index + 1].start : end
    while (cursor < times.length && times[cursor] < from) cursor++
    let count = 0
    while (cursor < times.length && times[cursor] < to) {
      count++
      cursor++
    }
    return { audit: phase.audit, seconds: Math.max(0, to - from) / 1000, count }
  })
  // The last phase was cut by the end of the load: left out.
  const full = counted.slice(0, -1).filter((phase) => phase.seconds > 0)
  const rate = (audit: boolean) => {
    const side = full.filter((phase) => phase.audit === audit)
    return (
      side.reduce((sum, phase) => sum + phase.count, 0) / side.reduce((sum, phase) => sum + phase.seconds, 0)
    )
  }
  const withAudit = rate(true)
  const withoutAudit = rate(false)
  const pairRatios: number[] = []
  for (let index = 0; index + 1 < full.length; index += 2) {
    const [a, b] = [full[index], full[index + 1]]
    const on = a.audit ? a : b
    const off = a.audit ? b : a
    if (on.count > 0 && off.count > 0) pairRatios.push(on.count / on.seconds / (off.count / off.seconds))
  }

  const audited = (await server.app
    .service('audit-events')
    .find({ query: { action: 'create', $limit: 0 } })) as unknown as { total: number }
  const log = auditLog(server.app)!
  const verify = await log.verify()
  await server.close()

  const ratio = round(withAudit / withoutAudit, 3)
  return {
    name: 'audit',
    connections: CONNECTIONS,
    measuredSeconds,
    phaseMs: PHASE_MS,
    settleMs: SETTLE_MS,
    note: `creates/s of authenticated POST /medical-records (embedded engine), one server, one ${measuredSeconds} s load during which audit.enabled flips every ${PHASE_MS} ms; each create counted in the phase of its createdAt, the first ${SETTLE_MS} ms of each phase left out; ratio = on ÷ off; budget ≥ 0.9`,
    createsPerSecondWithAudit: round(withAudit, 1),
    createsPerSecondWithoutAudit: round(withoutAudit, 1),
    ratio,
    lossPercent: round((1 - ratio) * 100, 1),
    withinBudget: ratio >= 0.9,
    medianPairRatio: round(median(pairRatios), 3),
    pairs: pairRatios.length,
    pairRatioQuartiles: [
      round(median(pairRatios.filter((r) => r <= median(pairRatios))), 3),
      round(median(pairRatios.filter((r) => r >= median(pairRatios))), 3)
    ],
    loadRequestsPerSecond: total.requestsPerSecond,
    loadLatencyP50ms: total.latencyP50ms,
    loadLatencyP99ms: total.latencyP99ms,
    // Every create answered with the trail on has its event (warm-up creates included), and the chain verifies.
    auditCreateEvents: audited.total,
    createsCountedInOnPhases: full
      .filter((phase) => phase.audit)
      .reduce((sum, phase) => sum + phase.count, 0),
    chainAfterLoad: verify,
    meanEventsPerWrite: round(log.stats.events / Math.max(1, log.stats.batches), 2)
  }
}
