// Who may read and change a file on a medical record or an encounter: exactly who may read and change the record
// (its creator and its permissions: src/access/medical-records.ts) or the encounter (the
// facility's members: src/billing/access.ts). Nothing is restated here: the record's own queries are applied to
// the file's copy of the record's grants (`recordAccess`, kept in step with the record by ./record-sync.ts), and
// the encounter's own scope to the file's `organization`. A single file's rights (downloads, create, remove) are
// decided on the record or encounter as stored now, so a share taken away stops its files at once.
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { AccessContext } from '../access/context'
import { matches } from '../access/rules'
import type { Stored } from '../store'
import { facilityScope } from '../billing/access'
import { holds, recordQuery, type Grant } from '../access/medical-records'
import type { Attachment } from '../services/attachments/attachments.schema'
import type { MedicalRecord } from '../services/medical-records/medical-records.schema'
import type { Encounter } from '../services/medical-encounters/medical-encounters.schema'

const OPERATORS = new Set(['$or', '$and', '$nor'])

/** `query` with every field it names moved by `rename` (operators `$or`/`$and`/`$nor` keep their shape). */
export const renameFields = (query: Query, rename: (field: string) => string): Query => {
  const out: Query = {}
  for (const [key, value] of Object.entries(query)) {
    if (OPERATORS.has(key) && Array.isArray(value))
      out[key] = value.map((branch: Query) => renameFields(branch, rename))
    else out[rename(key)] = value
  }
  return out
}

/** The record's own rule (`grant` on the record) applied to its files' copy of the record's grants. */
const onRecordFiles = (access: AccessContext, grant: Grant): Query => ({
  $and: [
    { record: { $exists: true } },
    renameFields(recordQuery(access, grant), (field) => `recordAccess.${field}`)
  ]
})

/** The encounters' own scope (the facility's members) applied to the files of encounters. */
const onEncounterFiles = (access: AccessContext): Query => ({
  encounter: { $exists: true },
  ...renameFields(facilityScope(access), (field) => (field === 'facility' ? 'organization' : field))
})

/** The files `access` may read, as a store query (find/get scope and realtime filter). */
export const attachmentReadQuery = (access: AccessContext): Query => ({
  $or: [onRecordFiles(access, 'read'), onEncounterFiles(access)]
})

/** Among readable files, those `access` may change or remove: the record's write grant, the encounter's facility. */
export const attachmentWriteQuery = (access: AccessContext): Query => ({
  $or: [onRecordFiles(access, 'write'), onEncounterFiles(access)]
})

/** The record of a file, as its grants are stored in the record now (null: the record is gone). */
const recordOf = async (deps: Pick<Deps, 'stores'>, id: string): Promise<Stored<MedicalRecord> | null> =>
  deps.stores.records._get(id).catch(() => null)

const encounterOf = async (deps: Pick<Deps, 'stores'>, id: string): Promise<Stored<Encounter> | null> =>
  deps.stores.encounters._get(id).catch(() => null)

/** Does `access` read (`grant` 'read') or change ('write') the record or encounter a file belongs to, now? */
export const holdsOnParent = async (
  deps: Pick<Deps, 'stores'>,
  access: AccessContext,
  att: Pick<Attachment, 'record' | 'encounter'>,
  grant: 'read' | 'write'
): Promise<boolean> => {
  if (att.record) {
    const record = await recordOf(deps, att.record)
    return !!record && !record.deletingAt && holds(access, grant, record)
  }
  if (att.encounter) {
    const encounter = await encounterOf(deps, att.encounter)
    return !!encounter && !encounter.deleting && matches(facilityScope(access), encounter)
  }
  return false
}

/** May account `accountId` read this file (download it), as the record or encounter stands now? */
export const mayReadAttachment = async (
  deps: Pick<Deps, 'stores' | 'access'>,
  accountId: string,
  att: Stored<Attachment>
): Promise<boolean> => holdsOnParent(deps, await deps.access.load({ id: accountId }), att, 'read')

/** May account `accountId` change or remove this file, as the record or encounter stands now? */
export const mayWriteAttachment = async (
  deps: Pick<Deps, 'stores' | 'access'>,
  accountId: string,
  att: Stored<Attachment>
): Promise<boolean> => holdsOnParent(deps, await deps.access.load({ id: accountId }), att, 'write')

/** The bytes and files a facility stores (pending uploads count: they hold their declared size). */
export const storageUsage = async (
  deps: Pick<Deps, 'stores'>,
  organization: string
): Promise<{ bytes: number; count: number }> => {
  const [row] = await deps.stores.attachments._sumByGroup({ query: { organization } }, 'organization', {
    bytes: 'size'
  })
  return { bytes: row?.sums.bytes ?? 0, count: row?.count ?? 0 }
}
