// The sandbox clock (SANDBOX_CLOCK=true, refused in production; otherwise /sandbox/clock is a 404): GET answers
// `{ now, offsetMs }` to any signed-in account; PATCH `{ advanceMs }` or `{ now }` (application admins only: 403
// otherwise) moves it forward — never backwards (400) — and runs every time-driven pass before answering
// `{ now, offsetMs, ran: [{ job, changed }] }`. The offset is stored, so several instances share one time.
import { authenticate } from '@feathersjs/authentication'
import { Forbidden } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { onNotice } from '../../cluster/notices'
import { accessOf } from '../../hooks/scope-access'
import { validateBody } from '../../schema/validators'
import { appSlot } from '../../runtime'
import { CLOCK_MOVED, SandboxClockService } from './sandbox-clock.class'
import { sandboxClockMoveSchema } from './sandbox-clock.schema'
import { sandboxClockMethods, sandboxClockPath } from './sandbox-clock.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [sandboxClockPath]: SandboxClockService
  }
}

const serviceSlot = appSlot<SandboxClockService>('sandbox clock')

/** The sandbox clock service of `app`, when SANDBOX_CLOCK is on. */
export const sandboxClockOf = (app: Application) => serviceSlot.get(app)

const adminsOnly = async (context: HookContext, next: NextFunction) => {
  if (context.params.provider && !(await accessOf(context)).admin)
    throw new Forbidden('Only an application admin moves the sandbox clock')
  await next()
}

export const sandboxClock = (app: Application, deps: Deps) => {
  if (!deps.sandboxClock) return
  const service = serviceSlot.set(app, new SandboxClockService(app, deps, deps.sandboxClock))
  app.use(sandboxClockPath, service, { methods: [...sandboxClockMethods], events: [] })
  app.service(sandboxClockPath).hooks({
    around: {
      all: [authenticate('jwt')],
      patch: [adminsOnly, validateBody({ patch: sandboxClockMoveSchema })]
    }
  })
  // Another instance moved the clock: adopt the stored offset at once (the periodic sync is the fallback).
  onNotice(app, CLOCK_MOVED, () => {
    service.sync().catch((error: Error) => deps.logger.warn('Sandbox clock not synced:', error.message))
  })
}
