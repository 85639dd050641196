// The real type of uploaded bytes — the one file that imports `file-type` — checked against the allow-list
// (`attachments.types`) and against the type the uploader declared. Binary types are recognized by their magic
// numbers in the first bytes. Plain text and CSV have none: bytes that are entirely UTF-8 text without NULs count
// as text (declared `text/plain` or `text/csv`), unless they look like markup (HTML, SVG, XML), which a browser
// could run as a page: those are refused whatever is declared.
import { fileTypeFromBuffer } from 'file-type'
import { UnsupportedMediaType } from './errors'

const TEXT_TYPES = new Set(['text/plain', 'text/csv'])

// Markup a browser would render: a tag or declaration at the start (after a byte-order mark and white space).
const MARKUP =
  /^(?:\uFEFF)?\s*<(?:!doctype|\?xml|!--|html|head|body|script|svg|iframe|object|embed|meta|[a-z][a-z0-9-]*[\s>/])/i

/** A media type without parameters, lowercase: `Text/CSV; charset=utf-8` → `text/csv`. */
export const baseType = (contentType: string) => contentType.split(';')[0].trim().toLowerCase()

/** What the bytes are: a media type, `text` for UTF-8 text, or null when not recognized. */
export const sniff = async (head: Buffer, text: boolean): Promise<string | null> => {
  const found = await fileTypeFromBuffer(head)
  if (found) return found.mime
  if (!text) return null
  if (MARKUP.test(head.toString('utf8', 0, Math.min(head.length, 1024)))) return 'text/html'
  return 'text'
}

/**
 * Checks sniffed bytes against the allow-list and the declared type; 415 naming `contentType` when they do not
 * match. Answers the type to store (the declared one, normalized).
 */
export const checkType = async (
  bytes: { head: Buffer; text: boolean },
  declared: string,
  allowed: readonly string[]
): Promise<string> => {
  const want = baseType(declared)
  const allow = new Set(allowed.map(baseType))
  if (!allow.has(want))
    throw new UnsupportedMediaType(`Files of type ${want} are not accepted`, 'contentType')
  const real = await sniff(bytes.head, bytes.text)
  if (real === null)
    throw new UnsupportedMediaType(
      `The file's type could not be recognized (declared ${want})`,
      'contentType'
    )
  if (real === 'text') {
    if (!TEXT_TYPES.has(want))
      throw new UnsupportedMediaType(`The file is plain text, not ${want} as declared`, 'contentType')
    return want
  }
  if (!allow.has(real))
    throw new UnsupportedMediaType(`Files of type ${real} are not accepted`, 'contentType')
  if (real !== want)
    throw new UnsupportedMediaType(`The file is ${real}, not ${want} as declared`, 'contentType')
  return want
}
