// A pass-through that measures bytes on their way to storage: counts them (more than the limit stops the stream
// with a 413 before the next chunk is written), hashes them (SHA-256) and keeps the first HEAD_BYTES for the type
// sniffer, and whether all of them are UTF-8 text without NULs (plain text and CSV have no magic number: the whole
// file is checked, not only its head; a binary file stops the check at its first invalid byte). Nothing else is
// held: memory stays flat whatever the size.
import { createHash } from 'node:crypto'
import { Transform, type TransformCallback } from 'node:stream'
import { TextDecoder } from 'node:util'
import { PayloadTooLarge } from '../errors'

/** Enough for every magic number the sniffer knows (file-type reads at most 4100 bytes). */
export const HEAD_BYTES = 4100

export class Meter extends Transform {
  size = 0
  private readonly hash = createHash('sha256')
  private readonly heads: Buffer[] = []
  private headLength = 0
  private decoder: TextDecoder | null = new TextDecoder('utf-8', { fatal: true })
  /** All bytes so far are UTF-8 text without NULs. */
  text = true

  constructor(private readonly maxBytes: number) {
    super()
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.size += chunk.length
    if (this.size > this.maxBytes)
      return done(new PayloadTooLarge(`The file is larger than ${this.maxBytes} bytes`, 'size'))
    this.hash.update(chunk)
    if (this.headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headLength)
      this.heads.push(Buffer.from(part))
      this.headLength += part.length
    }
    if (this.decoder) {
      try {
        if (chunk.includes(0)) throw new Error('NUL')
        this.decoder.decode(chunk, { stream: true })
      } catch {
        this.text = false
        this.decoder = null
      }
    }
    done(null, chunk)
  }

  override _flush(done: TransformCallback) {
    if (this.decoder) {
      try {
        this.decoder.decode()
      } catch {
        this.text = false
      }
      this.decoder = null
    }
    done()
  }

  /** The SHA-256 of everything that passed (call once, after the end). */
  digest() {
    return this.hash.digest('hex')
  }

  head() {
    return Buffer.concat(this.heads)
  }
}
