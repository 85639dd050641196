// The directory's in-process search index (one per instance): loaded from the entries' store in the background
// after start-up, then kept current by every entry write of this instance (src/directory/entries.ts) and, with
// several instances, by their notices (src/directory/remote-changes.ts). The store stays the truth: the index only
// says which entries match and in which order; the page's entries are then read from the store.
//
// Compact postings: each index key (a tiered word `3:cardiology`, a geohash cell, a facet value) maps to the
// ascending entry numbers that have it, in a growable Int32Array. A changed entry gets a new (higher) number and
// its old number is marked dead, so lists only ever grow at the end and stay sorted; dead numbers are squeezed
// out once they are many. A query intersects the lists of its conditions (every word, each facet, the circle's
// covering cells), starting from the smallest, so it touches only the entries its conditions select — never
// every entry. `*` alone pages a name-ordered list of the live entries.
import { cellsOf, type Point } from './geo'
import { fold, termsOf } from './text'

/** What the index needs of an entry (the stored entry document has more). */
export interface IndexedEntry {
  id: string
  key: string
  type: string
  ref: { id: string; type?: string; types?: string[] }
  tags?: string[]
  name: string
  description?: string
  coordinates?: Point | null
}

class Postings {
  ids = new Int32Array(4)
  length = 0
  push(n: number) {
    if (this.length === this.ids.length) {
      const grown = new Int32Array(this.ids.length * 2)
      grown.set(this.ids)
      this.ids = grown
    }
    this.ids[this.length++] = n
  }
  /** Whether `n` is in the list (binary search). */
  has(n: number) {
    let lo = 0
    let hi = this.length - 1
    const ids = this.ids
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const v = ids[mid]
      if (v === n) return true
      if (v < n) lo = mid + 1
      else hi = mid - 1
    }
    return false
  }
}

/** One condition of a query: any of its keys (each with the score it gives); an entry must meet every condition. */
export interface Condition {
  keys: { key: string; score: number }[]
}

export const wordKey = (tier: number, word: string) => `${tier}:${word}`
export const cellKey = (cell: string) => `@${cell}`
export const facetKey = (field: string, value: string) => `${field}=${value}`

/** The facet fields and how to read them from an entry. */
export const FACETS: Record<string, (entry: IndexedEntry) => (string | undefined)[]> = {
  type: (entry) => [entry.type],
  tags: (entry) => entry.tags ?? [],
  'ref.type': (entry) => [entry.ref?.type],
  'ref.types': (entry) => entry.ref?.types ?? []
}

