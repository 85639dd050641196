// attachmentSchema → Attachment → attachmentDataSchema → attachmentPatchSchema → attachmentQuerySchema
// A file on a medical record or on an encounter: its metadata here, its bytes in the storage behind
// src/attachments (found by `storageKey`, which never leaves the server).
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { hidden, type ResolverContext, type Stored } from '../../schema/resolvers'
import { resolve } from '@feathersjs/schema'

export const attachmentStatuses = ['pending', 'ready'] as const
export type AttachmentStatus = (typeof attachmentStatuses)[number]

/** A declared media type (`type/subtype`, parameters allowed); the allow-list decides which are accepted. */
const ContentType = () =>
  Type.String({ minLength: 3, maxLength: 255, pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+' })
/** A SHA-256 digest: 64 lowercase hex digits. */
const Sha256 = () => Type.String({ pattern: '^[0-9a-f]{64}$' })
const Filename = () => Type.String({ minLength: 1, maxLength: 255 })
const Size = () => Type.Integer({ minimum: 1 })
const Title = () => Text(200)

/** One element of a medical record's `permissions`, as the record stores it. */
const StoredPermission = Type.Object({
  uid: Type.Optional(Type.String()),
  organization: Type.Optional(Type.String()),
  roles: Type.Array(Type.String()),
  privileges: Type.Array(Type.String()),
  write: Type.Boolean(),
  share: Type.Boolean()
})

export const attachmentSchema = Type.Object(
  {
    ...serverFields,
    // The facility (the record's `facility`, the encounter's `facility`) and the patient, taken from the record or
    // encounter, never from the body.
    organization: IdString(),
    patient: IdString(),
    // Exactly one of the two: the medical record or the encounter the file belongs to.
    record: Type.Optional(IdString()),
    encounter: Type.Optional(IdString()),
    filename: Filename(),
    // The declared media type; the bytes are checked against it and against the allow-list on upload.
    contentType: ContentType(),
    // Bytes, as declared at create and checked exactly on upload.
    size: Size(),
    sha256: Type.Optional(Sha256()),
    title: Type.Optional(Title()),
    status: Type.Union(attachmentStatuses.map((status) => Type.Literal(status))),
    // Where the bytes are (server-only).
    storageKey: Type.Optional(Type.String()),
    uploadExpiresAt: Timestamp(),
    readyAt: Type.Optional(Timestamp()),
    updatedAt: Timestamp(),
    // Who may read a record's file: a copy of the record's creator and permissions (kept in step with the record),
    // so that the record's own read rule scopes finds and realtime events of its files. Encounters' files need
    // none: the facility decides.
    recordAccess: Type.Optional(
      Type.Object({
        createdBy: Type.Union([Type.String(), Type.Null()]),
        permissions: Type.Array(StoredPermission)
      })
    )
  },
  { additionalProperties: false }
)
export type Attachment = Static<typeof attachmentSchema>

/** Fields only answers carry, never stored: the signed upload URL (the create answer of a pending attachment) and
 *  the signed download URL (get/find answers of a ready one, signed for the caller). */
export const attachmentAnswerSchema = Type.Object({
  uploadUrl: Type.Optional(Type.String()),
  downloadUrl: Type.Optional(Type.String()),
  downloadExpiresAt: Type.Optional(Timestamp())
})
export type AttachmentAnswerFields = Static<typeof attachmentAnswerSchema>

export const attachmentDataSchema = Type.Object(
  {
    record: Type.Optional(IdString()),
    encounter: Type.Optional(IdString()),
    filename: Filename(),
    contentType: ContentType(),
    size: Size(),
    sha256: Type.Optional(Sha256()),
    title: Type.Optional(Title())
  },
  { additionalProperties: false }
)

/** Fields the server owns: sending one in a body is a 400 saying so. */
export const attachmentServerOwned = [
  'id',
  'createdAt',
  'createdBy',
  'updatedAt',
  'organization',
  'patient',
  'status',
  'storageKey',
  'uploadExpiresAt',
  'readyAt',
  'recordAccess',
  'uploadUrl',
  'downloadUrl',
  'downloadExpiresAt'
] as const

// A patch changes the title, or (`$confirmUpload: true`, S3 mode) asks the server to confirm an upload made
// straight to the bucket.
export const attachmentPatchSchema = Type.Object(
  {
    title: Type.Optional(Title()),
    $confirmUpload: Type.Optional(Type.Literal(true))
  },
  { additionalProperties: false }
)

export const attachmentQuerySchema = querySyntax(
  Type.Object(
    {
      id: IdString(),
      organization: IdString(),
      patient: IdString(),
      record: IdString(),
      encounter: IdString(),
      status: Type.Union(attachmentStatuses.map((status) => Type.Literal(status))),
      contentType: Type.String(),
      createdAt: Type.Number(),
      updatedAt: Type.Number()
    },
    { additionalProperties: false }
  )
)

/** Fields that never leave the server. */
export const attachmentInternals = ['storageKey'] as const

/** What clients see of an attachment: everything but its storage key. */
export const attachmentExternalResolver = resolve<Stored<Attachment>, ResolverContext>(
  hidden(attachmentInternals)
)
