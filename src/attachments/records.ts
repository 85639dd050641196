// Files and their medical record: the record's removal takes its files (and their bytes) with it, durably; a change
// of the record's grants reaches its files' copy of them; a record's answers list its ready files.
// The removal is a durable cascade in the way of billing's (src/billing/cascade.ts): the record is marked
// `deletingAt` first (hidden from reads, closed to changes and to new files), its files go, then the record. If the
// process dies between steps, the recovery pass (./recovery.ts) finds the marked records and runs the same
// idempotent steps again, so no file outlives its record.
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { RecordChange } from '../events'
import type { Stored } from '../store'
import { within } from '../access/rules'
import { faultPoint } from '../billing/fault'
import { orNull } from '../billing/store-calls'
import type { MedicalRecord } from '../services/medical-records/medical-records.schema'
import type { Attachment } from '../services/attachments/attachments.schema'
import type { AttachmentSummary } from '../services/attachments/attachments.shared'
import { removeAttachmentsOf } from './remove'

type StoredRecord = Stored<MedicalRecord>

/** The cascade's mark, which never leaves the server. */
export const RECORD_REMOVAL_MARK = 'deletingAt'

/** A record as clients see it: without the cascade's mark. */
export const withoutMark = (record: StoredRecord): StoredRecord => {
  const { [RECORD_REMOVAL_MARK]: _mark, ...rest } = record
  return rest as StoredRecord
}

/** Whether a medical record is finalized (its contents closed). */
export const isFinalized = (record: { finalizedAt?: unknown }) =>
  record.finalizedAt !== undefined && record.finalizedAt !== null

/** The 409 of a change to a finalized medical record. */
export const finalizedConflict = (record: { id: string; finalizedAt?: unknown }) =>
  new Conflict('This medical record is finalized; only its permissions can still be changed', {
    id: record.id,
    finalizedAt: record.finalizedAt
  })

/**
 * Removes a medical record that is not finalized (409 otherwise, also when it is finalized meanwhile) with its
 * files and their bytes. `scope` is the caller's write scope: the mark, the first write, is made only within it.
 * `recovering`: the mark exists already (recovery repeats the remaining steps).
 */
export const removeRecordCascade = async (
  deps: Deps,
  recordId: string,
  options: { scope?: Query; recovering?: boolean } = {}
): Promise<StoredRecord> => {
  const { records } = deps.stores
  let record = await orNull(records._get(recordId, { query: within({}, options.scope) }))
  if (!record) throw new NotFound(`No record found for id '${recordId}'`)
  if (!record[RECORD_REMOVAL_MARK]) {
    if (isFinalized(record)) throw finalizedConflict(record)
    record = await orNull(
      records._patch(
        record.id,
        { [RECORD_REMOVAL_MARK]: deps.clock.now() },
        { query: within({ finalizedAt: { $exists: false } }, options.scope) }
      )
    )
    if (!record) {
      const now = await orNull(records._get(recordId))
      if (now && isFinalized(now)) throw finalizedConflict(now)
      throw new NotFound(`No record found for id '${recordId}'`)
    }
  }
  faultPoint('record-cascade:marked', options)
  await removeAttachmentsOf(deps, { record: record.id })
  faultPoint('record-cascade:attachments-removed', options)
  return withoutMark((await orNull(records._remove(record.id))) ?? record)
}

/** Records whose removal a crash cut off (marked before `before`), finished; answers how many. */
export const finishRecordRemovals = async (deps: Deps, before: number): Promise<number> => {
  const marked = await deps.stores.records._find({
    query: { [RECORD_REMOVAL_MARK]: { $lt: before }, $limit: 500 },
    paginate: false
  })
  let finished = 0
  for (const record of marked) {
    const removed = await orNull(removeRecordCascade(deps, record.id, { recovering: true }))
    if (removed) {
      await deps.announce('medical-records', 'removed', removed)
      finished++
    }
  }
  return finished
}

/** The grants of a record as its files keep them. */
export const recordAccessOf = (record: StoredRecord): NonNullable<Attachment['recordAccess']> => ({
  createdBy: record.createdBy ?? null,
  permissions: (record.permissions ?? []) as NonNullable<Attachment['recordAccess']>['permissions']
})

/** After a record's change: its files' copy of its grants follows the record's own. */
export const followRecordGrants = async (deps: Deps, change: RecordChange) => {
  if (change.path !== 'medical-records' || (change.method !== 'patch' && change.method !== 'update')) return
  for (const doc of change.docs) {
    const record = doc as StoredRecord
    if (typeof record.id !== 'string') continue
    await deps.stores.attachments._patch(
      null,
      { recordAccess: recordAccessOf(record) },
      { query: { record: record.id }, paginate: false, adapter: { multi: true } }
    )
  }
}

const sameGrants = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

/**
 * Brings every file's copy of its record's grants in step with the record (a process that died between a record's
 * change and the copy's update left it behind; single-file reads and downloads never depended on it). Run at
 * start-up: one scan of the records' files, one read per record; answers how many files it changed.
 */
export const repairRecordGrants = async (deps: Deps): Promise<number> => {
  const files = await deps.stores.attachments._find({
    query: { record: { $exists: true }, $select: ['id', 'record', 'recordAccess'] },
    paginate: false
  })
  const byRecord = new Map<string, typeof files>()
  for (const file of files) {
    const list = byRecord.get(file.record as string) ?? []
    list.push(file)
    byRecord.set(file.record as string, list)
  }
  let changed = 0
  for (const [recordId, list] of byRecord) {
    const record = await orNull(deps.stores.records._get(recordId))
    if (!record) continue
    const grants = recordAccessOf(record)
    for (const file of list) {
      if (sameGrants(file.recordAccess, grants)) continue
      await deps.stores.attachments._patch(file.id, { recordAccess: grants })
      changed++
    }
  }
  return changed
}

export type { AttachmentSummary }

/** The ready files of each of `recordIds`, in one store query, by record id (oldest first). */
export const readyFilesOf = async (
  deps: Pick<Deps, 'stores'>,
  recordIds: string[]
): Promise<Map<string, AttachmentSummary[]>> => {
  const byRecord = new Map<string, AttachmentSummary[]>()
  if (recordIds.length === 0) return byRecord
  const files = await deps.stores.attachments._find({
    query: {
      record: { $in: [...new Set(recordIds)] },
      status: 'ready',
      $sort: { createdAt: 1 },
      $select: ['id', 'record', 'filename', 'contentType', 'size']
    },
    paginate: false
  })
  for (const file of files) {
    const list = byRecord.get(file.record as string) ?? []
    list.push({ id: file.id, filename: file.filename, contentType: file.contentType, size: file.size })
    byRecord.set(file.record as string, list)
  }
  return byRecord
}
