// The bytes of attachments over plain HTTP (the metadata is the /attachments service):
//   PUT  /attachments/:id/content?token=…   the upload URL of a pending attachment (no sign-in: the signed token is
//                                           the authority); streamed through the checks of src/attachments/upload.ts;
//                                           answers the ready attachment. Expired or altered token: 403; second
//                                           PUT: 409; a Content-Length over the limit is refused before any byte.
//   GET  /attachments/:id/content?token=…   the download URL (signed for one account): checks the account may still
//                                           read the attachment (404 when not, as for a stranger), records the
//                                           read in the audit trail, streams the bytes (single `Range` → 206).
//   POST /attachments/upload                multipart/form-data, bearer auth: the create fields, then `file` (last);
//                                           creates the attachment through the service (every rule of a create),
//                                           then the same upload path; answers the ready attachment (201).
// Registered before the JSON-only check and the body parser: the bodies are streamed here, never buffered whole.
// S3 mode: downloads also stream through here (not a redirect to a presigned GET), so the revocation check, the
// audit event and the response headers are the same on both backends and a bucket URL is never handed out.
import { PassThrough } from 'node:stream'
import busboy from 'busboy'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Params } from '@feathersjs/feathers'
import { BadRequest, NotFound } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import { depsSlot, type Deps } from '../../deps'
import type { Stored } from '../../store'
import { orNull } from '../../billing/store-calls'
import { auditLog } from '../../audit/log'
import { callCircumstances } from '../../audit/entries'
import type { AuditEntry } from '../../audit/chain'
import { readContentToken } from '../../attachments/links'
import { checkDeclaredSize, receiveUpload } from '../../attachments/upload'
import { discardUpload, releaseBlobs } from '../../attachments/blob-refs'
import { mayReadAttachment } from '../../attachments/access'
import { PayloadTooLarge, RangeNotSatisfiable, UnsupportedMediaType } from '../../attachments/errors'
import type { Attachment } from './attachments.schema'
import { attachmentPath } from './attachments.shared'

const CONTENT = /^\/attachments\/([^/]+)\/content$/
export const MULTIPART_UPLOAD_PATH = '/attachments/upload'

// What the answer to an upload shows of the attachment (never its storage key or grants).
const answerOf = (att: Stored<Attachment>) => ({
  id: att.id,
  status: att.status,
  filename: att.filename,
  contentType: att.contentType,
  size: att.size,
  sha256: att.sha256,
  readyAt: att.readyAt
})

const contentLengthOf = (ctx: FeathersKoaContext): number | undefined => {
  const given = ctx.get('content-length')
  if (!given) return undefined
  const length = Number(given)
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined
}

// A refusal sent before the body was read: the connection is closed after it, so the unread bytes are not drained.
const refuseUnread = (ctx: FeathersKoaContext) => ctx.set('Connection', 'close')

const upload = async (app: Application, deps: Deps, ctx: FeathersKoaContext, id: string) => {
  ctx.set('Cache-Control', 'no-store')
  try {
    readContentToken(deps, id, 'upload', ctx.query.token)
    const length = contentLengthOf(ctx)
    if (length !== undefined) checkDeclaredSize(deps, length)
    const att = await orNull(deps.stores.attachments._get(id))
    if (!att) throw new NotFound(`No attachment ${id}`)
    if (att.status === 'pending') checkDeclaredSize(deps, att.size, length)
    // The body is read through a pass-through: a check failing midway then ends this request with its answer,
    // instead of destroying the connection under it.
    const body = new PassThrough()
    ctx.req.pipe(body)
    let ready: Stored<Attachment>
    try {
      ready = await receiveUpload(deps, att, body)
    } finally {
      ctx.req.unpipe(body)
    }
    ctx.status = 200
    ctx.body = answerOf(ready)
  } catch (error) {
    if (!ctx.req.readableEnded) refuseUnread(ctx)
    throw error
  }
}

// RFC 6266 / 5987: the UTF-8 name (percent-encoded) and an ASCII fallback; control characters, path separators,
// quotes and the like never reach the header.
const unsafeInName = (c: string) =>
  c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f)

