// Several instances (REDIS_URL): every instance has its own search index, so each learns the others' entry changes:
// an instance that wrote an entry sends a notice naming it (src/directory/entries.ts), and the others re-read it
// from the shared store into their index. Besides, a change made on another instance rebuilds the directory entries
// it alters here too, from the synced service event (src/cluster/events.ts). The writer already rebuilt them before
// answering; rebuilding again reads the source document as it is now, so when two instances rebuilt one entry from
// different versions at once, the last change's event leaves every entry at the newest version.
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { fromOtherInstance } from '../../cluster/events'
import { onNotice } from '../../cluster/notices'
import { ENTRY_NOTICE, messageOf, type Directory } from '../../directory/entries'
import { serviceByPath } from '../by-path'

export const rebuildOnRemoteChanges = (app: Application, deps: Deps, directory: Directory) => {
  if (!deps.settings.get('redis')) return
  onNotice(app, ENTRY_NOTICE, (payload: { key?: unknown }) => {
    if (typeof payload?.key !== 'string') return
    const key = payload.key
    directory
      .refreshEntry(key)
      .catch((error: unknown) =>
        deps.logger.error(`Directory entry ${key} could not be refreshed:`, messageOf(error))
      )
  })
  for (const path of directory.watchedPaths()) {
    const service = serviceByPath(app, path)
    for (const event of ['created', 'updated', 'patched', 'removed']) {
      service.on(event, (data: unknown, context: unknown) => {
        if (!fromOtherInstance(app, context)) return
        for (const doc of Array.isArray(data) ? data : [data]) {
          for (const [source, id] of directory.affectedBy(path, doc)) {
            directory
              .rebuildEntry(source, id)
              .catch((error: unknown) =>
                deps.logger.error(
                  `Directory entry ${source.kind}:${id} could not be rebuilt:`,
                  messageOf(error)
                )
              )
          }
        }
      })
    }
  }
}
