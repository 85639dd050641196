// Realtime audit events, for application admins who ask for them and nobody else. An admin's Socket.IO connection
// calls the audit-events service's `subscribe` method (`unsubscribe` to stop; disconnecting or logging out stops
// too) and joins the `audit-watchers` channel; from then on every appended audit event is emitted as `created` on
// /audit-events and published to the admins of that channel only (the service's own publisher: no other channel,
// and a connection that has stopped being an admin receives nothing). While nobody watches, nothing is emitted, so
// the audited requests pay nothing for this.
// Several instances (REDIS_URL): events are service events shared through Redis like every other, so an admin
// watching on one instance sees the events appended on all of them. An instance with watchers tells the others
// (a notice, repeated while its watchers stay) that they must emit; an instance that has heard nothing for a
// minute stops.
import { BadRequest, Forbidden } from '@feathersjs/errors'
import type { RealTimeConnection } from '@feathersjs/feathers'
import type { Channel } from '@feathersjs/transport-commons'
import type { Application } from '../declarations'
import { onNotice, sendNotice } from '../cluster/notices'
import { logger } from '../logger'
import { appSlot } from '../runtime'
import { presentExternal } from '../schema/external'
import type { AccessContext } from '../access/context'
import type { AuditEvent } from './chain'
import { auditEventPath } from '../services/audit-events/audit-events.shared'

/** The audit-events service as the watchers use it: its events and its publisher. */
export interface AuditEventsEmitter {
  emit(event: 'created', data: unknown): unknown
  publish(publisher: () => Channel): unknown
}

export const AUDIT_WATCHERS = 'audit-watchers'
const WATCH_NOTICE = 'audit-watch'
// Another instance's watchers count for this long after its last notice; it repeats the notice three times as often.
const REMOTE_WATCH_MS = 60_000
const REPEAT_MS = REMOTE_WATCH_MS / 3

export interface WatchState {
  /** Until when another instance has watchers (ms since the epoch). */
  remoteUntil: number
  repeat: NodeJS.Timeout | null
}

// Marks a connection that asked for audit events, so that a re-join of its channels (membership change) keeps it.
const WATCHING = Symbol('watchesAudit')
type Connection = RealTimeConnection & { access?: AccessContext; [WATCHING]?: boolean }

const watchSlot = appSlot<WatchState>('audit watchers')
const stateOf = (app: Application): WatchState =>
  watchSlot.ensure(app, () => ({ remoteUntil: 0, repeat: null }))

const localWatchers = (app: Application) => app.channel(AUDIT_WATCHERS).connections.length

/** Whether appended events must be emitted: an admin watches here or on another instance. */
export const auditWatched = (app: Application) =>
  localWatchers(app) > 0 || stateOf(app).remoteUntil > Date.now()

const announceWatching = (app: Application) =>
  sendNotice(app, WATCH_NOTICE, {}).catch((error: Error) =>
    logger.error('Audit watch notice not sent:', error?.message ?? error)
  )

// While this instance has watchers, the others are reminded; the reminder stops with the last watcher.
const keepAnnouncing = (app: Application) => {
  const state = stateOf(app)
  if (state.repeat) return
  state.repeat = setInterval(() => {
    if (localWatchers(app) > 0) return void announceWatching(app)
    clearInterval(state.repeat!)
    state.repeat = null
  }, REPEAT_MS)
  state.repeat.unref?.()
}

/** `subscribe` of /audit-events: an admin's realtime connection starts receiving audit events. */
export const watchAudit = async (
  app: Application,
  connection: Connection | undefined,
  access: AccessContext
) => {
  if (!connection)
    throw new BadRequest('Audit events are sent over a realtime (Socket.IO) connection; subscribe on one')
  if (!access.admin) throw new Forbidden('Only application admins may receive audit events')
  connection[WATCHING] = true
  app.channel(AUDIT_WATCHERS).join(connection)
  await announceWatching(app)
  keepAnnouncing(app)
  return { subscribed: true }
}

/** `unsubscribe`: the connection stops receiving audit events. */
export const unwatchAudit = (app: Application, connection: Connection | undefined) => {
  if (!connection)
    throw new BadRequest('Audit events are sent over a realtime (Socket.IO) connection; unsubscribe on it')
  delete connection[WATCHING]
  app.channel(AUDIT_WATCHERS).leave(connection)
  return { subscribed: false }
}

/** After the connection's channels were re-joined (login, membership change): back to watching if it asked and may. */
export const rejoinAuditWatchers = (app: Application, connection: Connection) => {
  if (connection[WATCHING] && connection.channelAccess?.admin) app.channel(AUDIT_WATCHERS).join(connection)
}

/** Forgets the connection's request (logout). */
export const forgetAuditWatch = (connection: Connection) => {
  delete connection[WATCHING]
}

/** Emits appended events as `created` when someone watches (the publisher sends them to the watching admins only). */
export const emitAuditEvents = async (
  app: Application,
  service: AuditEventsEmitter,
  events: AuditEvent[]
) => {
  if (events.length === 0 || !auditWatched(app)) return
  for (const event of events) service.emit('created', await presentExternal(app, auditEventPath, event))
}

/** Hears other instances' watchers; publishes audit events to the watching admins only. */
export const auditWatchers = (app: Application, service: AuditEventsEmitter) => {
  onNotice(app, WATCH_NOTICE, () => {
    stateOf(app).remoteUntil = Date.now() + REMOTE_WATCH_MS
  })
  service.publish(() =>
    app.channel(AUDIT_WATCHERS).filter((connection: Connection) => !!connection.channelAccess?.admin)
  )
}

/** Stops the reminder (shut-down). */
export const stopAuditWatchers = (app: Application) => {
  const state = stateOf(app)
  if (state.repeat) clearInterval(state.repeat)
  state.repeat = null
}
