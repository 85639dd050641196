// GET /bff/unified-directory: the public, read-only directory search (no token needed; a token changes nothing).
// Only `find` exists: POST/PUT/PATCH/DELETE are 405 on REST and Socket.IO alike.
import { BadRequest } from '@feathersjs/errors'
import { populate } from '../../hooks/populate'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { validateQueryWith } from '../../schema/validators'
import { createStore } from '../../store'
import { sendNotice } from '../../cluster/notices'
import { DIRECTORY_STORE, Directory, ENTRY_NOTICE, type DirectoryEntry } from '../../directory/entries'
import { DirectoryRepair, directorySlot, type PendingRecord } from '../../directory/repair'
import { organizationSource } from '../../directory/sources'
import { rebuildOnRemoteChanges } from './remote-changes'
import { UnifiedDirectory } from './unified-directory.class'
import { directoryQuerySchema } from './unified-directory.schema'
import { unifiedDirectoryMethods, unifiedDirectoryPath } from './unified-directory.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [unifiedDirectoryPath]: UnifiedDirectory
  }
}

// `ref.id` is the one field of `ref` that is not a facet (an entry is not looked up by its source's id here).
const refuseRefId = async (context: HookContext, next: NextFunction) => {
  const query = context.params.query ?? {}
  if (
    Object.prototype.hasOwnProperty.call(query, 'ref.id') ||
    (query.ref && typeof query.ref === 'object' && 'id' in query.ref)
  ) {
    throw new BadRequest("Invalid query: 'ref.id' is not a filter of the directory", {
      errors: [{ field: 'ref.id', message: 'is not a filter' }]
    })
  }
  await next()
}

/**
 * Test-only fault: with NODE_ENV=test, the next `directoryFailRebuilds` rebuilds (an app setting tests set on a
 * running app) fail as a store outage would.
 */
const injectedFailure = (app: Application) => () => {
  if (process.env.NODE_ENV !== 'test') return
  const left = Number(app.get('directoryFailRebuilds') ?? 0)
  if (left <= 0) return
  app.set('directoryFailRebuilds', left - 1)
  throw new Error('injected directory rebuild failure')
}

/**
 * The app's directory: its sources (organizations), the entries' store (loaded in the background after start-up)
 * with the search index, and the pending records' store (small; part of start-up like every store). Its upkeep
 * subscribes to the app's write events, and (REDIS_URL) follows the other instances' changes.
 */
const setupDirectory = (app: Application, deps: Deps) => {
  const entries = createStore<DirectoryEntry>(app, {
    name: DIRECTORY_STORE,
    paginate: false,
    deferLoad: true,
    indexes: [{ fields: { key: 1 }, unique: true }]
  })
  const directory = new Directory(deps, {
    store: entries,
    notify: (key) => sendNotice(app, ENTRY_NOTICE, { key }),
    injectedFailure: injectedFailure(app)
  })
  directory.define(organizationSource)
  const pending = createStore<PendingRecord>(app, {
    name: 'directory-pending',
    paginate: false,
    indexes: [{ fields: { at: 1 } }]
  })
  const repair = directorySlot.set(app, new DirectoryRepair(deps, directory, pending))
  repair.subscribe()
  rebuildOnRemoteChanges(app, deps, directory)
}

export const unifiedDirectory = (app: Application, deps: Deps) => {
  setupDirectory(app, deps)
  app.use(unifiedDirectoryPath, new UnifiedDirectory(app, deps), {
    methods: [...unifiedDirectoryMethods],
    events: []
  })
  app.service(unifiedDirectoryPath).hooks({
    around: {
      all: [populate],
      find: [refuseRefId, validateQueryWith(directoryQuerySchema)]
    }
  })
}
