// The attachments service: metadata of the files on medical records and encounters. A POST creates a pending file
// and answers its signed upload URL (src/attachments/create.ts); a GET answers ready files with a download URL
// signed for the caller; a PATCH changes the title or confirms an upload made straight to the bucket; a DELETE
// removes the file and then its bytes (src/attachments/remove.ts). `$analytics=storage` answers the storage used.
import { BadRequest, Forbidden, NotFound } from '@feathersjs/errors'
import type { Id, NullableId, Paginated, Params } from '@feathersjs/feathers'
import type { PaginationOptions } from '@feathersjs/adapter-commons'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { organizationIds, type AccessContext } from '../../access/context'
import type { CreatedFields } from '../../hooks/set-created'
import { invalid } from '../../schema/validators'
import { ResourceService } from '../resource'
import { createAttachment, parentOf, withUploadUrl, type ParentFields } from '../../attachments/create'
import { holdsOnParent, storageUsage } from '../../attachments/access'
import { refuseIfFinalized, removeAttachment } from '../../attachments/remove'
import { downloadLink } from '../../attachments/links'
import { confirmUpload } from '../../attachments/upload'
import type { Attachment, AttachmentAnswerFields } from './attachments.schema'
import {
  attachmentPath,
  type AttachmentData,
  type AttachmentPatch,
  type AttachmentQuery,
  type AttachmentStorageUsage
} from './attachments.shared'

export const getOptions = (deps: Pick<Deps, 'settings'>): StoreOptions => ({
  name: 'attachments',
  indexes: [
    { fields: { record: 1, createdAt: -1 } },
    { fields: { encounter: 1, createdAt: -1 } },
    { fields: { patient: 1, createdAt: -1 } },
    // Storage totals per facility, and the pass removing uploads that never came.
    { fields: { organization: 1, status: 1 } },
    { fields: { status: 1, uploadExpiresAt: 1 } },
    // The shared bytes of identical files (a key is released when no attachment references it any more).
    { fields: { storageKey: 1 } },
    // The record read rule, applied to its files' copy of the record's grants.
    { fields: { 'recordAccess.createdBy': 1, createdAt: -1 } },
    { fields: { 'recordAccess.permissions.uid': 1, createdAt: -1 } },
    { fields: { 'recordAccess.permissions.organization': 1, createdAt: -1 } }
  ],
  // The read rules need these (nested in `$and`/`$or`); the query schema refuses them from clients.
  operators: ['$or', '$elemMatch', '$size', '$exists'],
  paginate: deps.settings.get('medicalRecords').paginate
})

type AttachmentParams = StoreParams<AttachmentQuery>
type StoredAttachment = Stored<Attachment>
type Answer = StoredAttachment & AttachmentAnswerFields

export class AttachmentService extends ResourceService<
  StoredAttachment,
  AttachmentData,
  AttachmentPatch,
  AttachmentQuery
