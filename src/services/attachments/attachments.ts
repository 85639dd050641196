// Attachments: files on medical records and encounters (docs/attachments.md). Who may read and change a file is who
// may read and change its record (the record's grants and shares) or its encounter (the facility's members): the
// rules are the record's and the encounter's own (src/attachments/access.ts). A create is checked against the
// declared size and type, the parent and the facility's storage limit before any byte is sent; the bytes go to the
// signed URL of the answer. Patient data: every external call is in the audit trail, realtime events go only to
// the record's readers, and the upload URL only to the caller.
import { authenticate } from '@feathersjs/authentication'
import { Type } from '@feathersjs/typebox'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { recordAudience } from '../../access/medical-records'
import { scopeAccess, accessOf } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import {
  bodyNotAnObject,
  dataValidator,
  fieldErrors,
  invalid,
  validateBody,
  validateQueryWith
} from '../../schema/validators'
import { externalView, presentExternal } from '../../schema/external'
import { attachmentReadQuery, attachmentWriteQuery } from '../../attachments/access'
import { checkDeclared, parentOf } from '../../attachments/create'
import { followRecordGrants } from '../../attachments/records'
import { AttachmentService } from './attachments.class'
import {
  attachmentDataSchema,
  attachmentExternalResolver,
  attachmentPatchSchema,
  attachmentQuerySchema,
  attachmentServerOwned,
  type Attachment
} from './attachments.schema'
import { attachmentMethods, attachmentPath } from './attachments.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [attachmentPath]: AttachmentService
  }
}

// The create body: 400 naming each field (a server-owned one says so), then the declared size (413) and type (415).
const validateData = dataValidator.compile(attachmentDataSchema)
const validateCreate = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  const data: unknown = context.data
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw bodyNotAnObject()
  const validate = validateData
  const value = structuredClone(data)
  if (!validate(value))
    throw invalid('data', fieldErrors(validate.errors, { serverOwned: attachmentServerOwned }))
  checkDeclared(deps, value as { size: number; contentType: string })
  context.data = value
  await next()
}

// The facility, the patient and the record's grants come from the record or encounter, checked for the caller.
const takeParent = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  const access = context.params.provider ? await accessOf(context) : null
  context.data = { ...context.data, ...(await parentOf(deps, context.data, access)) }
  await next()
}

// The upload URL is the caller's alone: the `created` event goes out without it (the answer keeps it).
const createdEventWithoutUploadUrl = async (context: HookContext, next: NextFunction) => {
  await next()
  context.event = null
  const { uploadUrl: _secret, ...doc } = context.result as Attachment & { uploadUrl?: string }
  context.self.emit('created', await presentExternal(context.app, attachmentPath, doc))
}

// A confirmed upload is announced by the confirmation itself (src/attachments/upload.ts), once: the call emits none.
const confirmationAnnouncedOnce = async (context: HookContext, next: NextFunction) => {
  await next()
  if (context.params.operators && '$confirmUpload' in context.params.operators) context.event = null
}

// `$analytics=storage` is the one operator-like query field of a find.
const findQuerySchema = Type.Object(
  { ...attachmentQuerySchema.properties, $analytics: Type.Optional(Type.Literal('storage')) },
  { additionalProperties: false }
)

export const attachments = (app: Application, deps: Deps) => {
  app.use(attachmentPath, new AttachmentService(app, deps), {
    methods: [...attachmentMethods],
    events: []
  })

  defineAccess(app, attachmentPath, {
    read: attachmentReadQuery,
    write: attachmentWriteQuery,
    // The parent's rules are checked when its fields are taken (takeParent): 404 unreadable, 403 not writable.
    create: () => undefined,
    // The record's readers (its creator, the accounts and organizations it is shared with) or the facility's members.
    audience: (doc) =>
      doc.recordAccess ? recordAudience(doc.recordAccess) : [`organizations/${doc.organization}`],
    // Organization webhooks receive what they receive of the parent: encounters' files (the facility's), not
    // records' files (records go to no organization webhook).
    organizations: (doc) => (doc.record ? [] : [doc.organization]),
    audit: {
      fields: ['patient', 'organization'],
      patient: (doc) => doc.patient,
      facility: (doc) => doc.organization
    }
  })

  // A change of a record's grants reaches its files' copy of them.
  deps.events.on('record.changed', (change) => followRecordGrants(deps, change))

  app.service(attachmentPath).hooks({
    around: {
      all: [authenticate('jwt'), externalView(app, attachmentPath, attachmentExternalResolver)],
      find: [validateQueryWith(findQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(attachmentQuerySchema), scopeAccess, requireSubscription],
      create: [
        createdEventWithoutUploadUrl,
        validateCreate(deps),
        scopeAccess,
        takeParent(deps),
        requireSubscription,
        setCreated
      ],
      patch: [
        confirmationAnnouncedOnce,
        oneAtATime,
        validateQueryWith(attachmentQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: attachmentPatchSchema })
      ],
      remove: [oneAtATime, validateQueryWith(attachmentQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
