// Appointments on the embedded engine, the server in this process on a fixed clock (Friday 5 March 2027, 12:00 UTC):
// a facility of 20 providers, each with a weekday schedule (Monday to Friday 09:00–12:00 and 13:00–17:00, 15-minute
// slots: 560 slots a week each, 11,200 in all) and 5 bookings in the searched week.
// (a) Slot search: `GET /appointment-slots?facility=&from=&to=` over one week (every provider; first page), one
//     request at a time, p50 and p95; baseline in the same run and rounds: `GET /schedules?facility=` (the plain
//     paginated find of the same facility's schedules, same auth and hooks), so the ratio is what computing the
//     free slots costs on top of reading the schedules.
// (b) Booking throughput: `POST /appointments` of distinct free slots, one at a time and 10 at once (spread over
//     the providers; and all 10 on one provider, where the provider lock serializes them); baseline in the same
//     run and modes: `POST /medical-records` (an allergy, audit on, as create.bench.ts).
// (c) Booking races: RACERS (20) clients `POST /appointments` the same free slot at once, BENCH_RACES times (default
//     30): exactly one must get 201 and the others 409; p50/p99/max of every request's latency, and of the race (the
//     last answer); baseline in the same run: 20 `POST /medical-records` at once, as many times.
// Rounds alternate project and baseline, so a burst of load from elsewhere spoils one round, not the figure; the
// figure is the median round.
import { signUp, startServer, type SignedUp } from '../test/helpers/app'
import { addMember } from '../test/helpers/billing'
import { validRecords } from '../test/fixtures/medical-records'
import { call, jsonHeaders, round } from './lib'

const PROVIDERS = 20
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 200)
const BOOKINGS = Number(process.env.BENCH_BOOKINGS ?? 200)
const CONCURRENCY = 10
const RACES = Number(process.env.BENCH_RACES ?? 30)
const RACERS = 20

const MIN = 60_000
const DAY = 86_400_000
const NOW = Date.UTC(2027, 2, 5, 12, 0)
// The searched week: Monday 8 March 2027 00:00 UTC to the next Monday.
const WEEK = Date.UTC(2027, 2, 8)
const weekdays = [1, 2, 3, 4, 5].flatMap((day) => [
  { day, start: '09:00', end: '12:00' },
  { day, start: '13:00', end: '17:00' }
])
// The 28 daily slot starts (minutes after midnight) of the weekday schedule.
const dailyStarts = [
  ...Array.from({ length: 12 }, (_, i) => 9 * 60 + i * 15),
  ...Array.from({ length: 16 }, (_, i) => 13 * 60 + i * 15)
]

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

/** `n` requests one at a time: p50 and p95 in ms. */
const latencies = async (n: number, request: (i: number) => Promise<Response>) => {
  const times: number[] = []
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    const response = await request(i)
    await response.arrayBuffer()
    if (!response.ok) throw new Error(`request ${i}: ${response.status}`)
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { p50ms: round(percentile(times, 50), 2), p95ms: round(percentile(times, 95), 2), requests: n }
}

/** `n` writes by `concurrency` workers taking the next index in turn: writes per second (every one must succeed). */
const throughput = async (n: number, concurrency: number, request: (i: number) => Promise<Response>) => {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) {
        const response = await request(i)
        const body = await response.text()
        if (!response.ok) throw new Error(`write ${i}: ${response.status} ${body}`)
      }
    })
  )
  return round(n / ((performance.now() - started) / 1000), 1)
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

