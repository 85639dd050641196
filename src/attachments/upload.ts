// An upload's bytes become an attachment's: measured, hashed and sniffed on their way to storage (never held whole
// in memory), checked against what was declared at create — size exactly (more: 413, fewer: 400), the SHA-256
// when one was declared (400), the real type against the allow-list and the declared type (415) — then kept, and
// the attachment turned from pending to ready by a conditional patch (only a pending one: a second upload, or one
// racing it, gets a 409 and its bytes are dropped). Bytes that fail a check are never kept.
// S3 mode: the client PUT the bytes straight to the bucket's staging object; confirmUpload copies it to the kept
// key (which no URL can write), reads that copy once through the same checks, and marks the attachment ready.
import { BadRequest, Conflict } from '@feathersjs/errors'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Deps, StagedBlob } from '../deps'
import type { Stored } from '../store'
import type { Attachment } from '../services/attachments/attachments.schema'
import { orNull } from '../billing/store-calls'
import { Meter } from './blobs/meter'
import { PayloadTooLarge } from './errors'
import { checkType } from './sniff'
import { bytesLock, releaseBlobs } from './blob-refs'
import { s3KeyOf, uploadKeyOf } from './links'

export type UploadDeps = Pick<Deps, 'settings' | 'clock' | 'stores' | 'blobs' | 'locks' | 'announce'>

type Measured = Pick<StagedBlob, 'size' | 'sha256' | 'head' | 'text'>

const alreadyUploaded = () =>
  new Conflict('The file of this attachment was already uploaded: an upload link works once', {
    errors: [{ field: 'status', message: 'is already ready' }]
  })

/** The size limit of an attachment: its declared size, which may not exceed ATTACHMENT_MAX_BYTES. */
export const checkDeclaredSize = (deps: Pick<Deps, 'settings'>, declared: number, given?: number) => {
  const max = deps.settings.get('attachments').maxBytes
  if (declared > max)
    throw new PayloadTooLarge(`Attachments are at most ${max} bytes (declared ${declared})`, 'size')
  if (given === undefined) return
  if (given > declared)
    throw new PayloadTooLarge(`The upload is ${given} bytes, more than the ${declared} declared`, 'size')
  if (given < declared)
    throw new BadRequest(`The upload is ${given} bytes, fewer than the ${declared} declared`, {
      errors: [{ field: 'size', message: `must be ${declared} bytes as declared` }]
    })
}

/** Checks measured bytes against the attachment's declarations; answers nothing, throws the 4xx. */
const checkBytes = async (deps: Pick<Deps, 'settings'>, att: Stored<Attachment>, bytes: Measured) => {
  checkDeclaredSize(deps, att.size, bytes.size)
  if (att.sha256 && att.sha256 !== bytes.sha256)
    throw new BadRequest('The file does not match the declared SHA-256', {
      errors: [{ field: 'sha256', message: `the bytes hash to ${bytes.sha256}` }]
    })
  await checkType(bytes, att.contentType, deps.settings.get('attachments').types)
}

/** pending → ready, only if still pending (the store decides: one upload wins); null when it was not. */
const markReady = async (deps: UploadDeps, att: Stored<Attachment>, bytes: Measured, storageKey: string) => {
  const now = deps.clock.now()
  return orNull(
    deps.stores.attachments._patch(
      att.id,
      { status: 'ready', size: bytes.size, sha256: bytes.sha256, storageKey, readyAt: now, updatedAt: now },
      { query: { status: 'pending' } }
    )
  )
}

/**
 * Takes the bytes of pending attachment `att` from `source` (streamed), checks and keeps them, and answers the
 * attachment as ready (announced as `patched`). 409 when it is no longer pending; the checks' 4xx otherwise.
 */
export const receiveUpload = async (
  deps: UploadDeps,
  att: Stored<Attachment>,
  source: NodeJS.ReadableStream
): Promise<Stored<Attachment>> => {
  if (att.status !== 'pending') throw alreadyUploaded()
  checkDeclaredSize(deps, att.size)
  const staged = await deps.blobs.stage(source, { maxBytes: att.size, key: s3KeyOf(att) })
  let ready: Stored<Attachment> | null = null
  try {
    await checkBytes(deps, att, staged)
    ready = await deps.locks.exclusive(bytesLock(staged.key), async () => {
      await staged.commit()
      return markReady(deps, att, staged, staged.key)
    })
  } finally {
    await staged.discard()
  }
  if (!ready) {
    // Another upload won (or the attachment was removed meanwhile): these bytes are kept only if referenced.
    await releaseBlobs(deps, [staged.key])
    throw alreadyUploaded()
  }
  await deps.announce('attachments', 'patched', ready)
  return ready
}

/** Reads stored bytes once through the meter (hash, head, text), discarding them. */
const measureStored = async (deps: Pick<Deps, 'blobs'>, key: string, maxBytes: number): Promise<Measured> => {
  const { stream } = await deps.blobs.read(key)
  const meter = new Meter(maxBytes)
  await pipeline(stream, meter, new Writable({ write: (_chunk, _encoding, done) => done() }))
  return { size: meter.size, sha256: meter.digest(), head: meter.head(), text: meter.text }
}

/**
 * Confirms an upload made straight to the bucket (S3 mode): the staging object's size (HEAD) first, then a copy to
 * the kept key, read once through the same checks as an upload through the server; a failed check removes both
 * objects and answers its 4xx. An attachment already ready is answered as it is; on the embedded store a pending
 * one is a 409 (its bytes go to the upload URL, which marks it ready itself).
 */
export const confirmUpload = async (
  deps: UploadDeps,
  att: Stored<Attachment>
): Promise<Stored<Attachment>> => {
  if (att.status === 'ready') return att
  if (deps.blobs.kind !== 's3' || !deps.blobs.copy)
    throw new Conflict('The file was not uploaded yet: PUT it to the upload URL', {
      errors: [{ field: 'status', message: 'is pending' }]
    })
  const copy = deps.blobs.copy.bind(deps.blobs)
  const staging = uploadKeyOf(att)
  const kept = s3KeyOf(att)
  return deps.locks.exclusive(bytesLock(kept), async () => {
    const current = await orNull(deps.stores.attachments._get(att.id))
    if (!current) throw new Conflict('The attachment was removed')
    if (current.status === 'ready') return current
    const size = await deps.blobs.size(staging)
    if (size === null)
      throw new Conflict('The file was not uploaded yet: PUT it to the upload URL first', {
        errors: [{ field: 'status', message: 'is pending' }]
      })
    try {
      checkDeclaredSize(deps, current.size, size)
    } catch (error) {
      await deps.blobs.remove(staging)
      throw error
    }
    await copy(staging, kept)
    await deps.blobs.remove(staging)
    let ready: Stored<Attachment> | null = null
    try {
      const bytes = await measureStored(deps, kept, current.size)
      await checkBytes(deps, current, bytes)
      ready = await markReady(deps, current, bytes, kept)
    } finally {
      if (!ready) await deps.blobs.remove(kept)
    }
    if (!ready) throw alreadyUploaded()
    await deps.announce('attachments', 'patched', ready)
    return ready
  })
}
