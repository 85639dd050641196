// Creating an attachment: the metadata of a file to come, on a medical record or an encounter. The facility and
// the patient are the record's or the encounter's; the caller needs the record's write grant (or the facility's
// membership for an encounter). A declared size over the limit (413) or a type off the allow-list (415) is refused
// here, before a single byte is sent; so is a size that would take the facility's storage past its subscription's
// `storageMax` (402), decided under a lock per facility so that concurrent creates cannot overshoot it together.
// The answer is `pending` with its signed upload URL (src/attachments/links.ts).
import { BadRequest, Conflict, Forbidden, NotFound, PaymentError } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { AccessContext } from '../access/context'
import { matches } from '../access/rules'
import type { Stored } from '../store'
import { facilityScope } from '../billing/access'
import { standingOf } from '../subscriptions/enforce'
import { holds } from '../access/medical-records'
import type { Attachment, AttachmentAnswerFields } from '../services/attachments/attachments.schema'
import type { AttachmentData } from '../services/attachments/attachments.shared'
import { storageUsage } from './access'
import { uploadLink } from './links'
import { UnsupportedMediaType } from './errors'
import { baseType } from './sniff'
import { checkDeclaredSize } from './upload'

/** The facility, patient and (for a record's file) the record's grants a new file takes from its parent. */
export interface ParentFields {
  organization: string
  patient: string
  recordAccess?: Attachment['recordAccess']
}

const field = (name: string, message: string) => ({ errors: [{ field: name, message }] })

/** Refuses a declared size over the limit (413) and a declared type off the allow-list (415). */
export const checkDeclared = (deps: Pick<Deps, 'settings'>, data: Pick<AttachmentData, 'size' | 'contentType'>) => {
  checkDeclaredSize(deps, data.size)
  const { types } = deps.settings.get('attachments')
  if (!types.map(baseType).includes(baseType(data.contentType)))
    throw new UnsupportedMediaType(
      `Files of type '${data.contentType}' are not accepted (accepted: ${types.join(', ')})`,
      'contentType'
    )
}

const notFound = (name: 'record' | 'encounter', id: string) =>
  new NotFound(`No ${name === 'record' ? 'medical record' : 'medical encounter'} found for id '${id}'`, {
    ...field(name, 'is not a record you may read')
  })

/**
 * The record or encounter a new file goes on, checked for the caller (`access`; null for an internal call):
 * unreadable → 404 naming the field, readable but not writable → 403, finalized → 409. Answers what the file takes
 * from it.
 */
export const parentOf = async (
  deps: Pick<Deps, 'stores'>,
  data: Pick<AttachmentData, 'record' | 'encounter'>,
  access: AccessContext | null
): Promise<ParentFields> => {
  const { record: recordId, encounter: encounterId } = data
  if ((recordId === undefined) === (encounterId === undefined))
    throw new BadRequest('Name exactly one of record and encounter', {
      ...field('record', 'exactly one of record and encounter is required')
    })
  if (recordId !== undefined) {
    const record = await deps.stores.records._get(recordId).catch(() => null)
    if (!record || record.deletingAt || (access && !holds(access, 'read', record)))
      throw notFound('record', recordId)
    if (access && !holds(access, 'write', record))
      throw new Forbidden('You may not add files to this medical record')
    if (record.finalizedAt !== undefined && record.finalizedAt !== null)
      throw new Conflict('This medical record is finalized; its files can no longer change', {
        record: record.id,
        finalizedAt: record.finalizedAt,
        ...field('finalizedAt', 'is set: the record is finalized')
      })
    if (typeof record.facility !== 'string' || typeof record.patient !== 'string')
      throw new BadRequest('Only a record filed under a facility and a patient takes files', {
        ...field('record', 'has no facility or no patient')
      })
    return {
      organization: record.facility,
      patient: record.patient,
      recordAccess: {
        createdBy: record.createdBy ?? null,
        permissions: (record.permissions ?? []) as NonNullable<Attachment['recordAccess']>['permissions']
      }
    }
  }
  const id = encounterId as string
  const encounter = await deps.stores.encounters._get(id).catch(() => null)
  if (!encounter || encounter.deleting || (access && !matches(facilityScope(access), encounter)))
    throw notFound('encounter', id)
  if (encounter.status !== 'draft')
    throw new Conflict('This medical encounter is finalized; its files can no longer change', {
      encounter: encounter.id,
      finalizedAt: encounter.finalizedAt,
      ...field('finalizedAt', 'is set: the encounter is finalized')
    })
  return { organization: encounter.facility, patient: encounter.patient }
}

