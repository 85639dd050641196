// Bytes are removed only when no attachment references them any more. On the embedded store equal uploads share
// one content-hash file, so "is this key still referenced?" then "remove the file" must not interleave with an
// upload keeping the same bytes (its commit renames the file into place, then marks its attachment ready): both
// run under the same lock per key (`bytesLock`), here and across instances. Call releaseBlobs AFTER the attachments
// that referenced the keys are removed.
import type { Deps } from '../deps'
import type { Stored } from '../store'
import type { Attachment } from '../services/attachments/attachments.schema'
import { uploadKeyOf } from './links'

/** The lock held while kept bytes are committed or released. */
export const bytesLock = (key: string) => `attachment-bytes:${key}`

type ReleaseDeps = Pick<Deps, 'stores' | 'blobs' | 'locks'>

/** Removes the bytes of each key no attachment references any more. */
export const releaseBlobs = async (deps: ReleaseDeps, storageKeys: readonly (string | undefined)[]) => {
  for (const key of new Set(storageKeys)) {
    if (!key) continue
    await deps.locks.exclusive(bytesLock(key), async () => {
      const holders = await deps.stores.attachments._find({
        query: { storageKey: key, $limit: 1 },
        paginate: false
      })
      if (holders.length === 0) await deps.blobs.remove(key)
    })
  }
}

/** Removes what a presigned PUT of a removed pending attachment may have left in the bucket (S3 mode only). */
export const discardUpload = async (
  deps: Pick<Deps, 'blobs'>,
  att: Pick<Stored<Attachment>, 'id' | 'status'>
) => {
  if (deps.blobs.kind === 's3' && att.status === 'pending') await deps.blobs.remove(uploadKeyOf(att))
}

/**
 * Removes every kept key no attachment references: bytes a crash left between a file's removal and the release of
 * its bytes (a removed record's files must not outlive it). Each key is decided under its lock, as a release is, so
 * an upload keeping the same bytes meanwhile keeps them. Answers how many it removed; run at start-up.
 */
export const sweepUnreferencedBlobs = async (deps: ReleaseDeps): Promise<number> => {
  let removed = 0
  for await (const key of deps.blobs.keys()) {
    const gone = await deps.locks.exclusive(bytesLock(key), async () => {
      const holders = await deps.stores.attachments._find({
        query: { storageKey: key, $limit: 1 },
        paginate: false
      })
      if (holders.length > 0) return false
      await deps.blobs.remove(key)
      return true
    })
    if (gone) removed++
  }
  return removed
}
