// Several instances (REDIS_URL): a change made on another instance rebuilds the directory entries it alters here
// too, from the synced service event (src/cluster/events.ts). The writer already rebuilt them before answering
// (syncDirectory); rebuilding again reads the source document as it is now, so when two instances rebuilt one entry
// from different versions at once, the last change's event leaves every entry at the newest version.
import type { Application } from '../declarations'
import { logger } from '../logger'
import { fromOtherInstance } from '../cluster/events'
import { rebuildEntry } from './entries'
import { affectedBy, entrySources } from './sources'

export const rebuildOnRemoteChanges = (app: Application) => {
  if (!app.get('redis')) return
  const paths = new Set<string>()
  for (const source of entrySources()) {
    paths.add(source.path)
    for (const trigger of source.triggers ?? []) paths.add(trigger.path)
  }
  for (const path of paths) {
    const service = app.service(path as any) as any
    for (const event of ['created', 'updated', 'patched', 'removed']) {
      service.on(event, (data: any, context: unknown) => {
        if (!fromOtherInstance(app, context)) return
        for (const doc of Array.isArray(data) ? data : [data]) {
          for (const [source, id] of affectedBy(path, doc)) {
            rebuildEntry(app, source, id).catch((error: any) => logger.error(`Directory entry ${source.kind}:${id} could not be rebuilt:`, error?.message ?? error))
          }
        }
      })
    }
  }
}
