// Path and methods of the sandbox clock (SANDBOX_CLOCK=true only), shared with the typed client: GET reads it,
// PATCH (no id) moves it forward.
import type { ClientParams } from '../client-params'
import type { SandboxClockMove, SandboxClockMoved, SandboxClockReading } from './sandbox-clock.schema'

export type { SandboxClockMove, SandboxClockMoved, SandboxClockReading }
export const sandboxClockPath = 'sandbox/clock'
export const sandboxClockMethods = ['find', 'patch'] as const

/** What a client may call on the sandbox clock. */
export interface SandboxClockClientService {
  find(params?: ClientParams<Record<string, never>>): Promise<SandboxClockReading>
  patch(
    id: null,
    data: SandboxClockMove,
    params?: ClientParams<Record<string, never>>
  ): Promise<SandboxClockMoved>
}

declare module '../../client' {
  interface ServiceTypes {
    [sandboxClockPath]: SandboxClockClientService
  }
}
