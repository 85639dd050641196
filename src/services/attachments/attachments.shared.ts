// Path and methods of the attachments service, shared with the typed client (the bytes go over plain HTTP, to the
// signed URLs the answers carry).
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { ClientParams } from '../client-params'
import type { Static } from '@feathersjs/typebox'
import type {
  Attachment as AttachmentDoc,
  AttachmentAnswerFields,
  attachmentInternals,
  attachmentDataSchema,
  attachmentPatchSchema,
  attachmentQuerySchema
} from './attachments.schema'
import type { External } from '../../schema/resolvers'

export const attachmentPath = 'attachments'
export const attachmentMethods = ['find', 'get', 'create', 'patch', 'remove'] as const

/** An attachment as clients receive it: its metadata, and the signed URLs the answer carries. */
export type Attachment = External<AttachmentDoc, typeof attachmentInternals> & AttachmentAnswerFields
export type AttachmentData = Static<typeof attachmentDataSchema>
export type AttachmentPatch = Static<typeof attachmentPatchSchema>
/** The find query; `$analytics: 'storage'` answers the storage used per facility instead of a page. */
export type AttachmentQuery = Static<typeof attachmentQuerySchema> & { $analytics?: 'storage' }

/** What every medical record answer lists of each of its ready files (`attachments`). */
export interface AttachmentSummary {
  id: string
  filename: string
  contentType: string
  size: number
}

/** `GET /attachments?$analytics=storage`: per facility the caller manages, the bytes and files stored. */
export interface AttachmentStorageUsage {
  organization: string
  bytes: number
  count: number
}

/** What a client may call on attachments: its methods, typed by the schemas (data in, result out). */
export type AttachmentClientService = Pick<
  ClientService<
    Attachment,
    AttachmentData,
    AttachmentPatch,
    Paginated<Attachment>,
    ClientParams<AttachmentQuery>
  >,
  (typeof attachmentMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [attachmentPath]: AttachmentClientService
  }
}