export const contentDisposition = (filename: string) => {
  const clean =
    [...filename.normalize('NFC')]
      .map((c) => (unsafeInName(c) ? '_' : c))
      .join('')
      .replace(/[/\\"<>|:*?]/g, '_')
      .replace(/^[.\s]+/, '')
      .trim()
      .slice(0, 200) || 'attachment'
  const ascii = clean.replace(/[^\x20-\x7e]/g, '_').replace(/[%;]/g, '_')
  const encoded = encodeURIComponent(clean).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
  )
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

/** One `bytes=` range of a `size`-byte file: null for none (or several: the whole file is sent), 416 when it
 *  cannot be satisfied. */
export const parseRange = (
  header: string | undefined,
  size: number
): { start: number; end: number } | null => {
  if (!header) return null
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match) {
    if (/^bytes=.*,/.test(header.trim())) return null
    throw new RangeNotSatisfiable('Range must be one `bytes=start-end` range')
  }
  const [, from, to] = match
  let start: number
  let end: number
  if (from === '') {
    if (to === '') throw new RangeNotSatisfiable('Range must be one `bytes=start-end` range')
    const suffix = Number(to)
    if (suffix === 0) throw new RangeNotSatisfiable(`The range is empty (the file is ${size} bytes)`)
    start = Math.max(0, size - suffix)
    end = size - 1
  } else {
    start = Number(from)
    end = to === '' ? size - 1 : Math.min(Number(to), size - 1)
  }
  if (start >= size || start > end)
    throw new RangeNotSatisfiable(`The range is outside the file (${size} bytes)`)
  return { start, end }
}

const recordRead = async (
  app: Application,
  ctx: FeathersKoaContext,
  actor: string,
  att: Stored<Attachment>,
  outcome: 'allowed' | 'denied',
  status: number
) => {
  const log = auditLog(app)
  if (!log?.settings.enabled) return
  const entry: AuditEntry = {
    at: log.now(),
    actor,
    action: 'read',
    service: attachmentPath,
    ids: [att.id],
    patient: att.patient,
    facility: att.organization,
    outcome,
    status,
    ...callCircumstances({ ...ctx.feathers, provider: 'rest' })
  }
  await log.append([entry])
}

const download = async (app: Application, deps: Deps, ctx: FeathersKoaContext, id: string) => {
  const token = readContentToken(deps, id, 'download', ctx.query.token)
  await sendAttachmentBytes(app, deps, ctx, token.account as string, id)
}

/**
 * Answers the bytes of attachment `id` to `account` (the signed download URL's account, or the bearer of a FHIR
 * `Binary` read): decided on the record or encounter as it stands, recorded in the audit trail before a byte is
 * sent, a single `Range` → 206. 404 when it is gone, not ready, or no longer readable by the account.
 */
export const sendAttachmentBytes = async (
  app: Application,
  deps: Deps,
  ctx: FeathersKoaContext,
  account: string,
  id: string
) => {
  ctx.set('Cache-Control', 'private, no-store')
  const att = await orNull(deps.stores.attachments._get(id))
  if (!att || att.status !== 'ready' || !att.storageKey) throw new NotFound(`No attachment ${id}`)
  // Decided now, on the record or encounter as it stands: a link given before a share was revoked stops here.
  if (!(await mayReadAttachment(deps, account, att))) {
    await recordRead(app, ctx, account, att, 'denied', 404)
    throw new NotFound(`No attachment ${id}`)
  }
  const range = parseRange(ctx.get('range') || undefined, att.size)
  // Recorded before a byte is sent: the reader may keep what arrived even when the transfer breaks.
  await recordRead(app, ctx, account, att, 'allowed', range ? 206 : 200)
  const { stream, size } = await deps.blobs.read(att.storageKey, range ?? undefined)
  ctx.set('Content-Type', att.contentType)
  ctx.set('Content-Disposition', contentDisposition(att.filename))
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.set('Accept-Ranges', 'bytes')
  if (range) {
    ctx.status = 206
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
  } else ctx.status = 200
  ctx.body = stream
  ctx.length = range ? range.end - range.start + 1 : size
}

// The create fields a multipart upload may carry (others reach the service's create, whose schema names them).
const NUMBER_FIELDS = new Set(['size'])
const MULTIPART_OVERHEAD = 64 * 1024

const multipartUpload = async (app: Application, deps: Deps, ctx: FeathersKoaContext) => {
  ctx.set('Cache-Control', 'no-store')
  const type = ctx.get('content-type')
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    refuseUnread(ctx)
    throw new UnsupportedMediaType('Send the upload as multipart/form-data (the fields, then `file`)')
  }
  const max = deps.settings.get('attachments').maxBytes
  const length = contentLengthOf(ctx)
  if (length !== undefined && length > max + MULTIPART_OVERHEAD) {
    refuseUnread(ctx)
    throw new PayloadTooLarge(`Attachments are at most ${max} bytes`, 'size')
  }
  const params: Params = { ...ctx.feathers, provider: 'rest', headers: ctx.headers, query: {} }
  const service = app.service(attachmentPath)
  const fields: Record<string, unknown> = {}
  let created: string | undefined
  let work: Promise<Stored<Attachment>> | undefined
  const parser = busboy({
    headers: ctx.req.headers,
    limits: { files: 1, fields: 20, fieldSize: 4096, parts: 21, headerPairs: 50 }
  })
  const outcome = new Promise<Stored<Attachment>>((resolve, reject) => {
    parser.on('field', (name, value, info) => {
      if (work) return reject(new BadRequest(`The field ${name} came after the file: send every field first`))
      if (info.valueTruncated) return reject(new BadRequest(`The field ${name} is too long`))
      fields[name] = NUMBER_FIELDS.has(name) && /^\d+$/.test(value) ? Number(value) : value
    })
    parser.on('file', (name, file, info) => {
      if (work || name !== 'file') {
        file.resume()
        return reject(new BadRequest('Send one file, in the part named `file`, after the fields'))
      }
      if (fields.filename === undefined && info.filename) fields.filename = info.filename
      if (fields.contentType === undefined && info.mimeType) fields.contentType = info.mimeType
      if (fields.size === undefined) {
        file.resume()
        return reject(
          new BadRequest('The size field must come before the file (the fields first, then `file`)', {
            errors: [{ field: 'size', message: 'is required before the file part' }]
          })
        )
      }
      work = (async () => {
        const answer = (await service.create(fields as never, params)) as unknown as { id?: unknown }
        if (typeof answer?.id !== 'string') throw new Error('The attachment was not created')
        created = answer.id
        const att = await deps.stores.attachments._get(created)
        return receiveUpload(deps, att, file)
      })()
      work.then(resolve, (error) => {
        file.resume()
        reject(error)
      })
    })
    parser.on('partsLimit', () => reject(new BadRequest('Too many parts: the fields, then one `file`')))
    parser.on('filesLimit', () => reject(new BadRequest('Send one file only')))
    parser.on('fieldsLimit', () => reject(new BadRequest('Too many fields')))
    parser.on('error', (error) =>
      reject(new BadRequest(`The multipart body is malformed: ${(error as Error).message}`))
    )
    parser.on('close', () => {
      if (!work)
        reject(
          new BadRequest('The upload has no `file` part', {
            errors: [{ field: 'file', message: 'is required' }]
          })
        )
    })
  })
  ctx.req.pipe(parser)
  try {
    const ready = await outcome
    ctx.status = 201
    ctx.body = await service.get(ready.id, params)
  } catch (error) {
    ctx.req.unpipe(parser)
    // Ends the file part being read (its staging stops and its temp file goes) and what comes after it.
    parser.destroy()
    if (!ctx.req.readableEnded) refuseUnread(ctx)
    await work?.catch(() => undefined)
    // A failed call leaves nothing behind: the attachment it created goes too (with its bytes, had a late
    // refusal, such as a field after the file, come after they were kept).
    if (created) {
      const removed = await orNull(deps.stores.attachments._remove(created))
      if (removed) {
        await deps.announce(attachmentPath, 'removed', removed)
        await discardUpload(deps, removed)
        await releaseBlobs(deps, [removed.storageKey])
      }
    }
    throw error
  }
}

export const attachmentContent =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (ctx.path === MULTIPART_UPLOAD_PATH && ctx.method === 'POST')
      return multipartUpload(app, depsSlot.require(app), ctx)
    const match = CONTENT.exec(ctx.path)
    if (!match) return next()
    let id: string
    try {
      id = decodeURIComponent(match[1])
    } catch {
      throw new NotFound(`Path ${ctx.path} not found`)
    }
    const deps = depsSlot.require(app)
    if (ctx.method === 'PUT') return upload(app, deps, ctx, id)
    if (ctx.method === 'GET') return download(app, deps, ctx, id)
    return next()
  }
