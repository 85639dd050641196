// The attachments service: metadata of the files on medical records and encounters. What a POST, PATCH and
// DELETE do is in src/attachments (create, change, remove); the bytes are behind deps.blobs.
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, Stored } from '../../store'
import { ResourceService } from '../resource'
import type { Attachment } from './attachments.schema'
import {
  attachmentPath,
  type AttachmentData,
  type AttachmentPatch,
  type AttachmentQuery
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
  // The record read rule needs these (nested in `$and`/`$or`); the query schema refuses them from clients.
  operators: ['$or', '$elemMatch', '$size', '$exists'],
  paginate: deps.settings.get('medicalRecords').paginate
})

export class AttachmentService extends ResourceService<
  Stored<Attachment>,
  AttachmentData,
  AttachmentPatch,
  AttachmentQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, attachmentPath, getOptions(deps))
  }
}
