// The one clock every time-driven rule reads (expiries, schedules, reminders, retention), handed to the domain
// in its dependencies so tests and benches can run time forward without waiting.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() })

/**
 * A clock ahead of another (`base`) by an offset that only grows: the sandbox clock (SANDBOX_CLOCK), which
 * developers and tests move forward to run time-driven rules without waiting. The offset is kept in the store and
 * adopted here by every instance, so they all read the same time; it never goes backwards.
 */
export class OffsetClock implements Clock {
  private offset = 0

  constructor(private readonly base: Clock = systemClock) {}

  now(): number {
    return this.base.now() + this.offset
  }

  /** How far ahead of its base the clock is (ms). */
  get offsetMs(): number {
    return this.offset
  }

  /** Takes `offsetMs` when it is ahead of the current one (never backwards); answers the offset now in force. */
  adopt(offsetMs: number): number {
    if (Number.isFinite(offsetMs) && offsetMs > this.offset) this.offset = offsetMs
    return this.offset
  }
}
