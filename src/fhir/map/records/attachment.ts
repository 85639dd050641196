// attachment (a record listing files by URL) → DocumentReference: one content entry per URL, each titled with the
// record's title; the subtype is the document type's text.
import type { RecordMapping } from '../record'
import { getPath, isObj, type Obj } from '../common'

/** The content entry of a record without URLs (FHIR requires one); import ignores it. */
const NO_FILE = 'no-file'

export const attachment: RecordMapping = {
  type: 'attachment',
  resourceType: 'DocumentReference',
  patient: 'subject',
  encounter: 'context.encounter[]',
  provider: 'author[]',
  fields: [
    { field: 'subtype', path: 'type.text', kind: 'string' },
    { field: 'description', path: 'description', kind: 'string' }
  ],
  fixed: (record) => ({
    status: 'current',
    date: typeof record.createdAt === 'number' ? new Date(record.createdAt).toISOString() : undefined
  }),
  custom: {
    fields: ['attachmentURLs', 'title'],
    describe: {
      attachmentURLs: 'DocumentReference.content[i].attachment.url (one entry per URL, in order)',
      title: 'DocumentReference.content[i].attachment.title (every entry)'
    },
    build(record, primary) {
      const title = typeof record.title === 'string' && record.title !== '' ? record.title : undefined
      const urls = Array.isArray(record.attachmentURLs)
        ? record.attachmentURLs.filter((url): url is string => typeof url === 'string' && url !== '')
        : []
      primary.content =
        urls.length > 0
          ? urls.map((url) => ({ attachment: { url, title } }))
          : [
              {
                id: NO_FILE,
                attachment: { title, contentType: title ? undefined : 'application/octet-stream' }
              }
            ]
      return []
    },
    parse(primary, _related, body) {
      const content = Array.isArray(primary.content) ? primary.content.filter(isObj) : []
      const attachments = content.map((entry) => (isObj(entry.attachment) ? entry.attachment : {}) as Obj)
      const urls = attachments.map((a) => a.url).filter((url): url is string => typeof url === 'string')
      if (urls.length > 0) body.attachmentURLs = urls
      const title = getPath(primary, 'content[].attachment.title')
      if (typeof title === 'string') body.title = title
    }
  }
}
