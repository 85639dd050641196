// The unified directory at 100,000 entries on the embedded engine: latency (p50/p99) of GET /bff/unified-directory
// for (a) one word, (b) two words, (c) a one-letter prefix, (d) `*` within 5 km, (e) a word within 5 km, (f) a word
// with a tag facet — measured over HTTP against the full app (sequential requests, one connection) and, as the
// baseline, a plain in-memory filter over the same entries in the same process (fold, match, haversine, sort, page).
// Entries are generated around five cities and seeded through the store (not HTTP); the server is then restarted
// on the same data dir to measure startup (to the start line, and to the first answer: the entries are loaded into the
// search index in the background after the start line) and RSS.
import type { Params } from '@feathersjs/feathers'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { execSync } from 'node:child_process'
import { startServer, tempDir } from '../test/helpers/app'
import { startServerProcess } from '../test/helpers/server-process'
import { entryDocument } from '../src/directory/entries'
import { directoryOf } from '../src/directory/repair'
import { distanceKm, type Point } from '../src/directory/geo'
import { words } from '../src/directory/text'
import { round, random } from './lib'

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000)
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100)
const WARMUP = 10

const next = random(7)
const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]

const CITIES: (Point & { name: string })[] = [
  { name: 'Manila', lat: 14.5995, lng: 120.9842 },
  { name: 'Cebu', lat: 10.3157, lng: 123.8854 },
  { name: 'Davao', lat: 7.1907, lng: 125.4553 },
  { name: 'Singapore', lat: 1.3521, lng: 103.8198 },
  { name: 'Bangkok', lat: 13.7563, lng: 100.5018 }
]
const SPECIALTIES = [
  'cardiology',
  'pediatrics',
  'dermatology',
  'orthopedics',
  'neurology',
  'oncology',
  'radiology',
  'dental',
  'eye',
  'maternity',
  'family',
  'diagnostic',
  'wellness',
  'physical',
  'mental',
  'urology',
  'surgical',
  'vaccination',
  'nutrition',
  'sleep'
]
const KINDS = [
  'Clinic',
  'Center',
  'Hospital',
  'Laboratory',
  'Medical Group',
  'Health Hub',
  'Care',
  'Institute'
]
const SYLLABLES = [
  'ma',
  'ka',
  'ti',
  'sa',
  'lo',
  'ri',
  'ba',
  'ne',
  'qu',
  'zon',
  'pa',
  'ig',
  'san',
  'jo',
  'se',
  'ro',
  'ca',
  'de',
  'li',
  'mo',
  'ga',
  'ta',
  'ñe',
  'él'
]
const place = () => Array.from({ length: 2 + Math.floor(next() * 2) }, () => pick(SYLLABLES)).join('')
const PLACES = Array.from({ length: 4000 }, place)
const capital = (word: string) => word[0].toUpperCase() + word.slice(1)
const DESCRIPTION_WORDS = [
  'care',
  'family',
  'walk-in',
  'appointments',
  'insurance',
  'accepted',
  'open',
  'weekends',
  'specialists',
  'friendly',
  'staff',
  'parking',
  'emergency',
  'consultations',
  'tests',
  'imaging',
  'therapy',
  'children',
  'adults',
  'seniors',
  ...SPECIALTIES
]
const STO = ['consultation', 'procedure', 'laboratory', 'imaging', 'dental', 'vaccination', 'therapy']

/** One generated entry (a listed organization's content). */
const generate = (i: number) => {
  const city = pick(CITIES)
  // Spread ~20 km around the city centre (denser near the centre).
  const r = 20 * next() ** 1.5
  const angle = next() * 2 * Math.PI
  const coordinates = {
    lat: city.lat + (r / 111.32) * Math.cos(angle),
    lng: city.lng + ((r / 111.32) * Math.sin(angle)) / Math.cos((city.lat * Math.PI) / 180)
  }
  const name = `${capital(pick(PLACES))} ${capital(pick(SPECIALTIES))} ${pick(KINDS)}`
  const description = Array.from({ length: 8 }, () => pick(DESCRIPTION_WORDS)).join(' ')
  const tags = [
    ...new Set(Array.from({ length: 1 + Math.floor(next() * 3) }, () => `sto:${pick(STO)}`))
  ].sort()
  return {
    ref: { id: `bench-${i}`, type: 'facility', types: ['clinic'] },
    name,
    description,
    tags,
    coordinates
  }
}

type Content = ReturnType<typeof generate>

