// Removing files: one by its writer (while its record or encounter is not finalized: a finalized record's files are
// part of it), all of a record or an encounter with it (a step of their durable removal, which recovery repeats
// until it is done), and the uploads that never came (a time-driven pass after their URL expired). The documents go
// first, then the bytes no file references any more (src/attachments/blob-refs.ts); each removal is announced.
import { Conflict } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import { multi, orNull } from '../billing/store-calls'
import type { Attachment } from '../services/attachments/attachments.schema'
import { attachmentPath } from '../services/attachments/attachments.shared'
import { discardUpload, releaseBlobs } from './blob-refs'
import { faultPoint } from '../billing/fault'

type StoredAttachment = Stored<Attachment>

/** Releases what the removed files held: their bytes when no file references them any more, and the staging
 *  object of an upload that was never confirmed. */
const releaseRemoved = async (deps: Deps, removed: StoredAttachment[]) => {
  for (const att of removed) if (att.status === 'pending') await discardUpload(deps, att)
  await releaseBlobs(
    deps,
    removed.map((att) => att.storageKey)
  )
}

const finalizedConflict = (what: 'record' | 'encounter', id: string, finalizedAt: unknown) =>
  new Conflict(`This medical ${what} is finalized; its files are part of it and can no longer be removed`, {
    [what]: id,
    finalizedAt,
    errors: [{ field: 'finalizedAt', message: `is set: the ${what} is finalized` }]
  })

/** 409 when the file's record or encounter is finalized (a parent that is gone refuses nothing). */
export const refuseIfFinalized = async (deps: Pick<Deps, 'stores'>, att: StoredAttachment) => {
  if (att.record) {
    const record = await orNull(deps.stores.records._get(att.record))
    if (record && record.finalizedAt !== undefined && record.finalizedAt !== null)
      throw finalizedConflict('record', record.id, record.finalizedAt)
  } else if (att.encounter) {
    const encounter = await orNull(deps.stores.encounters._get(att.encounter))
    if (encounter && encounter.status !== 'draft')
      throw finalizedConflict('encounter', encounter.id, encounter.finalizedAt)
  }
}

/** Removes one file (within `scope`, the caller's write scope) and then its bytes; answers the removed document. */
export const removeAttachment = async (
  deps: Deps,
  att: StoredAttachment,
  scope?: Query
): Promise<StoredAttachment> => {
  await refuseIfFinalized(deps, att)
  const removed = await deps.stores.attachments._remove(att.id, { query: within({}, scope) })
  await releaseRemoved(deps, [removed])
  return removed
}

/**
 * Removes every file of a record or an encounter, then their bytes, and announces the removals. Idempotent: the
 * record's and the encounter's removal run it before removing the parent, and again after a crash.
 */
export const removeAttachmentsOf = async (
  deps: Deps,
  parent: { record: string } | { encounter: string }
): Promise<number> => {
  const removed = await deps.stores.attachments._remove(null, multi(parent))
  // A crash here leaves bytes no file references: the start-up sweep removes them (blob-refs.ts).
  faultPoint('attachments:documents-removed')
  await releaseRemoved(deps, removed)
  await deps.announce(attachmentPath, 'removed', removed)
  return removed.length
}

/**
 * One pass: removes every pending file whose upload URL expired before now (on the one clock) and whose bytes never
 * came, with anything an unconfirmed upload left; answers how many it removed. A file made ready meanwhile stays
 * (the removal is conditional on `pending`).
 */
export const expireUploads = async (deps: Deps): Promise<number> => {
  const expired = await deps.stores.attachments._find({
    query: { status: 'pending', uploadExpiresAt: { $lt: deps.clock.now() }, $limit: 500 },
    paginate: false
  })
  let removed = 0
  for (const att of expired) {
    const gone = await orNull(deps.stores.attachments._remove(att.id, { query: { status: 'pending' } }))
    if (!gone) continue
    await releaseRemoved(deps, [gone])
    await deps.announce(attachmentPath, 'removed', gone)
    removed++
  }
  return removed
}
