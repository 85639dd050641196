// GET /bff/unified-directory: the public, read-only directory search (no token needed; a token changes nothing).
// Only `find` exists: POST/PUT/PATCH/DELETE are 405 on REST and Socket.IO alike.
import { BadRequest } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import { validateQueryWith } from '../../schema/validators'
import { setupDirectoryStore } from '../../directory/entries'
import { setupDirectoryRepair } from '../../directory/repair'
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

export const unifiedDirectory = (app: Application) => {
  setupDirectoryStore(app)
  setupDirectoryRepair(app)
  app.use(unifiedDirectoryPath, new UnifiedDirectory(app), {
    methods: [...unifiedDirectoryMethods],
    events: []
  })
  app.service(unifiedDirectoryPath).hooks({
    around: {
      find: [refuseRefId, validateQueryWith(directoryQuerySchema)]
    }
  })
}
