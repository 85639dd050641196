// A file of the attachments service → DocumentReference whose content links to the bytes (a Binary URL by
// default, FhirContext.attachmentUrl otherwise). Its record, when it belongs to one, is referenced by identifier
// (the record's resource type depends on its record type). Import reads it back (attachmentFileFromFhir) but
// creates nothing: the bytes are not in the bundle.
import type { AttachmentFileData, AttachmentLike, FhirContext, FhirResource } from '../types'
import {
  CODE_SYSTEM_BASE,
  compact,
  decodeExtension,
  encodeExtension,
  fhirId,
  getPath,
  identifier,
  isObj,
  isoOf,
  metaOf,
  idOfReference,
  refTo
} from './common'

/** `meta.tag` of a file's DocumentReference (an `attachment` record's carries the record-type tag instead). */
export const FILE_TAG = { system: `${CODE_SYSTEM_BASE}/source`, code: 'attachment-file' }

export const isAttachmentFile = (resource: FhirResource) =>
  resource.resourceType === 'DocumentReference' &&
  (resource.meta?.tag ?? []).some((tag) => tag.system === FILE_TAG.system && tag.code === FILE_TAG.code)

export const attachmentFileToFhir = (file: AttachmentLike, ctx: FhirContext): FhirResource => {
  const url = ctx.attachmentUrl ? ctx.attachmentUrl(file.id) : `${ctx.systemBase}/Binary/${fhirId(file.id)}`
  return compact({
    resourceType: 'DocumentReference',
    id: fhirId(file.id),
    meta: { ...metaOf(file), tag: [FILE_TAG] },
    identifier: identifier(ctx, 'attachments', file.id),
    status: 'current',
    subject: refTo('Patient', file.patient),
    date: isoOf(file.createdAt),
    custodian: file.organization ? refTo('Organization', file.organization) : undefined,
    description: file.title || undefined,
    content: [
      {
        attachment: {
          contentType: file.contentType,
          url,
          size: Number.isSafeInteger(file.size) && file.size >= 0 ? file.size : undefined,
          title: file.filename || undefined,
          creation: isoOf(file.createdAt)
        }
      }
    ],
    context: {
      encounter: file.encounter ? [refTo('Encounter', file.encounter)] : undefined,
      related: file.record ? [{ identifier: identifier(ctx, 'medical-records', file.record)[0] }] : undefined
    },
    extension: encodeExtension('sha256', 'string', file.sha256 ?? undefined)
  })
}

export const attachmentFileFromFhir = (resource: FhirResource): AttachmentFileData => {
  const attachment = getPath(resource, 'content[].attachment')
  const a = isObj(attachment) ? attachment : {}
  return compact({
    record: idOfReference(getPath(resource, 'context.related[]')),
    encounter: idOfReference(getPath(resource, 'context.encounter[]')),
    patient: idOfReference(resource.subject) as string,
    organization: idOfReference(resource.custodian),
    filename: typeof a.title === 'string' ? a.title : undefined,
    contentType: typeof a.contentType === 'string' ? a.contentType : undefined,
    size: typeof a.size === 'number' ? a.size : undefined,
    sha256: decodeExtension('sha256', 'string', resource.extension) as string | undefined,
    title: typeof resource.description === 'string' ? resource.description : undefined,
    url: typeof a.url === 'string' ? a.url : undefined
  })
}
