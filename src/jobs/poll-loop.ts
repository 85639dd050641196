// The polling base of the delivery workers (webhooks, notifications): one look (`tick`) at a time, repeated every
// interval; a nudge (something was queued here, a slot freed) looks at once, or right after the look in progress
// when one is running (never two at once, never a nudge lost); a wake-up set for a moment before the next poll
// (a retry, a message held by a rate) runs its callback then. Stopping clears every timer and waits for the look
// in progress.
export interface PollLoopOptions {
  /** One look for due work. */
  tick: () => Promise<void>
  /** Read at every poll, so a settings change applies from the next one. */
  intervalMs: () => number
  /** The app's clock (wake-ups are moments on it). */
  now: () => number
  onError: (error: unknown) => void
}

export class PollLoop {
  private pollTimer?: NodeJS.Timeout
  private readonly timers = new Set<NodeJS.Timeout>()
  private tickRunning: Promise<void> | null = null
  private tickAgain = false
  private active = false

  constructor(private readonly options: PollLoopOptions) {}

  /** Started and not stopped. */
  get running() {
    return this.active
  }

  /** Starts polling with one look at once. */
  start() {
    if (this.active) return
    this.active = true
    this.schedule(0)
  }

  /** Marks the loop stopped (no new look starts), clears its timers and waits for the look in progress. */
  async stop() {
    this.active = false
    if (this.pollTimer) clearTimeout(this.pollTimer)
    this.pollTimer = undefined
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    await this.tickRunning
  }

  /** Something may be due: look now rather than at the next poll. */
  nudge() {
    if (!this.active) return
    if (this.tickRunning) {
      this.tickAgain = true
      return
    }
    this.schedule(0)
  }

  /** Runs `then` (by default a nudge) at `at`, when that is before the next poll would look anyway. */
  wakeAt(at: number, then: () => void = () => this.nudge()) {
    const delay = at - this.options.now()
    if (!this.active || delay >= this.options.intervalMs()) return
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        if (this.active) then()
      },
      Math.max(0, delay) + 1
    )
    this.timers.add(timer)
  }

  private schedule(ms: number) {
    if (!this.active) return
    if (this.pollTimer) clearTimeout(this.pollTimer)
    this.pollTimer = setTimeout(() => this.runTick(), ms)
  }

  private runTick() {
    if (!this.active) return
    if (this.tickRunning) {
      this.tickAgain = true
      return
    }
    this.tickAgain = false
    this.tickRunning = this.options
      .tick()
      .catch(this.options.onError)
      .finally(() => {
        this.tickRunning = null
        this.schedule(this.tickAgain ? 0 : this.options.intervalMs())
        this.tickAgain = false
      })
  }
}
