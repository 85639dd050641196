// The directory search, one piece of code for both engines: the instance's search index (src/directory/search-index.ts)
// selects and ranks the matching entries — every query word (its three tiers), each facet, the circle's covering
// geohash cells, then the exact great-circle distance — and the page's entries are read from the store by id.
// `*` without location or facets pages the index's name-ordered list.
import { BadRequest } from '@feathersjs/errors'
import type { Paginated, Params } from '@feathersjs/feathers'
import type { Application, Configuration } from '../../declarations'
import type { Deps } from '../../deps'
import { publicFields, type DirectoryEntry } from '../../directory/entries'
import { directorySlot, type DirectoryRepair } from '../../directory/repair'
import { cellKey, facetKey, wordKey, type Condition } from '../../directory/search-index'
import { coveringCells, distanceKm, type Point } from '../../directory/geo'
import { originalWords, TIERS, words } from '../../directory/text'
import type { DirectoryQuery, DirectoryResult } from './unified-directory.schema'

export type DirectorySettings = Configuration['directory']

interface Circle extends Point {
  radiusKm: number
}

const badLocation = (message: string) =>
  new BadRequest(`Invalid query: 'location' ${message}`, { errors: [{ field: 'location', message }] })

/** `lat,lng[,radius_km]` → a circle, or a 400 naming `location`. */
export const parseLocation = (text: string, settings: DirectorySettings): Circle => {
  const parts = text.split(',').map((part) => part.trim())
  if (
    parts.length < 2 ||
    parts.length > 3 ||
    parts.some((part) => !/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(part))
  ) {
    throw badLocation('must be "<lat>,<lng>" or "<lat>,<lng>,<radius_km>" (numbers)')
  }
  const [lat, lng, radius] = parts.map(Number)
  if (lat < -90 || lat > 90) throw badLocation('latitude must be between -90 and 90')
  if (lng < -180 || lng > 180) throw badLocation('longitude must be between -180 and 180')
  const radiusKm = parts.length === 3 ? radius : settings.defaultRadiusKm
  if (!(radiusKm > 0) || radiusKm > settings.maxRadiusKm)
    throw badLocation(`radius must be more than 0 and at most ${settings.maxRadiusKm} km`)
  return { lat, lng, radiusKm }
}

type Facet = string | { $in: string[] }
const facetCondition = (field: string, value: Facet): Condition => ({
  keys: (typeof value === 'string' ? [value] : value.$in).map((one) => ({
    key: facetKey(field, one),
    score: 0
  }))
})

export class UnifiedDirectory {
  /** The app's directory and its repair (set up just before this service, when it registers). */
  private readonly repair: DirectoryRepair

  constructor(
    app: Application,
    private readonly deps: Deps
  ) {
    this.repair = directorySlot.require(app)
  }

  async find(params: Params = {}): Promise<Paginated<DirectoryResult>> {
    const query = (params.query ?? {}) as DirectoryQuery
    const settings: DirectorySettings = this.deps.settings.get('directory')
    const limit = Math.min(query.$limit ?? settings.paginate.default, settings.paginate.max)
    const skip = query.$skip ?? 0
    if (query.location !== undefined && query.$search === undefined) {
      throw new BadRequest(
        "Invalid query: 'location' applies only together with '$search' (use $search=* for every entry)",
        {
          errors: [{ field: 'location', message: 'requires $search' }]
        }
      )
    }
    const circle = query.location !== undefined ? parseLocation(query.location, settings) : null
    const raw = (query.$search ?? '*').trim()
    // `*` (or a search without a word) matches every entry.
    const searched = raw === '*' ? [] : [...new Set(words(raw))]
    if (searched.length > settings.maxWords) {
      throw new BadRequest(`Invalid query: '$search' has more than ${settings.maxWords} words`, {
        errors: [{ field: '$search', message: `at most ${settings.maxWords} words` }]
      })
    }

    const conditions: Condition[] = []
    for (const field of ['type', 'tags', 'ref.type', 'ref.types'] as const) {
      const value = query[field]
      if (value !== undefined) conditions.push(facetCondition(field, value))
    }
    // Every query word must match: one of its tiers (3 a whole name word, 2 a name-word prefix, 1 a description word).
    for (const word of searched)
      conditions.push({ keys: TIERS.map((tier) => ({ key: wordKey(tier, word), score: tier })) })
    if (circle)
      conditions.push({
        keys: coveringCells(circle, circle.radiusKm).map((cell) => ({ key: cellKey(cell), score: 0 }))
      })

    await this.repair.start()
    const index = await this.repair.directory.loadedIndex()
    let total: number
    let page: { id: string; score: number; distance: number }[]
    if (conditions.length === 0) {
      // `*` alone: the index's name order.
      const named = index.byName(skip, limit)
      total = named.total
      page = named.ids.map((id) => ({ id, score: 0, distance: 0 }))
    } else {
      const hits = index.match(
        conditions,
        circle ? { ...circle, distance: (to) => distanceKm(circle, to) } : null
      )
      total = hits.count
      page = index
        .page(hits, skip, limit)
        .map((hit) => ({ id: index.idOf(hit.n), score: hit.score, distance: hit.distance }))
    }
    const docs = page.length
      ? ((await this.repair.directory.store._find({
          query: { id: { $in: page.map((hit) => hit.id) }, $select: [...publicFields] },
          paginate: false
        })) as DirectoryEntry[])
      : []
    const byId = new Map(docs.map((doc) => [doc.id, doc]))
    const data: DirectoryResult[] = []
    for (const hit of page) {
      const doc = byId.get(hit.id)
      // (an entry removed between the index lookup and the read is left out of this page)
      if (!doc) continue
      const shown = this.present(doc, searched, circle ? hit.distance : null)
      if (searched.length) shown.score = hit.score
      data.push(shown)
    }
    return { total, limit, skip, data }
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
