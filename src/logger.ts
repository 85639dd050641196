// A minimal levelled logger writing one line per entry; the level comes from config (LOG_LEVEL).
const levels = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof levels)[number]

let current: LogLevel = (process.env.LOG_LEVEL as LogLevel) || 'info'

const write = (level: LogLevel, args: unknown[]) => {
  if (levels.indexOf(level) < levels.indexOf(current)) return
  const line = args.map((arg) => (arg instanceof Error ? arg.stack || arg.message : typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' ')
  const out = level === 'error' || level === 'warn' ? process.stderr : process.stdout
  out.write(`${new Date().toISOString()} ${level} ${line}\n`)
}

export const logger = {
  setLevel(level: string) {
    if ((levels as readonly string[]).includes(level)) current = level as LogLevel
  },
  debug: (...args: unknown[]) => write('debug', args),
  info: (...args: unknown[]) => write('info', args),
  warn: (...args: unknown[]) => write('warn', args),
  error: (...args: unknown[]) => write('error', args)
}
