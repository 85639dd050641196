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
import { fold, foldedWords, words } from './text'

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
  ids: number[] = []
  get length() {
    return this.ids.length
  }
  push(n: number) {
    this.ids.push(n)
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

/** One condition of a query: one of its keys (each with the score it gives); an entry must meet every condition. */
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

// Key strings of words, made once per distinct word (a word's prefixes are shared by many names): this keeps the
// load fast (no new strings to hash per entry) and the key strings shared. Pure memoization, shared by the apps of a
// process: a word's prefixes are the same in every app.
const prefixCache = new Map<string, string[]>()
const prefixesOf = (word: string) => {
  let found = prefixCache.get(word)
  if (!found) {
    found = []
    for (let i = 1; i <= word.length; i++) found.push(word.slice(0, i))
    if (prefixCache.size > 200_000) prefixCache.clear()
    prefixCache.set(word, found)
  }
  return found
}
// One cache per tier, keyed by the word itself (no key string made just to look one up).
const keyCaches = [
  new Map<string, string>(),
  new Map<string, string>(),
  new Map<string, string>(),
  new Map<string, string>()
]
const tierKey = (tier: number, word: string) => {
  const cache = keyCaches[tier]
  let key = cache.get(word)
  if (key === undefined) {
    key = wordKey(tier, word)
    if (cache.size > 300_000) cache.clear()
    cache.set(word, key)
  }
  return key
}

/** The word keys of an entry: the same tiered terms as `termsOf` (src/directory/text.ts), unsorted. */
const wordKeysOf = (foldedName: string, description: string | undefined): string[] => {
  const best = new Map<string, number>()
  for (const word of words(description)) best.set(word, 1)
  const nameWords = foldedWords(foldedName)
  for (const word of nameWords) for (const prefix of prefixesOf(word)) best.set(prefix, 2)
  for (const word of nameWords) best.set(word, 3)
  const keys: string[] = []
  for (const [word, tier] of best) keys.push(tierKey(tier, word))
  return keys
}

/** Every index key of an entry whose name, folded, is `foldedName`. */
const keysOf = (entry: IndexedEntry, foldedName = fold(entry.name ?? '')): string[] => {
  const keys = wordKeysOf(foldedName, entry.description)
  if (entry.coordinates) for (const cell of cellsOf(entry.coordinates)) keys.push(cellKey(cell))
  for (const [field, read] of Object.entries(FACETS)) {
    for (const value of new Set(read(entry))) if (typeof value === 'string') keys.push(facetKey(field, value))
  }
  return keys
}

/** A 32-bit hash (FNV-1a) of everything the index takes from an entry: whether the indexed copy is current. */
export const signatureOf = (entry: IndexedEntry) => {
  const text = JSON.stringify([
    entry.id,
    entry.type,
    entry.ref,
    entry.tags ?? [],
    entry.name,
    entry.description ?? '',
    entry.coordinates ?? null
  ])
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return hash | 0 || 1
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export interface Hit {
  n: number
  score: number
  distance: number
}

/** The matches of a query: entry numbers, scores and (with a circle) distances, `count` of them. */
export interface Hits {
  ns: Int32Array
  scores: Uint8Array
  distances: Float64Array | null
  count: number
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
  private signatures: number[] = []
  private byKey = new Map<string, number>()
  /** Live entry numbers in name order (folded name, then id). */
  private order: number[] = []
  private dead = 0
  // Scratch space for intersections (queries run synchronously, one at a time).
  private mark = new Int32Array(0)
  private gain = new Uint8Array(0)
  private stamp = 0
  private ranks: Int32Array | null = null
  private ranksCurrent = false

  get size() {
    return this.byKey.size
  }

  /** Adds or replaces the entry with this `key`. */
  put(entry: IndexedEntry) {
    this.drop(entry.key)
    this.insert(entry)
    this.signatures[this.ids.length - 1] = signatureOf(entry)
    this.order.splice(this.orderPosition(this.ids.length - 1), 0, this.ids.length - 1)
    this.ranksCurrent = false
    this.compactIfSparse()
  }

  /** Removes the entry with this `key` (if indexed). */
  remove(key: string) {
    this.drop(key)
    this.compactIfSparse()
  }

  /** Squeezes dead numbers out once there are more of them than live entries (and at least 1,000). */
  private compactIfSparse() {
    if (this.dead > 1000 && this.dead > this.byKey.size) this.compact()
  }

  /**
   * Builds the index from every entry at once (the start-up load): `feed` hands each entry to `add` (which keeps
   * nothing of the object, so the entries may be the store's own documents).
   */
  async load(feed: (add: (entry: IndexedEntry) => void) => Promise<void> | void) {
    await feed((entry) => {
      if (this.byKey.has(entry.key)) this.drop(entry.key)
      this.insert(entry)
    })
    // (sorting strings natively is much faster than with a comparator; NUL sorts first, so this is name, then id)
    const sortable = [...this.byKey.values()]
      .map((n) => `${this.sortNames[n]}\u0000${this.ids[n]}\u0000${n}`)
      .sort()
    this.order = sortable.map((text) => Number(text.slice(text.lastIndexOf('\u0000') + 1)))
    this.ranksCurrent = false
  }

  private insert(entry: IndexedEntry) {
    const n = this.ids.length
    this.ids.push(entry.id)
    this.keys.push(entry.key)
    const foldedName = fold(entry.name ?? '')
    this.sortNames.push(foldedName)
    this.lat.push(entry.coordinates ? entry.coordinates.lat : NaN)
    this.lng.push(entry.coordinates ? entry.coordinates.lng : NaN)
    this.alive.push(true)
    // (computed for entries put after the load only: a loaded entry counts as not known to be current)
    this.signatures.push(0)
    this.byKey.set(entry.key, n)
    for (const key of keysOf(entry, foldedName)) {
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
    this.ranksCurrent = false
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
  compact() {
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
      else list.ids.length = length
    }
    this.ids = keep(this.ids)
    this.keys = keep(this.keys)
    this.sortNames = keep(this.sortNames)
    this.lat = keep(this.lat)
    this.lng = keep(this.lng)
    this.signatures = keep(this.signatures)
    this.alive = this.ids.map(() => true)
    for (const [key, n] of this.byKey) this.byKey.set(key, renumber[n])
    this.order = this.order.map((n) => renumber[n])
    this.ranksCurrent = false
    this.dead = 0
  }

  private listSize(condition: Condition) {
    let size = 0
    for (const { key } of condition.keys) size += this.postings.get(key)?.length ?? 0
    return size
  }

  /** Each live entry's position in name order (rebuilt after changes, at the next query: one pass). */
  private nameRanks() {
    if (!this.ranks || this.ranks.length < this.ids.length) {
      this.ranks = new Int32Array(this.ids.length)
      this.ranksCurrent = false
    }
    if (!this.ranksCurrent) {
      for (let i = 0; i < this.order.length; i++) this.ranks[this.order[i]] = i
      this.ranksCurrent = true
    }
    return this.ranks
  }

  /**
   * The live entries meeting every condition, each with the sum of the scores of the keys it has (per condition,
   * the first of its keys it has), and, with `circle`, its distance (entries beyond it or without a point left out).
   */
  match(
    conditions: Condition[],
    circle: (Point & { radiusKm: number; distance(to: Point): number }) | null
  ): Hits {
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
    const [first, ...rest] = sorted
    // The smallest condition gives the candidates.
    const room = this.listSize(first)
    const ns = new Int32Array(room)
    const scores = new Uint8Array(room)
    let count = 0
    const stamp = ++this.stamp
    for (const { key, score } of first.keys) {
      const list = this.postings.get(key)
      if (!list) continue
      const ids = list.ids
      for (let i = 0; i < ids.length; i++) {
        const n = ids[i]
        if (!this.alive[n] || this.mark[n] === stamp) continue
        this.mark[n] = stamp
        ns[count] = n
        scores[count++] = score
      }
    }
    // Every other condition keeps the candidates it has: by binary search when the candidates are few, else by
    // marking its lists once.
    for (const condition of rest) {
      if (count === 0) break
      const lists = condition.keys.map(({ key, score }) => ({ list: this.postings.get(key), score }))
      const size = lists.reduce((sum, { list }) => sum + (list?.length ?? 0), 0)
      let kept = 0
      if (count * 20 < size) {
        for (let i = 0; i < count; i++) {
          for (const { list, score } of lists) {
            if (list?.has(ns[i])) {
              ns[kept] = ns[i]
              scores[kept++] = scores[i] + score
              break
            }
          }
        }
      } else {
        const s = ++this.stamp
        for (const { list, score } of lists) {
          if (!list) continue
          const ids = list.ids
          for (let i = 0; i < ids.length; i++) {
            const n = ids[i]
            if (this.mark[n] === s) continue
            this.mark[n] = s
            this.gain[n] = score
          }
        }
        for (let i = 0; i < count; i++) {
          const n = ns[i]
          if (this.mark[n] !== s) continue
          ns[kept] = n
          scores[kept++] = scores[i] + this.gain[n]
        }
      }
      count = kept
    }
    let distances: Float64Array | null = null
    if (circle) {
      distances = new Float64Array(count)
      let kept = 0
      for (let i = 0; i < count; i++) {
        const n = ns[i]
        const lat = this.lat[n]
        if (Number.isNaN(lat)) continue
        const distance = circle.distance({ lat, lng: this.lng[n] })
        if (distance > circle.radiusKm) continue
        ns[kept] = n
        scores[kept] = scores[i]
        distances[kept++] = distance
      }
      count = kept
    }
    return { ns, scores, distances, count }
  }

  /** Orders hits (score, then distance, then name, then id) and returns those from `skip` to `skip + limit`. */
  page(hits: Hits, skip: number, limit: number): Hit[] {
    const { ns, scores, distances, count } = hits
    const ranks = this.nameRanks()
    // Hit i before hit j: higher score, then nearer, then earlier in name order (name, then id).
    const before = distances
      ? (i: number, j: number) =>
          scores[j] - scores[i] || distances[i] - distances[j] || ranks[ns[i]] - ranks[ns[j]]
      : (i: number, j: number) => scores[j] - scores[i] || ranks[ns[i]] - ranks[ns[j]]
    const wanted = Math.min(skip + limit, count)
    let best: number[]
    if (wanted * 8 >= count) {
      best = Array.from({ length: count }, (_, i) => i).sort(before)
    } else {
      // Keep only the best `wanted` (sorted) while passing over the hits once.
      best = []
      for (let i = 0; i < count; i++) {
        if (best.length === wanted && before(i, best[wanted - 1]) >= 0) continue
        let lo = 0
        let hi = best.length
        while (lo < hi) {
          const mid = (lo + hi) >> 1
          if (before(best[mid], i) <= 0) lo = mid + 1
          else hi = mid
        }
        best.splice(lo, 0, i)
        if (best.length > wanted) best.pop()
      }
    }
    return best
      .slice(skip, wanted)
      .map((i) => ({ n: ns[i], score: scores[i], distance: distances ? distances[i] : 0 }))
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

  /** Whether the index holds exactly this entry (same key and content). */
  holds(entry: IndexedEntry) {
    const n = this.byKey.get(entry.key)
    return n !== undefined && this.signatures[n] !== 0 && this.signatures[n] === signatureOf(entry)
  }

  /** The keys of every indexed entry of `type` (for the repair pass). */
  keysOfType(type: string): string[] {
    const out: string[] = []
    const prefix = `${type}:`
    for (const key of this.byKey.keys()) if (key.startsWith(prefix)) out.push(key)
    return out
  }
}
