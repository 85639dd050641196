// The signed URLs of attachment bytes. Both are on this server, `/attachments/<id>/content?token=…`:
// - the upload URL (PUT, no sign-in: the token is the authority) is valid until the attachment's
//   `uploadExpiresAt` and usable once (the attachment is then ready: a second PUT is a 409); in S3 mode it is the
//   bucket's presigned PUT of the attachment's staging object instead, confirmed afterwards (upload.ts);
// - the download URL (GET) is signed for one account and valid for `attachments.downloadTtlMs`; every use checks
//   again that this account may still read the attachment, so a revoked share stops it at once.
// A token is `<payload>.<signature>`: the payload (base64url JSON) names the attachment, the purpose, the account
// (downloads) and the expiry; the signature is an HMAC-SHA256 under a key derived from the auth secret for this use
// only (rotating the secret voids every URL).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { Forbidden } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import type { Attachment } from '../services/attachments/attachments.schema'

export const contentPath = (id: string) => `/attachments/${encodeURIComponent(id)}/content`

/** The S3 object a presigned PUT writes (a staging object: confirming copies it to the kept key). */
export const uploadKeyOf = (att: Pick<Attachment, 'id'>) => `uploads/${att.id}`
/** The S3 object an attachment's bytes are kept in. */
export const s3KeyOf = (att: Pick<Attachment, 'id' | 'organization'>) =>
  `attachments/${att.organization}/${att.id}`

type Purpose = 'upload' | 'download'

interface TokenPayload {
  /** The attachment. */
  i: string
  p: Purpose
  /** The account a download URL was given to. */
  a?: string
  /** Valid until (ms since the epoch, on the app's clock). */
  e: number
}

export interface ContentToken {
  attachment: string
  purpose: Purpose
  account?: string
  expiresAt: number
}

type LinkDeps = Pick<Deps, 'settings' | 'clock' | 'providers' | 'blobs'>

const keyOf = (deps: Pick<Deps, 'settings'>) => {
  const secret = deps.settings.get('authentication').secret
  if (typeof secret !== 'string' || !secret) throw new Error('The auth secret is not set')
  return createHmac('sha256', secret).update('attachments:content').digest()
}

const sign = (deps: Pick<Deps, 'settings'>, payload: string) =>
  createHmac('sha256', keyOf(deps)).update(payload).digest('base64url')

const tokenOf = (deps: Pick<Deps, 'settings'>, payload: TokenPayload) => {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${text}.${sign(deps, text)}`
}

const linkOf = (deps: LinkDeps, id: string, token: string) =>
  `${deps.providers.publicOrigin()}${contentPath(id)}?token=${encodeURIComponent(token)}`

/** The URL the bytes of a pending attachment are PUT to, and until when it works. */
export const uploadLink = async (
  deps: LinkDeps,
  att: Pick<Stored<Attachment>, 'id' | 'organization' | 'contentType' | 'size' | 'uploadExpiresAt'>
): Promise<{ url: string; expiresAt: number }> => {
  const expiresAt = att.uploadExpiresAt
  if (deps.blobs.presignPut) {
    const url = await deps.blobs.presignPut(uploadKeyOf(att), {
      contentType: att.contentType,
      size: att.size,
      expiresInMs: Math.max(1000, expiresAt - deps.clock.now())
    })
    return { url, expiresAt }
  }
  return { url: linkOf(deps, att.id, tokenOf(deps, { i: att.id, p: 'upload', e: expiresAt })), expiresAt }
}

/** The URL `account` downloads a ready attachment's bytes from, and until when it works. */
export const downloadLink = async (
  deps: LinkDeps,
  att: Pick<Stored<Attachment>, 'id'>,
  account: string
): Promise<{ url: string; expiresAt: number }> => {
  const expiresAt = deps.clock.now() + deps.settings.get('attachments').downloadTtlMs
  return {
    url: linkOf(deps, att.id, tokenOf(deps, { i: att.id, p: 'download', a: account, e: expiresAt })),
    expiresAt
  }
}

const refuse = (message: string) =>
  new Forbidden(message, { errors: [{ field: 'token', message: 'is not a valid attachment link' }] })

/** Checks a token for `purpose` on attachment `id`: 403 when it is malformed, altered, for another attachment or
 *  purpose, or expired. */
export const readContentToken = (
  deps: Pick<Deps, 'settings' | 'clock'>,
  id: string,
  purpose: Purpose,
  token: unknown
): ContentToken => {
  if (typeof token !== 'string' || token.length > 2000) throw refuse('The link has no valid token')
  const [payload, signature, ...rest] = token.split('.')
  if (!payload || !signature || rest.length) throw refuse('The link has no valid token')
  const expected = Buffer.from(sign(deps, payload))
  const given = Buffer.from(signature)
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw refuse('The link is not valid (altered or signed by another server)')
  let parsed: Partial<TokenPayload>
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    throw refuse('The link is not valid')
  }
  if (parsed.i !== id || parsed.p !== purpose || typeof parsed.e !== 'number')
    throw refuse(
      `The link is not ${purpose === 'upload' ? 'an upload' : 'a download'} link of this attachment`
    )
  if (purpose === 'download' && typeof parsed.a !== 'string') throw refuse('The link is not valid')
  if (parsed.e < deps.clock.now())
    throw new Forbidden(
      purpose === 'upload'
        ? 'The upload link has expired: create the attachment again'
        : 'The download link has expired: ask for the attachment again for a new link',
      { errors: [{ field: 'token', message: 'has expired' }] }
    )
  return { attachment: parsed.i, purpose, account: parsed.a, expiresAt: parsed.e }
}