// The baseline: the same search over plain objects in memory (every entry examined per query).
interface Plain extends Content {
  id: string
  nameWords: string[]
  descWords: Set<string>
  sortName: string
}
const baselineSearch = (
  entries: Plain[],
  query: { words: string[]; circle?: Point & { radiusKm: number }; tag?: string }
) => {
  const hits: { entry: Plain; score: number; distance: number }[] = []
  for (const entry of entries) {
    if (query.tag && !entry.tags.includes(query.tag)) continue
    let distance = 0
    if (query.circle) {
      distance = distanceKm(query.circle, entry.coordinates)
      if (distance > query.circle.radiusKm) continue
    }
    let score = 0
    let all = true
    for (const word of query.words) {
      if (entry.nameWords.includes(word)) score += 3
      else if (entry.nameWords.some((w) => w.startsWith(word))) score += 2
      else if (entry.descWords.has(word)) score += 1
      else {
        all = false
        break
      }
    }
    if (all) hits.push({ entry, score, distance })
  }
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      a.distance - b.distance ||
      (a.entry.sortName < b.entry.sortName ? -1 : a.entry.sortName > b.entry.sortName ? 1 : 0) ||
      (a.entry.id < b.entry.id ? -1 : 1)
  )
  return { total: hits.length, data: hits.slice(0, 10) }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50ms: round(percentile(sorted, 50), 2), p99ms: round(percentile(sorted, 99), 2) }
}
const time = async (fn: () => unknown) => {
  const start = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

const near = (city: Point, km: number) => {
  const angle = next() * 2 * Math.PI
  const r = km * next()
  return {
    lat: city.lat + (r / 111.32) * Math.cos(angle),
    lng: city.lng + ((r / 111.32) * Math.sin(angle)) / Math.cos((city.lat * Math.PI) / 180)
  }
}

interface Case {
  title: string
  /** The REST query string and the baseline's equivalent, for one sample. */
  make(sample: Content): { qs: string; baseline: Parameters<typeof baselineSearch>[1] }
}

const CASES: Case[] = [
  {
    title: 'a_oneWord',
    make: () => {
      const w = pick(SPECIALTIES)
      return { qs: `$search=${w}`, baseline: { words: [w] } }
    }
  },
  {
    title: 'b_twoWords',
    make: (sample) => {
      const [first, second] = words(sample.name)
      return {
        qs: `$search=${encodeURIComponent(`${first} ${second}`)}`,
        baseline: { words: [first, second] }
      }
    }
  },
  {
    title: 'c_oneLetterPrefix',
    make: () => {
      const l = pick('abcdefghijklmnoprstuvw'.split(''))
      return { qs: `$search=${l}`, baseline: { words: [l] } }
    }
  },
  {
    title: 'd_star_5km',
    make: () => {
      const c = near(pick(CITIES), 15)
      return {
        qs: `$search=*&location=${c.lat},${c.lng},5`,
        baseline: { words: [], circle: { ...c, radiusKm: 5 } }
      }
    }
  },
  {
    title: 'e_word_5km',
    make: () => {
      const c = near(pick(CITIES), 15)
      const w = pick(SPECIALTIES)
      return {
        qs: `$search=${w}&location=${c.lat},${c.lng},5`,
        baseline: { words: [w], circle: { ...c, radiusKm: 5 } }
      }
    }
  },
  {
    title: 'f_word_tag',
    make: () => {
      const w = pick(SPECIALTIES)
      const tag = `sto:${pick(STO)}`
      return { qs: `$search=${w}&tags=${encodeURIComponent(tag)}`, baseline: { words: [w], tag } }
    }
  }
]

/**
 * GET, retried once when the server closed an idle keep-alive connection just as it was reused (a race of the
 * HTTP client, seen when the baseline of the previous sample ran longer than the server's keep-alive timeout).
 */
const get = async (url: string, output: () => string) => {
  try {
    return await fetch(url)
  } catch (error: any) {
    if (error?.cause?.code !== 'UND_ERR_SOCKET') throw error
    try {
      return await fetch(url)
    } catch (again: any) {
      throw new Error(`${url}: ${again?.cause?.message ?? again?.message}\n${output().slice(-2000)}`)
    }
  }
}

/** The process's resident memory now (VmRSS), or its peak so far (VmHWM), in MB. */
const rssMB = (pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS') => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return Math.round(kb / 1024)
}

/** Starts the server as its own process, as `npm start` does (the compiled `lib/`), on `dataDir`: time to the start line and its RSS. */
const startProcess = async (dataDir: string) => {
  const start = process.hrtime.bigint()
  const server = await startServerProcess(
    {
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
      AUTH_SECRET: crypto.randomBytes(48).toString('base64'),
      ALLOW_SANDBOX_PAYMENTS: 'true'
    },
    120000,
    { compiled: true }
  )
  const startupMs = Number(process.hrtime.bigint() - start) / 1e6
  return {
    server,
    startupMs,
    rss: () => rssMB(server.child.pid ?? 0),
    peak: () => rssMB(server.child.pid ?? 0, 'VmHWM')
  }
}

export async function run() {
  // The server processes run what `npm start` runs: the compiled JavaScript.
  execSync('npm run build', { cwd: path.resolve(__dirname, '..'), stdio: 'ignore' })
  const dataDir = tempDir('clinic-directory-bench-')
  const emptyDir = tempDir('clinic-directory-bench-empty-')
  // 1. Seed through the store (in this process), then close it.
  const contents = Array.from({ length: ENTRIES }, (_, i) => generate(i))
  const seeding = await startServer({ mongodb: '', dataDir })
  const multi: Params & { adapter: { multi: boolean } } = { adapter: { multi: true } }
  const seedMs = await time(async () => {
    const store = directoryOf(seeding.app).store
    for (let i = 0; i < contents.length; i += 5000)
      await store._create(
        contents.slice(i, i + 5000).map((c) => entryDocument('organization', c)),
        multi
      )
  })
  // 2. Baseline entries (plain objects, folded once up front).
  const stored = (await directoryOf(seeding.app).store._find({
    query: { $select: ['id', 'ref', 'name', 'description', 'tags', 'coordinates'] },
    paginate: false
  })) as any[]
  const plain: Plain[] = stored.map((e) => ({
    ...e,
    nameWords: words(e.name),
    descWords: new Set(words(e.description)),
    sortName: words(e.name).join(' ')
  }))
  if (plain.length !== ENTRIES) throw new Error(`expected ${ENTRIES} entries, found ${plain.length}`)
  await seeding.close({ keep: true })

  // 3. The server as its own process: startup without entries, then with them (file load + index build), and RSS.
  const empty = await startProcess(emptyDir)
  const emptyStartupMs = empty.startupMs
  const emptyRss = empty.rss()
  await empty.server.kill('SIGTERM')
  const full = await startProcess(dataDir)
  const url = full.server.url
  const rssAfterStartup = full.rss()
  // The entries are loaded into the search index in the background after the start line; the first search waits for it.
  const firstAnswerMs = await time(async () => {
    const response = await fetch(`${url}/bff/unified-directory?$search=*`)
    const body: any = await response.json()
    if (body.total !== ENTRIES)
      throw new Error(`expected ${ENTRIES} entries in the index, found ${body.total}`)
  })
  const rssIndexed = full.rss()
  const peakIndexed = full.peak()

  const results: Record<string, unknown> = {}
  for (const c of CASES) {
    const app_: number[] = []
    const base: number[] = []
    let totals = 0
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const { qs, baseline } = c.make(pick(contents))
      let body: any
      const appMs = await time(async () => {
        const response = await get(`${url}/bff/unified-directory?${qs}`, () => full.server.output())
        body = await response.json()
        if (response.status !== 200) throw new Error(`${qs}: ${response.status} ${JSON.stringify(body)}`)
      })
      let expected: ReturnType<typeof baselineSearch> | undefined
      const baseMs = await time(() => {
        expected = baselineSearch(plain, baseline)
      })
      if (expected && expected.total !== body.total)
        throw new Error(`${c.title} ${qs}: app total ${body.total} ≠ baseline ${expected.total}`)
      if (expected && expected.data.map((h) => h.entry.id).join() !== body.data.map((e: any) => e.id).join())
        throw new Error(`${c.title} ${qs}: app order differs from the baseline`)
      if (i >= WARMUP) {
        app_.push(appMs)
        base.push(baseMs)
        totals += body.total
      }
    }
    const appStats = stats(app_)
    const baseStats = stats(base)
    results[c.title] = {
      app: appStats,
      baselineInMemoryFilter: baseStats,
      baselineOverApp: {
        p50: round(baseStats.p50ms / appStats.p50ms, 1),
        p99: round(baseStats.p99ms / appStats.p99ms, 1)
      },
      meanMatches: Math.round(totals / SAMPLES)
    }
  }
  const rssEnd = full.rss()
  const peakEnd = full.peak()
  await full.server.kill('SIGTERM')
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.rmSync(emptyDir, { recursive: true, force: true })

  return {
    name: 'directory',
    entries: ENTRIES,
    samplesPerCase: SAMPLES,
    note: 'app = GET /bff/unified-directory over HTTP to the server running as its own process on the embedded engine (sequential, one connection); baseline = plain in-memory filter over the same entries in the bench process; every answer is checked equal (total and first page) to the baseline. Startup = spawn of `node lib/index.js` (as `npm start`, NODE_ENV=production) to the start line, then from it to the first answer (background index load); RSS = the server process',
    seedMs: Math.round(seedMs),
    startupMs: {
      withEntries: Math.round(full.startupMs),
      empty: Math.round(emptyStartupMs),
      // From the start line to the first answer of a search (the background load of the entries into the index, then `*`)
      firstSearchAfterReady: Math.round(firstAnswerMs),
      toFirstSearch: Math.round(full.startupMs + firstAnswerMs)
    },
    serverRssMB: {
      empty: emptyRss,
      afterStartup: rssAfterStartup,
      indexed: rssIndexed,
      afterQueries: rssEnd,
      peakAtFirstSearch: peakIndexed,
      peakAfterQueries: peakEnd
    },
    ...results
  }
}
