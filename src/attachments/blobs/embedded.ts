// The embedded store: attachment bytes as files under DATA_DIR/attachments/, named by their content hash
// (`<first two hex digits>/<sha256>`), so two uploads of the same bytes share one file. A file is written to the
// temp folder while hashed, fsynced, then renamed to its hash path (and the folder fsynced): a kept path always
// holds the whole file. The key of a file is its hash; whether any attachment still references it is decided by
// src/attachments/blob-refs.ts, under a lock per key shared with the uploads that keep it.
import fs from 'node:fs'
import path from 'node:path'
import { NotFound } from '@feathersjs/errors'
import type { BlobRead, Blobs, StagedBlob } from '../../deps'
import { Staging, syncPath } from './staging'

const KEY = /^[0-9a-f]{64}$/

export class EmbeddedBlobs implements Blobs {
  readonly kind = 'embedded' as const
  private readonly staging: Staging

  constructor(private readonly root: string) {
    this.staging = new Staging(root)
  }

  private pathOf(key: string) {
    if (!KEY.test(key)) throw new NotFound('No such attachment content')
    return path.join(this.root, key.slice(0, 2), key)
  }

  async stage(source: NodeJS.ReadableStream, options: { maxBytes: number }): Promise<StagedBlob> {
    const staged = await this.staging.write(source, options.maxBytes)
    const target = this.pathOf(staged.sha256)
    return {
      key: staged.sha256,
      size: staged.size,
      sha256: staged.sha256,
      head: staged.head,
      text: staged.text,
      commit: async () => {
        await fs.promises.mkdir(path.dirname(target), { recursive: true })
        // Equal bytes already kept: the temp copy is not needed (rename would replace it with the same bytes).
        const existing = await fs.promises.stat(target).catch(() => null)
        if (existing?.size === staged.size) return this.staging.discard(staged.file)
        await fs.promises.rename(staged.file, target)
        await syncPath(path.dirname(target))
      },
      discard: () => this.staging.discard(staged.file)
    }
  }

  async read(key: string, range?: { start: number; end: number }): Promise<BlobRead> {
    const file = this.pathOf(key)
    const stat = await fs.promises.stat(file).catch(() => null)
    if (!stat) throw new NotFound('The attachment content is missing')
    return { stream: fs.createReadStream(file, range ?? {}), size: stat.size }
  }

  async size(key: string) {
    const stat = await fs.promises.stat(this.pathOf(key)).catch(() => null)
    return stat ? stat.size : null
  }

  async remove(key: string) {
    await fs.promises.rm(this.pathOf(key), { force: true })
  }

  sweep() {
    return this.staging.sweep()
  }

  async *keys() {
    const folders = await fs.promises.readdir(this.root).catch(() => [] as string[])
    for (const folder of folders) {
      if (!/^[0-9a-f]{2}$/.test(folder)) continue
      const names = await fs.promises.readdir(path.join(this.root, folder)).catch(() => [] as string[])
      for (const name of names) if (KEY.test(name) && name.startsWith(folder)) yield name
    }
  }

  async close() {}
}
