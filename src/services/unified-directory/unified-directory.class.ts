// The directory search. Candidates come from the store through the portable operators only (equality/`$in` on the
// indexed `terms`, `cells`, `type`, `tags`, `ref.*` fields; `$sort`/`$skip`/`$limit` on `sortName`), so both engines
// select the same documents; distance, scoring, ranking and highlights are computed here, by one piece of code:
// - `*` without location: the store filters by facets and pages in name order;
// - one word without location: the word's three tiers (src/directory/text.ts) are counted and paged by the store;
// - otherwise (several words, or a location): the candidates (all words, facets, covering cells) are loaded with
//   a few fields, filtered by exact distance, scored and sorted here; only the page's entries are loaded whole.
import { BadRequest } from '@feathersjs/errors'
import type { Paginated, Params, Query } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { directoryStore, publicFields, type DirectoryEntry } from '../../directory/entries'
import { coveringCells, distanceKm, type Point } from '../../directory/geo'
import { originalWords, tierOf, tierTerm, TIERS, words } from '../../directory/text'
import type { DirectoryQuery, DirectoryResult } from './unified-directory.schema'

export interface DirectorySettings {
  defaultRadiusKm: number
  maxRadiusKm: number
  maxWords: number
  paginate: { default: number; max: number }
}

export const directorySettings = (app: Application): DirectorySettings => {
  const config = app.get('directory') ?? {}
  return {
    defaultRadiusKm: Number(config.defaultRadiusKm ?? 5),
    maxRadiusKm: Number(config.maxRadiusKm ?? 100),
    maxWords: Number(config.maxWords ?? 10),
    paginate: { default: Number(config.paginate?.default ?? 10), max: Number(config.paginate?.max ?? 50) }
  }
}

interface Circle extends Point {
  radiusKm: number
}

const badLocation = (message: string) => new BadRequest(`Invalid query: 'location' ${message}`, { errors: [{ field: 'location', message }] })

/** `lat,lng[,radius_km]` → a circle, or a 400 naming `location`. */
export const parseLocation = (text: string, settings: DirectorySettings): Circle => {
  const parts = text.split(',').map((part) => part.trim())
  if (parts.length < 2 || parts.length > 3 || parts.some((part) => !/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(part))) {
    throw badLocation('must be "<lat>,<lng>" or "<lat>,<lng>,<radius_km>" (numbers)')
  }
  const [lat, lng, radius] = parts.map(Number)
  if (lat < -90 || lat > 90) throw badLocation('latitude must be between -90 and 90')
  if (lng < -180 || lng > 180) throw badLocation('longitude must be between -180 and 180')
  const radiusKm = parts.length === 3 ? radius : settings.defaultRadiusKm
  if (!(radiusKm > 0) || radiusKm > settings.maxRadiusKm) throw badLocation(`radius must be more than 0 and at most ${settings.maxRadiusKm} km`)
  return { lat, lng, radiusKm }
}

type Facet = string | { $in: string[] }
const facetCondition = (field: string, value: Facet): Query => ({ [field]: typeof value === 'string' ? value : { $in: value.$in } })

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

interface Ranked {
  id: string
  sortName: string
  score: number
  distance: number
}

const candidateFields = ['id', 'sortName', 'coordinates']

export class UnifiedDirectory {
  constructor(private app: Application) {}

