// The sandbox clock service: GET /sandbox/clock reads the clock every time-driven rule reads; PATCH /sandbox/clock
// (no id) moves it forward and runs every time-driven pass before answering (src/sandbox/clock.ts). Not a resource:
// one stored offset, no events.
import { NotFound } from '@feathersjs/errors'
import type { NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { OffsetClock } from '../../clock'
import { createStore } from '../../store'
import { sendNotice } from '../../cluster/notices'
import {
  moveSandboxClock,
  runDuePasses,
  syncSandboxClock,
  type SandboxClockDoc,
  type SandboxClockStore
} from '../../sandbox/clock'
import type { Stored } from '../../store'
import type { SandboxClockMove, SandboxClockMoved, SandboxClockReading } from './sandbox-clock.schema'

/** The notice an instance sends the others when it moved the clock: adopt the stored offset now. */
export const CLOCK_MOVED = 'sandbox-clock-moved'

export class SandboxClockService {
  readonly store: SandboxClockStore

  constructor(
    private readonly app: Application,
    private readonly deps: Deps,
    readonly clock: OffsetClock
  ) {
    this.store = createStore<Stored<SandboxClockDoc>>(app, {
      name: 'sandbox-clock',
      paginate: false,
      multi: true,
      indexes: [{ fields: { key: 1 } }]
    })
  }

  /** Adopts the stored offset (start-up, periodically, on another instance's notice). */
  sync(): Promise<SandboxClockReading> {
    return syncSandboxClock(this.clock, this.store)
  }

  async find(_params?: Params): Promise<SandboxClockReading> {
    return this.sync()
  }

  async patch(id: NullableId, data: SandboxClockMove, _params?: Params): Promise<SandboxClockMoved> {
    if (id !== null && id !== undefined) throw new NotFound(`Page not found: sandbox/clock/${String(id)}`)
    const moved = await moveSandboxClock(this.clock, this.store, data)
    await sendNotice(this.app, CLOCK_MOVED, { offsetMs: moved.offsetMs }).catch((error: Error) =>
      this.deps.logger.warn('Sandbox clock move not announced to the other instances:', error.message)
    )
    const ran = await runDuePasses(this.deps)
    return { now: this.clock.now(), offsetMs: this.clock.offsetMs, ran }
  }
}
