// Path and methods of the sessions service, shared with the typed client: list your sessions, end one.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { ClientParams } from '../client-params'
import type { External } from '../../schema/resolvers'
import type { Session as SessionDoc, sessionInternals, sessionQuerySchema } from './sessions.schema'

export const sessionPath = 'sessions'
export const sessionMethods = ['find', 'get', 'remove'] as const

/** A session as clients receive it; `current` is true on the session of the token that asked. */
export type Session = External<SessionDoc, typeof sessionInternals> & { current?: boolean }
export type SessionQuery = Static<typeof sessionQuerySchema>

export type SessionClientService = Pick<
  ClientService<Session, never, never, Paginated<Session>, ClientParams<SessionQuery>>,
  (typeof sessionMethods)[number]
>

declare module '../../client' {
  interface ServiceTypes {
    [sessionPath]: SessionClientService
  }
}
