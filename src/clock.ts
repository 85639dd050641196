// The one clock every time-driven rule reads (expiries, schedules, reminders, retention), handed to the domain
// in its dependencies so tests and benches can run time forward without waiting.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() })