export async function run() {
  const server = await startServer({ mongodb: '', clock: { now: () => NOW } })
  const base = server.url
  const owner = await signUp(base, {
    email: 'owner@appointments-bench.test',
    organization: { name: 'Bench calendar clinic', type: 'facility' }
  })
  const facility = owner.organization.id as string
  const patient = await signUp(base, { email: 'patient@appointments-bench.test' })
  const providers: SignedUp[] = []
  for (let i = 0; i < PROVIDERS; i++) {
    const provider = await signUp(base, { email: `provider-${i}@appointments-bench.test` })
    await addMember(base, owner, facility, provider, { roles: ['physician'] })
    providers.push(provider)
  }
  for (const provider of providers)
    await call(
      base,
      'POST',
      '/schedules',
      { facility, provider: provider.account.id, weekly: weekdays },
      owner.token
    )

  // Five bookings per provider in the searched week (one a day, at a different time each day).
  const book = (provider: SignedUp, start: number) =>
    fetch(`${base}/appointments`, {
      method: 'POST',
      headers: jsonHeaders(owner.token),
      body: JSON.stringify({ facility, provider: provider.account.id, patient: patient.account.id, start })
    })
  for (const [p, provider] of providers.entries())
    for (let day = 0; day < 5; day++) {
      const response = await book(provider, WEEK + day * DAY + dailyStarts[(p + day * 5) % 28] * MIN)
      if (response.status !== 201)
        throw new Error(`seed booking: ${response.status} ${await response.text()}`)
    }

  // (a) Slot search against the plain find of the facility's schedules.
  const slotsUrl = `${base}/appointment-slots?facility=${facility}&from=${WEEK}&to=${WEEK + 7 * DAY}`
  const schedulesUrl = `${base}/schedules?facility=${facility}&$limit=${PROVIDERS}`
  const check = await call(base, 'GET', slotsUrl.slice(base.length), undefined, owner.token)
  const freeInWeek = check.total as number
  const get = (url: string) => () => fetch(url, { headers: jsonHeaders(owner.token) })
  await latencies(50, get(slotsUrl))
  await latencies(50, get(schedulesUrl))
  const searchRounds: {
    slots: { p50ms: number; p95ms: number }
    schedules: { p50ms: number; p95ms: number }
  }[] = []
  for (let r = 0; r < ROUNDS; r++)
    searchRounds.push({
      slots: await latencies(SEARCHES, get(slotsUrl)),
      schedules: await latencies(SEARCHES, get(schedulesUrl))
    })
  const slotsP50 = median(searchRounds.map((r) => r.slots.p50ms))
  const slotsP95 = median(searchRounds.map((r) => r.slots.p95ms))
  const schedulesP50 = median(searchRounds.map((r) => r.schedules.p50ms))
  const schedulesP95 = median(searchRounds.map((r) => r.schedules.p95ms))

  // (b) Booking throughput against record creates. Distinct free slots from the week after the searched one on:
  // slot i of the sequence is provider i mod 20 (spread) or provider 0 only (one provider), never booked before.
  let spreadNext = 0
  let oneNext = 0
  const spreadSlot = () => {
    const i = spreadNext++
    const p = i % PROVIDERS
    const k = Math.floor(i / PROVIDERS)
    const day = Math.floor(k / 28)
    const week = 1 + Math.floor(day / 5)
    return {
      provider: providers[p],
      start: WEEK + week * 7 * DAY + (day % 5) * DAY + dailyStarts[k % 28] * MIN
    }
  }
  // Provider 0's slots counted back from the end of the horizon (weeks 5 to 8), clear of the spread ones.
  const oneSlot = () => {
    const k = oneNext++
    const day = Math.floor(k / 28)
    const week = 5 + Math.floor(day / 5)
    return {
      provider: providers[0],
      start: WEEK + week * 7 * DAY + (day % 5) * DAY + dailyStarts[k % 28] * MIN
    }
  }
  const record = {
    ...validRecords.allergy,
    facility,
    patient: patient.account.id,
    permissions: [{ organization: facility, roles: ['doctor'] }]
  }
  const createRecord = () =>
    fetch(`${base}/medical-records`, {
      method: 'POST',
      headers: jsonHeaders(owner.token),
      body: JSON.stringify(record)
    })
  const bookSpread = () => {
    const { provider, start } = spreadSlot()
    return book(provider, start)
  }
  const bookOne = () => {
    const { provider, start } = oneSlot()
    return book(provider, start)
  }
  const perRound = Math.floor(BOOKINGS / ROUNDS)
  // Warm-up, not counted.
  await throughput(20, 1, bookSpread)
  await throughput(20, 1, createRecord)
  const modes = {
    sequential: { book: bookSpread, concurrency: 1 },
    concurrentSpread: { book: bookSpread, concurrency: CONCURRENCY },
    concurrentOneProvider: { book: bookOne, concurrency: CONCURRENCY }
  }
  const booking: Record<string, unknown> = {}
  for (const [mode, { book: write, concurrency }] of Object.entries(modes)) {
    const bookings: number[] = []
    const records: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      bookings.push(await throughput(perRound, concurrency, write))
      records.push(await throughput(perRound, concurrency, createRecord))
    }
    booking[mode] = {
      concurrency,
      bookingsPerSecond: median(bookings),
      recordCreatesPerSecond: median(records),
      ratioToRecordCreate: round(median(bookings) / median(records), 3),
      rounds: { bookings, records }
    }
  }
  // (c) Races: provider 1's slots from the end of the horizon (weeks 5 to 8), clear of the other modes'.
  let raceNext = 0
  const raceSlot = () => {
    const k = raceNext++
    const day = Math.floor(k / 28)
    return WEEK + (5 + Math.floor(day / 5)) * 7 * DAY + (day % 5) * DAY + dailyStarts[k % 28] * MIN
  }
  const timed = async (request: () => Promise<Response>) => {
    const started = performance.now()
    const response = await request()
    await response.arrayBuffer()
    return { status: response.status, ms: performance.now() - started }
  }
  const raceLatencies: number[] = []
  const raceTimes: number[] = []
  const createLatencies: number[] = []
  const createTimes: number[] = []
  let racesWithOneWinner = 0
  let otherAnswers = 0
  for (let r = 0; r < RACES; r++) {
    const start = raceSlot()
    const raceStarted = performance.now()
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () => timed(() => book(providers[1], start)))
    )
    raceTimes.push(performance.now() - raceStarted)
    raceLatencies.push(...answers.map((answer) => answer.ms))
    const won = answers.filter((answer) => answer.status === 201).length
    const refused = answers.filter((answer) => answer.status === 409).length
    if (won === 1 && refused === RACERS - 1) racesWithOneWinner++
    otherAnswers += RACERS - won - refused
    const createStarted = performance.now()
    const creates = await Promise.all(Array.from({ length: RACERS }, () => timed(createRecord)))
    createTimes.push(performance.now() - createStarted)
    createLatencies.push(...creates.map((answer) => answer.ms))
  }
  const spread = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    return {
      p50ms: round(percentile(sorted, 50), 1),
      p99ms: round(percentile(sorted, 99), 1),
      maxms: round(sorted[sorted.length - 1], 1)
    }
  }
  const races = {
    request: `${RACERS} POST /appointments of one free slot at once; baseline ${RACERS} POST /medical-records at once`,
    races: RACES,
    racesWithExactlyOneWinner: racesWithOneWinner,
    answersNeither201Nor409: otherAnswers,
    requests: spread(raceLatencies),
    wholeRace: spread(raceTimes),
    baseline: { requests: spread(createLatencies), wholeBatch: spread(createTimes) }
  }

  const booked = await call(
    base,
    'GET',
    `/appointments?facility=${facility}&$limit=0`,
    undefined,
    owner.token
  )
  await server.close()

  return {
    name: 'appointments',
    engine: 'embedded',
    providers: PROVIDERS,
    note: 'server in process on the embedded engine; (a) one request at a time, median of rounds; (b) writes of distinct free slots, median of rounds; baselines measured in the same run',
    slotSearch: {
      request: 'GET /appointment-slots?facility=&from=&to= (one week, 20 providers, first page)',
      freeSlotsInWeek: freeInWeek,
      p50ms: slotsP50,
      p95ms: slotsP95,
      baseline: { request: 'GET /schedules?facility=&$limit=20', p50ms: schedulesP50, p95ms: schedulesP95 },
      ratioP50ToBaseline: round(slotsP50 / schedulesP50, 2),
      ratioP95ToBaseline: round(slotsP95 / schedulesP95, 2),
      rounds: searchRounds
    },
    booking: {
      request: 'POST /appointments (distinct free slots), baseline POST /medical-records (an allergy)',
      bookingsPerRound: perRound,
      ...booking
    },
    races,
    appointmentsStored: booked.total
  }
}