/** Is the record or encounter of a file still there, and not being removed? */
const parentStands = async (deps: Pick<Deps, 'stores'>, att: Pick<Attachment, 'record' | 'encounter'>) => {
  if (att.record) {
    const record = await deps.stores.records._get(att.record).catch(() => null)
    return !!record && !record.deletingAt
  }
  const encounter = await deps.stores.encounters._get(att.encounter as string).catch(() => null)
  return !!encounter && !encounter.deleting
}

/** 402 naming `storageMax`: the facility's storage would go past its subscription's limit. */
const overStorage = (limit: number, used: number, size: number, subscription: string | undefined) =>
  new PaymentError(`This file would take the facility's storage past its subscription's limit of ${limit} bytes`, {
    feature: 'storageMax',
    storageMax: limit / STORAGE_MAX_UNIT,
    limitBytes: limit,
    used,
    size,
    ...(subscription ? { subscription } : {})
  })

/** `storageMax` counts mebibytes, as the subscription packages state it (the free package's 1024 is 1 GiB). */
export const STORAGE_MAX_UNIT = 1024 * 1024

/** The facility's storage limit in bytes, or null when its subscription sets none. */
const storageLimit = async (deps: Deps, organization: string) => {
  const standing = await standingOf(deps, organization)
  const limit = standing.features.storageMax
  return {
    limit: typeof limit === 'number' && Number.isFinite(limit) ? limit * STORAGE_MAX_UNIT : null,
    subscription: standing.subscription?.id
  }
}

/** The lock under which a facility's storage is checked and taken. */
export const storageLock = (organization: string) => `attachments:storage:${organization}`

/**
 * Stores a pending attachment (after the parent's fields were taken: `parent`) and answers it with its upload URL.
 * The storage check and the insert happen under the facility's lock.
 */
export const createAttachment = async (
  deps: Deps,
  data: AttachmentData & { createdAt: number; createdBy: string | null },
  parent: ParentFields
): Promise<Stored<Attachment>> => {
  checkDeclared(deps, data)
  const { record, encounter, filename, contentType, size, sha256, title, createdAt, createdBy } = data
  const stored = await deps.locks.exclusive(storageLock(parent.organization), async () => {
    const { limit, subscription } = await storageLimit(deps, parent.organization)
    if (limit !== null) {
      const usage = await storageUsage(deps, parent.organization)
      if (usage.bytes + size > limit) throw overStorage(limit, usage.bytes, size, subscription)
    }
    const now = deps.clock.now()
    return deps.stores.attachments._create({
      organization: parent.organization,
      patient: parent.patient,
      ...(record !== undefined ? { record } : { encounter }),
      filename,
      contentType,
      size,
      ...(sha256 !== undefined ? { sha256 } : {}),
      ...(title !== undefined ? { title } : {}),
      status: 'pending',
      uploadExpiresAt: now + deps.settings.get('attachments').uploadTtlMs,
      createdAt,
      createdBy,
      updatedAt: now,
      ...(parent.recordAccess ? { recordAccess: parent.recordAccess } : {})
    })
  })
  // The parent's removal may have started meanwhile: it removes the files it finds after marking the parent, so a
  // file inserted after that finds the mark here and goes again (no file outlives its record or encounter).
  if (!(await parentStands(deps, stored))) {
    await deps.stores.attachments._remove(stored.id).catch(() => null)
    throw notFound(record !== undefined ? 'record' : 'encounter', (record ?? encounter) as string)
  }
  return stored
}

/** A new file's answer to its creator: with its signed upload URL (never stored, never in an event). */
export const withUploadUrl = async (
  deps: Deps,
  stored: Stored<Attachment>
): Promise<Stored<Attachment> & AttachmentAnswerFields> => ({
  ...stored,
  uploadUrl: (await uploadLink(deps, stored)).url
})
