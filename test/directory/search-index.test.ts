// The in-process search index against a plain filter over the same entries, through a long run of changes
// (renames, moves, retags, removals, re-creations) that leaves many dead numbers behind and compacts them.
import assert from 'node:assert/strict'
import {
  SearchIndex,
  cellKey,
  facetKey,
  wordKey,
  type Condition,
  type IndexedEntry
} from '../../src/directory/search-index'
import { coveringCells, distanceKm, type Point } from '../../src/directory/geo'
import { fold, words } from '../../src/directory/text'

let seed = 11
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]
const NAMES = [
  'Clínica',
  'Cardio',
  'Cardiology',
  'Center',
  'San',
  'Juan',
  'Heart',
  'Lab',
  'Dental',
  'Makati',
  'Cebu',
  'Care'
]
const TAGS = ['sto:laboratory', 'sto:imaging', 'pediatrics', 'emergency']
const CENTER = { lat: 14.55, lng: 121.02 }

const make = (i: number): IndexedEntry => ({
  id: `id-${String(Math.floor(random() * 1e6)).padStart(6, '0')}-${i}`,
  key: `organization:${i}`,
  type: random() < 0.9 ? 'organization' : 'practitioner',
  ref: {
    id: String(i),
    type: pick(['facility', 'laboratory-company']),
    types: [pick(['clinic', 'hospital', 'laboratory'])]
  },
  tags: [...new Set([pick(TAGS), pick(TAGS)])],
  name: `${pick(NAMES)} ${pick(NAMES)}`,
  description: `${pick(NAMES).toLowerCase()} and ${pick(['care', 'tests', 'heart'])}`,
  coordinates:
    random() < 0.95
      ? { lat: CENTER.lat + (random() - 0.5) * 0.2, lng: CENTER.lng + (random() - 0.5) * 0.2 }
      : null
})

const naive = (
  entries: Map<string, IndexedEntry>,
  searched: string[],
  circle: (Point & { radiusKm: number }) | null,
  tag?: string
) => {
  const hits: { id: string; score: number; distance: number; sortName: string }[] = []
  for (const entry of entries.values()) {
    if (tag && !(entry.tags ?? []).includes(tag)) continue
    let distance = 0
    if (circle) {
      if (!entry.coordinates) continue
      distance = distanceKm(circle, entry.coordinates)
      if (distance > circle.radiusKm) continue
    }
    const nameWords = words(entry.name)
    const descWords = words(entry.description)
    let score = 0
    let all = true
    for (const word of searched) {
      if (nameWords.includes(word)) score += 3
      else if (nameWords.some((w) => w.startsWith(word))) score += 2
      else if (descWords.includes(word)) score += 1
      else all = false
    }
    if (all) hits.push({ id: entry.id, score, distance, sortName: fold(entry.name) })
  }
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  hits.sort(
    (a, b) => b.score - a.score || a.distance - b.distance || text(a.sortName, b.sortName) || text(a.id, b.id)
  )
  return hits
}

const query = (
  index: SearchIndex,
  searched: string[],
  circle: (Point & { radiusKm: number }) | null,
  tag: string | undefined,
  skip: number,
  limit: number
) => {
  const conditions: Condition[] = searched.map((word) => ({
    keys: [3, 2, 1].map((tier) => ({ key: wordKey(tier, word), score: tier }))
  }))
  if (tag) conditions.push({ keys: [{ key: facetKey('tags', tag), score: 0 }] })
  if (circle)
    conditions.push({
      keys: coveringCells(circle, circle.radiusKm).map((cell) => ({ key: cellKey(cell), score: 0 }))
    })
  if (conditions.length === 0) {
    const named = index.byName(skip, limit)
    return { total: named.total, ids: named.ids }
  }
  const hits = index.match(
    conditions,
    circle ? { ...circle, distance: (to) => distanceKm(circle, to) } : null
  )
  return { total: hits.count, ids: index.page(hits, skip, limit).map((hit) => index.idOf(hit.n)) }
}

describe('directory: the in-process search index', () => {
  it('answers like a plain filter through thousands of changes (and compactions)', async () => {
    const index = new SearchIndex()
    const entries = new Map<string, IndexedEntry>()
    const initial = Array.from({ length: 2000 }, (_, i) => make(i))
    for (const entry of initial) entries.set(entry.key, entry)
    await index.load((add) => initial.forEach(add))
    const check = () => {
      for (let q = 0; q < 30; q++) {
        const searched = [
          ...new Set(
            Array.from({ length: Math.floor(random() * 3) }, () =>
              words(pick(NAMES))[0].slice(0, 1 + Math.floor(random() * 5))
            )
          )
        ]
        const circle = random() < 0.4 ? { ...CENTER, radiusKm: 1 + random() * 8 } : null
        const tag = random() < 0.3 ? pick(TAGS) : undefined
        const skip = pick([0, 0, 3, 25])
        const limit = pick([1, 10, 50])
        const expected = naive(entries, searched, circle, tag)
        const got = query(index, searched, circle, tag, skip, limit)
        const what = JSON.stringify({ searched, circle, tag, skip, limit })
        assert.equal(got.total, expected.length, what)
        assert.deepEqual(
          got.ids,
          expected.slice(skip, skip + limit).map((hit) => hit.id),
          what
        )
      }
    }
    check()
    for (let round = 0; round < 6; round++) {
      for (let change = 0; change < 800; change++) {
        const i = Math.floor(random() * 2400)
        const key = `organization:${i}`
        if (random() < 0.2) {
          entries.delete(key)
          index.remove(key)
        } else {
          const entry = { ...make(i), id: entries.get(key)?.id ?? `id-new-${i}` }
          entries.set(key, entry)
          index.put(entry)
          assert.ok(index.holds(entry))
        }
      }
      assert.equal(index.size, entries.size)
      check()
      if (round === 2) {
        index.compact()
        check()
      }
    }
  })
})
