// The sessions store (src/auth/refresh.ts writes it) and what DELETE /sessions/:id does: end one session
// (src/auth/refresh.ts: endSession). Reads hand over to the store.
import type { Id, NullableId } from '@feathersjs/feathers'
import { BadRequest } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { ResourceService } from '../resource'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { endSession } from '../../auth/refresh'
import type { Session } from './sessions.schema'
import { sessionPath, type SessionQuery } from './sessions.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'sessions',
  indexes: [{ fields: { account: 1 } }],
  multi: true
})

type SessionParams = StoreParams<SessionQuery>

export class SessionService extends ResourceService<Stored<Session>, never, never, SessionQuery> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, sessionPath, getOptions(app))
  }

  async create(): Promise<Stored<Session>> {
    throw new BadRequest('Sessions start at sign-in (POST /authentication)')
  }

  /** Ends one session (the caller's own, or any for an application admin): tokens refused, sockets cut. */
  async remove(id: NullableId, params?: SessionParams): Promise<Stored<Session>> {
    return this.write('remove', id, params, async () => {
      const session = await this.loadExisting(id as Id, params)
      await endSession(this.deps, session, 'session-revoked', params?.connection)
      return session
    })
  }
}
