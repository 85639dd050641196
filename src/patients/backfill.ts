// Patient links for data written before links existed: every distinct (facility, patient) of the medical
// records, encounters and appointments gets its link, once. It runs in the background after start-up (the server
// is ready meanwhile), on one instance at a time (a lease held by the caller), and marks itself done in the store
// only after the last link: killed halfway, the next start runs it again, and links that exist are kept as they
// are (the unique link key and `ensureLink` make a second pass write nothing twice).
import type { Deps } from '../deps'
import type { StoreService } from '../store'
import { orNull } from '../billing/store-calls'
import { ensureLink } from './links'
import type { Patient } from '../services/patients/patients.schema'

/** The store's record that one migration is done. */
export interface MigrationMarker {
  id: string
  name: string
  doneAt: number
  count: number
}

export const PATIENT_LINKS_BACKFILL = 'patient-links-backfill'

// Pairs checked per store query (one `$in` over the unique link key).
const BATCH = 200

type Pair = { facility: string; patient: string; source: Patient['source'] }

const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined)

/**
 * Links every patient of a record, encounter or appointment to its facility unless already done; answers the
 * number of links made, or null when the marker says it ran before. `stopped()` ends it early (shutdown): it then
 * stays unmarked.
 */
export const backfillPatientLinks = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'logger'>,
  markers: StoreService<MigrationMarker>,
  stopped: () => boolean = () => false
): Promise<number | null> => {
  const done = await markers._find({ query: { name: PATIENT_LINKS_BACKFILL, $limit: 1 }, paginate: false })
  if (done.length > 0) return null
  // Distinct pairs only: a scan reads two fields of each document, without loading the documents.
  const pairs = new Map<string, Pair>()
  const sources = [
    ['medical-records', deps.stores.records],
    ['medical-encounters', deps.stores.encounters],
    ['appointments', deps.stores.appointments]
  ] as const
  for (const [source, store] of sources) {
    await store._scan(['facility', 'patient'], (doc) => {
      const facility = str(doc.facility)
      const patient = str(doc.patient)
      const key = facility && patient ? `${facility}:${patient}` : undefined
      if (key && facility && patient && !pairs.has(key)) pairs.set(key, { facility, patient, source })
    })
  }
  let made = 0
  const keys = [...pairs.keys()]
  for (let i = 0; i < keys.length; i += BATCH) {
    if (stopped()) return made
    const batch = keys.slice(i, i + BATCH)
    const existing = await deps.stores.patients._find({
      query: { linkKey: { $in: batch }, $select: ['linkKey'] },
      paginate: false
    })
    const linked = new Set(existing.map((link) => link.linkKey))
    for (const key of batch) {
      if (linked.has(key)) continue
      const pair = pairs.get(key) as Pair
      const account = await orNull(deps.stores.accounts._get(pair.patient))
      if (!account) continue // the account is gone: nobody to list
      const { created } = await ensureLink(deps, pair.facility, account, pair.source, null)
      if (created) made++
    }
    // Leaves room for the requests being served between batches.
    await new Promise((resolve) => setImmediate(resolve))
  }
  await markers
    ._create({ name: PATIENT_LINKS_BACKFILL, doneAt: deps.clock.now(), count: made })
    .catch((error: unknown) => {
      // Another instance marked it done at the same moment: the same outcome.
      if ((error as { code?: unknown })?.code !== 409) throw error
    })
  deps.logger.info(`Patient links backfill done: ${made} links made for earlier records`)
  return made
}
