// The routes that are plain HTTP rather than Feathers services, for the OpenAPI document: the bytes of
// attachments (src/services/attachments/content-routes.ts). Their errors carry the API's error shape.
type Json = Record<string, unknown>

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }
})

const token = {
  name: 'token',
  in: 'query',
  required: true,
  schema: { type: 'string' },
  description:
    'The signed token of the URL the service answered (`uploadUrl` / `downloadUrl`): use the URL as given'
}
const id = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'The attachment id'
}

const uploaded = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { const: 'ready' },
    filename: { type: 'string' },
    contentType: { type: 'string' },
    size: { type: 'integer' },
    sha256: { type: 'string' },
    readyAt: { type: 'number' }
  }
}

const bytesChecks = {
  400: error(
    'Fewer bytes than the declared `size`, or a SHA-256 other than the declared one (`errors` names the field)'
  ),
  413: error(
    'More bytes than declared, or more than ATTACHMENT_MAX_BYTES (a Content-Length over it is refused before any byte is read)'
  ),
  415: error('The type sniffed from the bytes is not allowed, or is not the declared `contentType`')
}

/** The paths; `attachmentSchema`: the attachments result's component when the service documents one. */
export const plainRoutePaths = (attachmentSchema: string): Json => ({
  '/attachments/{id}/content': {
    put: {
      tags: ['attachments'],
      operationId: 'attachments.uploadContent',
      summary:
        'Upload the bytes of a pending attachment to its signed upload URL (no bearer: the token is the authority)',
      security: [{}],
      parameters: [id, token],
      requestBody: {
        required: true,
        description: 'The file, exactly `size` bytes (streamed; send Content-Length)',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }
      },
      responses: {
        200: {
          description: 'The attachment, now ready',
          content: { 'application/json': { schema: uploaded } }
        },
        ...bytesChecks,
        403: error('The token is altered, for another attachment, or expired'),
        404: error('The attachment is gone (e.g. removed after its upload URL expired)'),
        409: error('The bytes were already uploaded: an upload URL works once')
      }
    },
    get: {
      tags: ['attachments'],
      operationId: 'attachments.downloadContent',
      summary:
        'Download the bytes with a signed download URL (for the account it was given to, while that account may read the attachment); every download is an audit event',
      security: [{}],
      parameters: [
        id,
        token,
        {
          name: 'Range',
          in: 'header',
          required: false,
          schema: { type: 'string', example: 'bytes=0-1023' },
          description: 'One byte range (answered 206)'
        }
      ],
      responses: {
        200: {
          description:
            'The bytes, with the stored Content-Type, Content-Disposition: attachment (filename and filename*), X-Content-Type-Options: nosniff, Content-Length, Accept-Ranges: bytes',
          content: { '*/*': { schema: { type: 'string', format: 'binary' } } }
        },
        206: {
          description: 'The requested range, with Content-Range',
          content: { '*/*': { schema: { type: 'string', format: 'binary' } } }
        },
        403: error('The token is altered, for another attachment or purpose, or expired'),
        404: error(
          'No such attachment, not uploaded yet, or the account may no longer read it (share revoked)'
        ),
        416: error('The range is outside the file')
      }
    }
  },
  '/attachments/upload': {
    post: {
      tags: ['attachments'],
      operationId: 'attachments.uploadMultipart',
      summary:
        'Create an attachment and upload its bytes in one call: multipart/form-data with the create fields first, then the `file` part (streamed)',
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: {
                record: { type: 'string' },
                encounter: { type: 'string' },
                filename: { type: 'string', description: 'Default: the file part’s filename' },
                contentType: { type: 'string', description: 'Default: the file part’s Content-Type' },
                size: { type: 'integer' },
                sha256: { type: 'string' },
                title: { type: 'string' },
                file: { type: 'string', format: 'binary' }
              },
              required: ['size', 'file']
            },
            encoding: { file: { contentType: '*/*' } }
          }
        }
      },
      responses: {
        201: {
          description: 'The ready attachment, as GET /attachments/{id} answers it (with its downloadUrl)',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${attachmentSchema}` } } }
        },
        ...bytesChecks,
        401: error('Not authenticated'),
        402: error('The facility’s storage would pass its subscription’s storageMax'),
        403: error('The caller may not add files to this record or encounter')
      }
    }
  }
})
