// Reading an embedded engine's data file at load: NeDB's own loader, made faster (see readDataLines). It stands in
// for the persistence's `treatRawStreamAsync` of @seald-io/nedb 4.1.2 (NEDB_VERSION, ./match.ts), whose line
// semantics it repeats; test/store/nedb-internals.test.ts fails when that function changes.
import { deserialize } from '@seald-io/nedb/lib/model'

/** Strings up to this length are shared between documents (ids, codes, names, URLs; not free text). */
const SHARED_UP_TO = 40
/** At most this many distinct strings are remembered (a file of unique values stops adding). */
const POOL_SIZE = 1 << 20

/**
 * Replaces each short string of a parsed document, at any depth, by the first equal one seen in the file:
 * `JSON.parse` makes a new string per value, so a million records repeating their type, facility, patient, codes
 * and URLs held each of them a million times (about a quarter of the documents' memory).
 */
const sharer = () => {
  const pool = new Map<string, string>()
  const share = (value: string) => {
    const known = pool.get(value)
    if (known !== undefined) return known
    if (pool.size < POOL_SIZE) pool.set(value, value)
    return value
  }
  const walk = (node: Record<string, unknown> | unknown[], top = false) => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const value = node[i]
        if (typeof value === 'string') {
          if (value.length <= SHARED_UP_TO) node[i] = share(value)
        } else if (value !== null && typeof value === 'object') walk(value as Record<string, unknown>)
      }
      return
    }
    for (const key in node) {
      // (a document's own ids are unique: remembering them would only fill the pool)
      if (top && (key === '_id' || key === 'id')) continue
      const value = node[key]
      if (typeof value === 'string') {
        if (value.length <= SHARED_UP_TO) node[key] = share(value)
      } else if (value !== null && typeof value === 'object') walk(value as Record<string, unknown>)
    }
  }
  return walk
}

export interface LoadedData {
  data: unknown[]
  indexes: Record<string, unknown>
}

/**
 * A data file's lines to documents and index declarations, as NeDB's own loader does (a later line of the same
 * `_id` replaces the earlier one, `$$deleted` removes it, `$$indexCreated`/`$$indexRemoved` declare indexes, and
 * more than `corruptAlertThreshold` unreadable lines refuse the load) — but in one synchronous pass per chunk and
 * with a plain `JSON.parse` for lines without a `$$date` (NeDB's reviver, which only turns `{ $$date }` into a
 * Date, costs most of a large file's load). The datastores here have no (de)serialization hooks.
 */
export const readDataLines = (
  stream: NodeJS.ReadableStream,
  corruptAlertThreshold: number
): Promise<LoadedData> =>
  new Promise((resolve, reject) => {
    const byId = new Map<string, unknown>()
    const indexes: Record<string, unknown> = {}
    let lines = 0
    let corrupt = 0
    let rest = ''
    const share = sharer()
    const take = (line: string) => {
      if (line === '') return
      lines++
      try {
        const doc = line.includes('$$date') ? deserialize(line) : JSON.parse(line)
        if (doc._id) {
          if (doc.$$deleted === true) byId.delete(doc._id)
          else {
            share(doc, true)
            byId.set(doc._id, doc)
          }
        } else if (doc.$$indexCreated && doc.$$indexCreated.fieldName != null)
          indexes[doc.$$indexCreated.fieldName] = doc.$$indexCreated
        else if (typeof doc.$$indexRemoved === 'string') delete indexes[doc.$$indexRemoved]
      } catch {
        corrupt++
      }
    }
    stream.on('data', (chunk: string | Buffer) => {
      const text = rest + chunk.toString()
      let start = 0
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        take(text.slice(start, end))
        start = end + 1
      }
      rest = text.slice(start)
    })
    stream.on('error', reject)
    stream.on('end', () => {
      take(rest)
      if (lines > 0 && corrupt / lines > corruptAlertThreshold) {
        const rate = corrupt / lines
        reject(
          Object.assign(
            new Error(
              `${Math.floor(100 * rate)}% of the data file is corrupt, more than given corruptAlertThreshold (${Math.floor(100 * corruptAlertThreshold)}%). Cautiously refusing to start NeDB to prevent dataloss.`
            ),
            { corruptionRate: rate, corruptItems: corrupt, dataLength: lines }
          )
        )
        return
      }
      resolve({ data: [...byId.values()], indexes })
    })
  })
