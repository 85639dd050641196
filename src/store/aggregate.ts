// Sums per group, computed in the store (never by a client-facing find): the MongoDB `$group` pipeline and its
// rows, and the same sums over documents the embedded engine scanned. Each engine's `sumByGroup` uses these.
import type { GroupSums, InternalParams, Store, StoreDoc } from './contract'

/** The fields to read from each document: the top-level fields of the group and of every summed path. */
export const groupedFields = (groupBy: string, sums: Record<string, string>): string[] => [
  ...new Set([groupBy, ...Object.values(sums)].map((field) => field.split('.')[0]))
]

/** MongoDB's aggregation pipeline for the sums of `sums` per value of `groupBy` among the documents of `query`. */
export const groupPipeline = (query: StoreDoc, groupBy: string, sums: Record<string, string>): StoreDoc[] => [
  { $match: query },
  {
    $group: {
      _id: `$${groupBy}`,
      count: { $sum: 1 },
      ...Object.fromEntries(Object.keys(sums).map((name) => [name, { $sum: `$${sums[name]}` }]))
    }
  },
  { $sort: { _id: 1 } }
]

/** The pipeline's rows as `GroupSums`. */
export const pipelineRows = (rows: StoreDoc[], sums: Record<string, string>): GroupSums[] =>
  rows.map((row) => ({
    group: row._id ?? null,
    count: row.count,
    sums: Object.fromEntries(Object.keys(sums).map((name) => [name, row[name] ?? 0]))
  }))

const read = (doc: unknown, field: string): unknown =>
  field
    .split('.')
    .reduce<unknown>(
      (value, key) =>
        value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined,
      doc
    )

/** The sums of `sums` per value of `groupBy` over `docs`, ordered by group (as text). */
export const sumDocsByGroup = (
  docs: Iterable<StoreDoc>,
  groupBy: string,
  sums: Record<string, string>
): GroupSums[] => {
  const names = Object.keys(sums)
  const groups = new Map<string, GroupSums>()
  for (const doc of docs) {
    const group = read(doc, groupBy) ?? null
    const key = JSON.stringify(group)
    let entry = groups.get(key)
    if (!entry)
      groups.set(key, (entry = { group, count: 0, sums: Object.fromEntries(names.map((name) => [name, 0])) }))
    entry.count++
    for (const name of names) {
      const value = read(doc, sums[name])
      if (typeof value === 'number' && Number.isFinite(value)) entry.sums[name] += value
    }
  }
  return [...groups.values()].sort((a, b) => String(a.group).localeCompare(String(b.group)))
}

/**
 * `service._sumByGroup` under its former name and signature (the app is no longer needed: the store knows its
 * engine), kept while its callers move over.
 */
export const sumByGroup = (
  _app: unknown,
  service: Pick<Store, '_sumByGroup'>,
  params: InternalParams,
  groupBy: string,
  sums: Record<string, string>
): Promise<GroupSums[]> => service._sumByGroup(params, groupBy, sums)