> {
  // `$confirmUpload` in a PATCH body (src/hooks/reject-unsafe-keys.ts hands it over in params.operators).
  bodyOperators = ['$confirmUpload']

  constructor(app: Application, deps: Deps) {
    super(app, deps, attachmentPath, getOptions(deps))
  }

  /** The caller's access context (scopeAccess loads it, but a find or get may not carry it on). */
  private async callerAccess(params: Params): Promise<AccessContext | null> {
    if (!params.provider || !params.account) return null
    return params.access ?? (await this.deps.access.load(params.account))
  }

  /** A ready file answered to an account: with its download URL, signed for that account. */
  private async withDownload(att: StoredAttachment, params: Params): Promise<Answer> {
    const accountId = params.account?.id
    if (att.status !== 'ready' || !accountId) return att
    const link = await downloadLink(this.deps, att, accountId)
    return { ...att, downloadUrl: link.url, downloadExpiresAt: link.expiresAt }
  }

  find(params?: AttachmentParams & { paginate?: PaginationOptions }): Promise<Paginated<Answer>>
  find(params?: AttachmentParams & { paginate: false }): Promise<Answer[]>
  find(params?: AttachmentParams): Promise<Paginated<Answer> | Answer[]>
  async find(params: AttachmentParams = {}): Promise<Paginated<Answer> | Answer[]> {
    const { $analytics, ...query } = (params.query ?? {}) as AttachmentQuery
    if ($analytics !== undefined)
      // (cast: `$analytics` answers usage rows instead of documents, as the typed client declares)
      return (await this.storage(params)) as unknown as Answer[]
    const found = await this.store.find({ ...params, query })
    const page = Array.isArray(found) ? found : found.data
    const answered = await Promise.all(page.map((att) => this.withDownload(att, params)))
    return Array.isArray(found) ? answered : { ...found, data: answered }
  }

  /**
   * `$analytics=storage`: the bytes and files stored per facility the caller is staff of (a member), or for the one
   * `organization` asked for; anyone else (patients, strangers) gets 403.
   */
  private async storage(params: AttachmentParams): Promise<AttachmentStorageUsage[]> {
    const asked = (params.query as { organization?: unknown } | undefined)?.organization
    let facilities: string[]
    if (params.provider) {
      const access = await this.callerAccess(params)
      const managed = access ? organizationIds(access) : []
      facilities = typeof asked === 'string' ? managed.filter((id) => id === asked) : managed
      if (facilities.length === 0)
        throw new Forbidden("Only the facility's staff may see its storage", {
          errors: [{ field: '$analytics', message: 'needs membership in the facility' }]
        })
    } else if (typeof asked === 'string') facilities = [asked]
    else throw invalid('query', [{ field: 'organization', message: 'is required' }])
    return Promise.all(
      [...new Set(facilities)].map(async (organization) => ({
        organization,
        ...(await storageUsage(this.deps, organization))
      }))
    )
  }

  /** A file of a record or encounter the caller may read now (404 otherwise), with its download URL when ready. */
  async get(id: Id, params: AttachmentParams = {}): Promise<Answer> {
    const { $analytics: _ignored, ...query } = (params.query ?? {}) as AttachmentQuery
    const att = await this.store.get(id, { ...params, query })
    const access = await this.callerAccess(params)
    if (access && !(await holdsOnParent(this.deps, access, att, 'read')))
      throw new NotFound(`No record found for id '${id}'`)
    return this.withDownload(att, params)
  }

  /** A pending file on the record or encounter the hooks checked (its fields in the body), with its upload URL. */
  async create(data: AttachmentData & CreatedFields & Partial<ParentFields>, params?: AttachmentParams) {
    const { organization, patient, recordAccess, ...fields } = data
    const parent: ParentFields =
      organization && patient
        ? { organization, patient, ...(recordAccess ? { recordAccess } : {}) }
        : await parentOf(this.deps, fields, null)
    const stored = await this.write('create', null, params, () => createAttachment(this.deps, fields, parent))
    return withUploadUrl(this.deps, stored)
  }

  /** The file a patch or remove acts on; an external caller must hold the write grant on its record (or be a member
   *  of the encounter's facility) as the record stands now, not only on the file's copy of its grants. */
  private async writable(id: NullableId, params: AttachmentParams): Promise<StoredAttachment> {
    const existing = await this.loadExisting(id as Id, params)
    const access = await this.callerAccess(params)
    if (access) {
      if (!(await holdsOnParent(this.deps, access, existing, 'read')))
        throw new NotFound(`No record found for id '${existing.id}'`)
      if (!(await holdsOnParent(this.deps, access, existing, 'write')))
        throw new Forbidden('You may not change the files of this record')
    }
    return existing
  }

  /** `{ title }`, or `{ $confirmUpload: true }` alone (S3 mode: the bytes went straight to the bucket). */
  async patch(id: NullableId, data: AttachmentPatch, params: AttachmentParams = {}): Promise<Answer> {
    const existing = await this.writable(id, params)
    const operators = params.operators ?? {}
    if ('$confirmUpload' in operators) {
      if (operators.$confirmUpload !== true)
        throw invalid('data', [{ field: '$confirmUpload', message: 'must be true' }])
      const extra = Object.keys(data ?? {})
      if (extra.length) throw invalid('data', [{ field: extra[0], message: 'goes not with $confirmUpload' }])
      // (the ready event, when the upload is confirmed, is announced by confirmUpload)
      return confirmUpload(this.deps, existing)
    }
    if (data.title === undefined)
      throw new BadRequest('Nothing to change: send a title', {
        errors: [{ field: 'title', message: 'is required' }]
      })
    await refuseIfFinalized(this.deps, existing)
    return this.write('patch', id, params, () =>
      this.store._patch(
        existing.id,
        { title: data.title, updatedAt: this.deps.clock.now() },
        { query: within({}, params.writeScope) }
      )
    )
  }

  /** Removes the file (not while its record or encounter is finalized: 409), then its bytes. */
  async remove(id: NullableId, params: AttachmentParams = {}): Promise<StoredAttachment> {
    const existing = await this.writable(id, params)
    return this.write('remove', id, params, () => removeAttachment(this.deps, existing, params.writeScope))
  }
}
