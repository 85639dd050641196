// Time-based one-time passwords (RFC 6238) for MFA, with otplib's authenticator preset (30-second steps,
// 6 digits, SHA-1: what authenticator apps expect). `window` steps either side absorb clock drift.
import { authenticator } from 'otplib'

export const createTotp = (window: number) => {
  const totp = authenticator.clone({ window })
  return {
    generateSecret: () => totp.generateSecret(20),
    uri: (accountName: string, issuer: string, secret: string) => totp.keyuri(accountName, issuer, secret),
    /** The 30-second time step `token` belongs to when it is a current code for `secret` (within `window`), else null. */
    step(token: unknown, secret: string | undefined): number | null {
      if (typeof token !== 'string' || !/^[0-9]{6}$/.test(token) || !secret) return null
      try {
        // One clock reading for both the check and the step number, so they agree at a step boundary.
        const now = Date.now()
        const at = totp.clone({ epoch: now })
        const delta = at.checkDelta(token, secret)
        return delta === null ? null : Math.floor(now / 1000 / at.allOptions().step) + delta
      } catch {
        return null
      }
    },
    /** True when `token` is a current code for `secret`. */
    verify(token: unknown, secret: string | undefined): boolean {
      if (typeof token !== 'string' || !/^[0-9]{6}$/.test(token) || !secret) return false
      try {
        return totp.check(token, secret)
      } catch {
        return false
      }
    }
  }
}

export type Totp = ReturnType<typeof createTotp>
