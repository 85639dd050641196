// A start-up failure the operator fixes: its message is one sentence for people that names the setting and says
// what to do ("PORT 3030 is in use (another server?); set PORT to a free port"). src/index.ts prints it as one log
// line, without a stack, and exits 1. Throw it from whatever start-up runs or waits for (configuration checks,
// the port, the store, Redis); anything else that stops start-up is a bug and is printed with its stack.
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StartupError'
  }
}

/**
 * A URL as a start-up message may show it: without its password (user names and hosts stay, so the operator sees
 * which server was meant). Text that is not a URL is not shown at all: it may be a secret pasted in the wrong place.
 */
export const shownUrl = (value: string): string => {
  try {
    const url = new URL(value)
    if (url.password) url.password = '***'
    return url.href
  } catch {
    return '(not a URL)'
  }
}

/** The reason an error gives, for the parenthesis of a start-up message (its code when it has no message). */
export const reasonOf = (error: unknown): string => {
  const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown }
  if (typeof message === 'string' && message.trim()) return message.trim().split('\n')[0]
  return typeof code === 'string' ? code : String(error)
}
