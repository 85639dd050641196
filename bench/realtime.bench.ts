// Socket.IO fan-out: 500 connected Feathers clients (in their own process, bench/realtime-clients.ts), 25 members
// in each of 20 organizations, while one clinician creates medical records for the 20 organizations in turn (each
// record open to every member of its organization) at 10 connections. Each create must reach exactly the 25
// members of its organization (no event about another organization's record reaches anyone); figures: events
// delivered per second, and the create's throughput and latency with the 500 listeners next to the same load
// with no one listening (the baseline, same run, same server). The audit cost: every event sent to a listener is
// an audit event (src/audit/realtime.ts); the same load with the 500 listeners runs with the audit trail on and
// off in alternating phases (on, off, on, off), and the ratio on ÷ off is printed, with the check that every
// delivery made while it was on is in the trail.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { newId } from '../src/store'
import { startServer } from '../test/helpers/app'
import { validRecords } from '../test/fixtures/medical-records'
import { measureLoad, round, storeAccount, storeFacility, storeOf, type LoadResult } from './lib'
import { auditLog } from '../src/audit/log'

const ORGANIZATIONS = 20
const PER_ORGANIZATION = 25
const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 10

export async function run() {
  const server = await startServer({ mongodb: '' })
  const app = server.app
  const clinician = await storeAccount(app, 'clinician@realtime-bench.test')
  const organizations: string[] = []
  const listeners: { token: string; organization: string }[] = []
  for (let o = 0; o < ORGANIZATIONS; o++) {
    const organization = { id: await storeFacility(app, `Clinic ${o}`, clinician.id) }
    organizations.push(organization.id)
    for (let m = 0; m < PER_ORGANIZATION; m++) {
      const member = await storeAccount(app, `member-${o}-${m}@realtime-bench.test`)
      await storeOf(app, 'organization-members')._create({
        organization: organization.id,
        uid: member.id,
        roles: ['nurse'],
        privileges: [],
        superadmin: false,
        createdAt: Date.now()
      })
      listeners.push({ token: member.token, organization: organization.id })
    }
  }
  const bodies = organizations.map((organization) => ({
    ...validRecords.allergy,
    facility: organization,
    patient: newId(),
    permissions: [{ organization }]
  }))
  const load = (title: string) =>
    measureLoad(title, `${server.url}/medical-records`, {
      method: 'POST',
      token: clinician.token,
      bodies,
      connections: CONNECTIONS,
      duration: DURATION
    })

  await load('warm-up')
  const baseline = await load('creates, nobody listening')

  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', path.join(__dirname, 'realtime-clients.ts')],
    {
      cwd: path.join(__dirname, '..'),
      stdio: ['pipe', 'pipe', 'inherit']
    }
  )
  child.stdin.write(JSON.stringify({ url: server.url, listeners }) + '\n')
  let out = ''
  child.stdout.setEncoding('utf8')
  const line = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(out)
        if (match) resolve(match[0])
      }
      child.stdout.on('data', (chunk: string) => {
        out += chunk
        check()
      })
      child.once('exit', (code) => reject(new Error(`listeners exited (${code}): ${out}`)))
      check()
    })
  const connectStart = Date.now()
  await line(/READY/)
  const connectSeconds = round((Date.now() - connectStart) / 1000, 1)
  const sockets = app.channel(app.channels).length

  // With listeners: audit on and off in alternating phases of half the duration each (drift falls on both sides).
  const settings = app.get('audit')
  const phase = async (audit: boolean, title: string) => {
    app.set('audit', { ...settings, enabled: audit })
    try {
      return await measureLoad(title, `${server.url}/medical-records`, {
        method: 'POST',
        token: clinician.token,
        bodies,
        connections: CONNECTIONS,
        duration: Math.max(2, DURATION / 2)
      })
    } finally {
      app.set('audit', settings)
    }
  }
  const auditSince = Date.now()
  const log = auditLog(app)!
  const statsBefore = { ...log.stats }
  const on: LoadResult[] = []
  const off: LoadResult[] = []
  for (let pair = 0; pair < 2; pair++) {
    on.push(await phase(true, 'creates, 500 listening, audit on'))
    off.push(await phase(false, 'creates, 500 listening, audit off'))
  }
  const sum = (loads: LoadResult[]) => {
    const requests = loads.reduce((total, one) => total + one.requests, 0)
    const seconds = loads.reduce((total, one) => total + one.requests / one.requestsPerSecond, 0)
    return {
      requestsPerSecond: round(requests / seconds, 1),
      latencyP50ms: Math.max(...loads.map((one) => one.latencyP50ms)),
      latencyP99ms: Math.max(...loads.map((one) => one.latencyP99ms)),
      requests
    }
  }
  const withListeners = sum(on)
  const withListenersAuditOff = sum(off)
  await new Promise((resolve) => setTimeout(resolve, 1000)) // events still in flight
  child.stdin.write('STOP\n')
  const stats = JSON.parse(await line(/\{.*\}/)) as {
    received: number
    leaks: number
    firstAt: number
    lastAt: number
  }
  // The realtime deliveries in the trail (the phases with the audit on): one id per delivery.
  const realtimeEvents = (await app.service('audit-events').events._find({
    query: { via: 'realtime', at: { $gte: auditSince }, $select: ['ids'] },
    paginate: false
  })) as unknown as { ids: string[] }[]
  const deliveriesRecorded = realtimeEvents.reduce((total, event) => total + event.ids.length, 0)
  const writes = log.stats.batches - statsBefore.batches
  const written = log.stats.events - statsBefore.events
  await server.close()

  // Creates of the measured loads (warm-up and baseline had no listeners): each should reach its 25 members.
  const expected = (withListeners.requests + withListenersAuditOff.requests) * PER_ORGANIZATION
  return {
    name: 'realtime',
    listeners: listeners.length,
    organizations: ORGANIZATIONS,
    authenticatedSockets: sockets,
    connectSeconds,
    durationSeconds: DURATION,
    connections: CONNECTIONS,
    note: "POST /medical-records for 20 organizations in turn (each open to its 25 members) with 500 Socket.IO listeners in another process vs the same load with none; every create must reach exactly its organization's members",
    baseline,
    withListeners,
    withListenersAuditOff,
    createThroughputRatio: round(withListeners.requestsPerSecond / baseline.requestsPerSecond, 3),
    realtimeAuditNote:
      'the same load with the 500 listeners, audit trail on (each event sent to a listener recorded before it is sent) vs off, alternating phases',
    auditOnOffThroughputRatio: round(
      withListeners.requestsPerSecond / withListenersAuditOff.requestsPerSecond,
      3
    ),
    auditAddedLatencyP50ms: withListeners.latencyP50ms - withListenersAuditOff.latencyP50ms,
    auditAddedLatencyP99ms: withListeners.latencyP99ms - withListenersAuditOff.latencyP99ms,
    realtimeAuditEvents: realtimeEvents.length,
    deliveriesRecorded,
    // (at least: creates still in flight when a phase's count ended were recorded too)
    everyAuditedDeliveryRecorded: deliveriesRecorded >= withListeners.requests * PER_ORGANIZATION,
    meanAuditEventsPerWrite: round(written / Math.max(1, writes), 1),
    addedLatencyP50ms: withListeners.latencyP50ms - baseline.latencyP50ms,
    addedLatencyP99ms: withListeners.latencyP99ms - baseline.latencyP99ms,
    eventsExpected: expected,
    eventsReceived: stats.received,
    leakedEvents: stats.leaks,
    eventsPerSecond: round(stats.received / Math.max(0.001, (stats.lastAt - stats.firstAt) / 1000), 0),
    everyCreateReachedItsReaders: stats.received >= expected && stats.leaks === 0
  }
}