const keysOf = (entry: IndexedEntry): string[] => {
  const keys = termsOf(entry.name, entry.description)
  if (entry.coordinates) for (const cell of cellsOf(entry.coordinates)) keys.push(cellKey(cell))
  for (const [field, read] of Object.entries(FACETS)) {
    for (const value of new Set(read(entry))) if (typeof value === 'string') keys.push(facetKey(field, value))
  }
  return keys
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export interface Hit {
  n: number
  score: number
  distance: number
}

export class SearchIndex {
  private postings = new Map<string, Postings>()
  // Per entry number:
  private ids: string[] = []
  private keys: string[] = []
  private sortNames: string[] = []
  private lat: number[] = []
  private lng: number[] = []
  private alive: boolean[] = []
  private byKey = new Map<string, number>()
  /** Live entry numbers in name order (folded name, then id). */
  private order: number[] = []
  private dead = 0
  // Scratch space for intersections (queries run synchronously, one at a time).
  private mark = new Int32Array(0)
  private gain = new Uint8Array(0)
  private stamp = 0

  get size() {
    return this.byKey.size
  }

  /** Adds or replaces the entry with this `key`. */
  put(entry: IndexedEntry) {
    this.drop(entry.key)
    this.insert(entry)
    this.order.splice(this.orderPosition(this.ids.length - 1), 0, this.ids.length - 1)
  }

  /** Removes the entry with this `key` (if indexed). */
  remove(key: string) {
    this.drop(key)
    if (this.dead > 1000 && this.dead > this.byKey.size) this.compact()
  }

  /** Builds the index from every entry at once (the start-up load). */
  load(entries: IndexedEntry[]) {
    for (const entry of entries) {
      if (this.byKey.has(entry.key)) this.drop(entry.key)
      this.insert(entry)
    }
    this.order = [...this.byKey.values()].sort((a, b) => this.compareName(a, b))
  }

  private insert(entry: IndexedEntry) {
    const n = this.ids.length
    this.ids.push(entry.id)
    this.keys.push(entry.key)
    this.sortNames.push(fold(entry.name ?? ''))
    this.lat.push(entry.coordinates ? entry.coordinates.lat : NaN)
    this.lng.push(entry.coordinates ? entry.coordinates.lng : NaN)
    this.alive.push(true)
    this.byKey.set(entry.key, n)
    for (const key of keysOf(entry)) {
      let list = this.postings.get(key)
      if (!list) this.postings.set(key, (list = new Postings()))
      list.push(n)
    }
  }

  private drop(key: string) {
    const n = this.byKey.get(key)
    if (n === undefined) return
    this.byKey.delete(key)
    this.alive[n] = false
    this.dead++
    const at = this.orderPosition(n)
    if (this.order[at] === n) this.order.splice(at, 1)
  }

  private compareName(a: number, b: number) {
    return compareText(this.sortNames[a], this.sortNames[b]) || compareText(this.ids[a], this.ids[b])
  }

  /** Where entry `n` is (or would go) in `order`. */
  private orderPosition(n: number) {
    let lo = 0
    let hi = this.order.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.compareName(this.order[mid], n) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Renumbers the live entries densely (keeping their relative order) and drops dead numbers from every list. */
  private compact() {
    const renumber = new Int32Array(this.ids.length).fill(-1)
    let next = 0
    for (let n = 0; n < this.ids.length; n++) if (this.alive[n]) renumber[n] = next++
    const keep = <T>(values: T[]) => values.filter((_, n) => this.alive[n])
    for (const [key, list] of this.postings) {
      let length = 0
      for (let i = 0; i < list.length; i++) {
        const to = renumber[list.ids[i]]
        if (to >= 0) list.ids[length++] = to
      }
      if (length === 0) this.postings.delete(key)
      else {
        list.length = length
        if (list.ids.length > 4 * length + 16) list.ids = list.ids.slice(0, length * 2)
      }
    }
    this.ids = keep(this.ids)
    this.keys = keep(this.keys)
    this.sortNames = keep(this.sortNames)
    this.lat = keep(this.lat)
    this.lng = keep(this.lng)
    this.alive = this.ids.map(() => true)
    for (const [key, n] of this.byKey) this.byKey.set(key, renumber[n])
    this.order = this.order.map((n) => renumber[n])
    this.dead = 0
  }

  private listSize(condition: Condition) {
    let size = 0
    for (const { key } of condition.keys) size += this.postings.get(key)?.length ?? 0
    return size
  }

  /**
   * The live entries meeting every condition, each with the sum of the scores of the keys it has (per condition,
   * the first of its keys it has), and, with `circle`, its distance (entries beyond it or without a point left out).
   */
  match(conditions: Condition[], circle: (Point & { radiusKm: number; distance(to: Point): number }) | null): Hit[] {
    const capacity = this.ids.length
    if (this.mark.length < capacity) {
      this.mark = new Int32Array(Math.max(1024, capacity * 2))
      this.gain = new Uint8Array(this.mark.length)
      this.stamp = 0
    }
    if (this.stamp > 2_000_000_000) {
      this.mark.fill(0)
      this.stamp = 0
    }
    const sorted = [...conditions].sort((a, b) => this.listSize(a) - this.listSize(b))
    let hits: Hit[] = []
    const [first, ...rest] = sorted
    // The smallest condition gives the candidates.
    const stamp = ++this.stamp
    for (const { key, score } of first.keys) {
      const list = this.postings.get(key)
      if (!list) continue
      for (let i = 0; i < list.length; i++) {
        const n = list.ids[i]
        if (!this.alive[n] || this.mark[n] === stamp) continue
        this.mark[n] = stamp
        hits.push({ n, score, distance: 0 })
      }
    }
    // Every other condition keeps the candidates it has: by binary search when the candidates are few, else by
    // marking its lists once.
    for (const condition of rest) {
      if (hits.length === 0) break
      const lists = condition.keys.map(({ key, score }) => ({ list: this.postings.get(key), score }))
      const size = lists.reduce((sum, { list }) => sum + (list?.length ?? 0), 0)
      const kept: Hit[] = []
      if (hits.length * 20 < size) {
        for (const hit of hits) {
          for (const { list, score } of lists) {
            if (list?.has(hit.n)) {
              hit.score += score
              kept.push(hit)
              break
            }
          }
        }
      } else {
        const s = ++this.stamp
        for (const { list, score } of lists) {
          if (!list) continue
          for (let i = 0; i < list.length; i++) {
            const n = list.ids[i]
            if (this.mark[n] === s) continue
            this.mark[n] = s
            this.gain[n] = score
          }
        }
        for (const hit of hits) {
          if (this.mark[hit.n] !== s) continue
          hit.score += this.gain[hit.n]
          kept.push(hit)
        }
      }
      hits = kept
    }
    if (circle) {
      const kept: Hit[] = []
      for (const hit of hits) {
        const lat = this.lat[hit.n]
        if (Number.isNaN(lat)) continue
        hit.distance = circle.distance({ lat, lng: this.lng[hit.n] })
        if (hit.distance <= circle.radiusKm) kept.push(hit)
      }
      hits = kept
    }
    return hits
  }

  /** Orders hits (score, then distance, then name, then id) and returns those from `skip` to `skip + limit`. */
  page(hits: Hit[], skip: number, limit: number): Hit[] {
    const compare = (a: Hit, b: Hit) => b.score - a.score || a.distance - b.distance || this.compareName(a.n, b.n)
    const wanted = skip + limit
    if (wanted === 0) return []
    if (wanted * 8 >= hits.length) return hits.sort(compare).slice(skip, wanted)
    // Keep only the best `wanted` (sorted) while passing over the hits once.
    const best: Hit[] = []
    for (const hit of hits) {
      if (best.length === wanted && compare(hit, best[wanted - 1]) >= 0) continue
      let lo = 0
      let hi = best.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (compare(best[mid], hit) <= 0) lo = mid + 1
        else hi = mid
      }
      best.splice(lo, 0, hit)
      if (best.length > wanted) best.pop()
    }
    return best.slice(skip, wanted)
  }

  /** Every live entry in name order: the count, and the entry ids from `skip` to `skip + limit`. */
  byName(skip: number, limit: number): { total: number; ids: string[] } {
    return { total: this.order.length, ids: this.order.slice(skip, skip + limit).map((n) => this.ids[n]) }
  }

  idOf(n: number) {
    return this.ids[n]
  }

  has(key: string) {
    return this.byKey.has(key)
  }

  /** The keys of every indexed entry of `type` (for the repair pass). */
  keysOfType(type: string): string[] {
    const out: string[] = []
    const prefix = `${type}:`
    for (const key of this.byKey.keys()) if (key.startsWith(prefix)) out.push(key)
    return out
  }
}
