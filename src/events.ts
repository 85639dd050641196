// The app's typed events: what the domain announces after each write, and who listens. A write of a service
// method, or a change made outside one (cascades, totals, jobs), is emitted once as `record.changed`; webhook
// recording, directory upkeep and the audit of privilege changes subscribe to it, so a new service gets all of
// them without code of its own. A domain adds its own events to `EventMap` by module augmentation
// (`declare module '../events' { interface EventMap { … } }`), so this file imports none of them.
import type { Id, Params } from '@feathersjs/feathers'

export type ChangeMethod = 'create' | 'update' | 'patch' | 'remove'
export type ChangeName = 'created' | 'updated' | 'patched' | 'removed'

/** The event name of each write method (Feathers' own names). */
export const changeNames: Readonly<Record<ChangeMethod, ChangeName>> = {
  create: 'created',
  update: 'updated',
  patch: 'patched',
  remove: 'removed'
}

/** A write of a service method about to happen (subscribers that must note it first, for crash safety). */
export interface PendingChange {
  /** The service path. */
  path: string
  method: ChangeMethod
  /** The id written; null for a create or a multi write. */
  id: Id | null
  /** The service call's params; absent for a change announced by the domain outside a call. */
  params?: Params<unknown>
  /** The call's body (create, update, patch), when the service passed it: what the write asks for, not yet checked. */
  data?: unknown
  /** Shared by the `record.changing`, `record.changed` and `record.failed` events of one write: what a subscriber
   *  noted before the write, for after it. */
  notes: Map<string, unknown>
}

/** Documents of one service written by one call (or one announced change). */
export interface RecordChange extends PendingChange {
  /** The documents as stored after the write (as they were, for a removal). */
  docs: Record<string, unknown>[]
}

/** A write that failed (nothing or part of it may have been written). */
export interface FailedChange extends PendingChange {
  error: unknown
}

export interface EventMap {
  'record.changing': PendingChange
  'record.changed': RecordChange
  'record.failed': FailedChange
}

/** Handlers run one after another, in the order they subscribed; the emitter waits for all of them. */
export type Handler<T> = (payload: T) => void | Promise<void>

/**
 * One app's event bus. `emit` resolves once every handler finished (so what a handler records durably — a
 * webhook delivery — is recorded before the write is answered), and rejects with the first handler's failure.
 */
export class EventBus<M extends object = EventMap> {
  private readonly handlers = new Map<keyof M, Handler<never>[]>()

  /** Subscribes `handler` to `name`; returns the unsubscribe function. */
  on<K extends keyof M>(name: K, handler: Handler<M[K]>): () => void {
    const list = [...(this.handlers.get(name) ?? []), handler as Handler<never>]
    this.handlers.set(name, list)
    return () => {
      this.handlers.set(
        name,
        (this.handlers.get(name) ?? []).filter((entry) => entry !== handler)
      )
    }
  }

  /** Whether anything listens to `name` (an emitter may skip building a payload nobody reads). */
  has<K extends keyof M>(name: K): boolean {
    return (this.handlers.get(name)?.length ?? 0) > 0
  }

  async emit<K extends keyof M>(name: K, payload: M[K]): Promise<void> {
    for (const handler of this.handlers.get(name) ?? []) await (handler as Handler<M[K]>)(payload)
  }
}