  async find(params: Params = {}): Promise<Paginated<DirectoryResult>> {
    const query = (params.query ?? {}) as DirectoryQuery
    const settings = directorySettings(this.app)
    const limit = Math.min(query.$limit ?? settings.paginate.default, settings.paginate.max)
    const skip = query.$skip ?? 0
    if (query.location !== undefined && query.$search === undefined) {
      throw new BadRequest("Invalid query: 'location' applies only together with '$search' (use $search=* for every entry)", {
        errors: [{ field: 'location', message: 'requires $search' }]
      })
    }
    const circle = query.location !== undefined ? parseLocation(query.location, settings) : null
    const raw = (query.$search ?? '*').trim()
    // `*` (or a search without any word) matches every entry.
    const searched = raw === '*' ? [] : [...new Set(words(raw))]
    if (searched.length > settings.maxWords) {
      throw new BadRequest(`Invalid query: '$search' has more than ${settings.maxWords} words`, { errors: [{ field: '$search', message: `at most ${settings.maxWords} words` }] })
    }

    const facets: Query[] = []
    if (query.type !== undefined) facets.push(facetCondition('type', query.type))
    if (query.tags !== undefined) facets.push(facetCondition('tags', query.tags))
    if (query['ref.type'] !== undefined) facets.push(facetCondition('ref.type', query['ref.type']))
    if (query['ref.types'] !== undefined) facets.push(facetCondition('ref.types', query['ref.types']))
    const store = directoryStore(this.app)
    const where = (conditions: Query[]): Query => (conditions.length ? { $and: conditions } : {})
    const byName = { sortName: 1, id: 1 }

    if (!circle && searched.length === 0) {
      // `*` without location: the store pages in name order itself.
      const page = (await store._find({
        query: { ...where(facets), $sort: byName, $skip: skip, $limit: limit, $select: [...publicFields] },
        paginate: { default: limit, max: Math.max(limit, 1) }
      })) as Paginated<DirectoryEntry>
      return { total: page.total, limit, skip, data: page.data.map((entry) => this.present(entry, [], null)) }
    }

    if (!circle && searched.length === 1) {
      // One word: its tiers are disjoint index lookups, ranked 3 > 2 > 1 and each in name order, so the store counts
      // and pages each tier itself; only the page's entries are loaded.
      const [word] = searched
      const tiers = await Promise.all(
        TIERS.map(async (tier) => {
          const conditions = where([...facets, { terms: tierTerm(tier, word) }])
          const counted = (await store._find({ query: { ...conditions, $limit: 0 }, paginate: { default: 1, max: 1 } })) as Paginated<DirectoryEntry>
          return { tier, conditions, total: counted.total }
        })
      )
      const data: DirectoryResult[] = []
      let offset = skip
      for (const { tier, conditions, total } of tiers) {
        if (data.length >= limit) break
        if (offset >= total) {
          offset -= total
          continue
        }
        const page = (await store._find({
          query: { ...conditions, $sort: byName, $skip: offset, $limit: limit - data.length, $select: [...publicFields] },
          paginate: false
        })) as DirectoryEntry[]
        for (const entry of page) data.push({ ...this.present(entry, searched, null), score: tier })
        offset = 0
      }
      return { total: tiers.reduce((sum, t) => sum + t.total, 0), limit, skip, data }
    }

    // Every query word must match (one `$in` over its tiered terms each); a location adds its cells.
    const conditions: Query[] = [...facets, ...searched.map((word) => ({ terms: { $in: TIERS.map((tier) => tierTerm(tier, word)) } }))]
    if (circle) conditions.push({ cells: { $in: coveringCells(circle, circle.radiusKm) } })
    const candidates = (await store._find({ query: { ...where(conditions), $select: candidateFields }, paginate: false })) as Pick<DirectoryEntry, 'id' | 'sortName' | 'coordinates'>[]
    const ranked: Ranked[] = []
    for (const candidate of candidates) {
      let distance = 0
      if (circle) {
        if (!candidate.coordinates) continue
        distance = distanceKm(circle, candidate.coordinates)
        if (distance > circle.radiusKm) continue
      }
      ranked.push({ id: candidate.id, sortName: candidate.sortName, distance, score: searched.length ? scoreOf(searched, words(candidate.sortName)) : 0 })
    }
    ranked.sort((a, b) => b.score - a.score || a.distance - b.distance || compareText(a.sortName, b.sortName) || compareText(a.id, b.id))
    const window = ranked.slice(skip, skip + limit)
    const docs = window.length
      ? ((await store._find({ query: { id: { $in: window.map((r) => r.id) }, $select: [...publicFields] }, paginate: false })) as DirectoryEntry[])
      : []
    const byId = new Map(docs.map((doc) => [doc.id, doc]))
    const data: DirectoryResult[] = []
    for (const hit of window) {
      const doc = byId.get(hit.id)
      // (an entry removed between the two reads is left out of this page)
      if (!doc) continue
      const shown = this.present(doc, searched, circle ? hit.distance : null)
      if (searched.length) shown.score = hit.score
      data.push(shown)
    }
    return { total: ranked.length, limit, skip, data }
  }

  private present(doc: DirectoryEntry, searched: string[], distance: number | null): DirectoryResult {
    const out: DirectoryResult = {
      id: doc.id,
      type: doc.type,
      ref: { id: doc.ref.id, type: doc.ref.type, types: doc.ref.types ?? [] },
      tags: doc.tags ?? [],
      name: doc.name,
      description: doc.description ?? ''
    }
    if (searched.length) {
      const inName = originalWords(doc.name, (word) => searched.some((q) => word.startsWith(q)))
      const inDescription = originalWords(doc.description, (word) => searched.includes(word))
      out.score = 0
      out.highlights = [
        ...(inName.length ? [{ field: 'name' as const, matched: inName }] : []),
        ...(inDescription.length ? [{ field: 'description' as const, matched: inDescription }] : [])
      ]
    }
    if (distance !== null) out.distanceKm = Math.round(distance * 1000) / 1000
    return out
  }
}

/**
 * One scorer: per query word, 3 when it is a whole word of the name, 2 when it is the prefix of a name word, 1 when
 * it matches only in the description (every candidate has every word as a term, so it matched somewhere).
 */
export const scoreOf = (searched: string[], nameWords: string[]) => searched.reduce((score, word) => score + tierOf(word, nameWords), 0)
