// The process logger (pino): one JSON line per entry — `level` (name), `time` (ms since the epoch), `msg`, plus
// structured fields such as a request's `reqId`, `method`, `path`, `statusCode`, `responseTime` and `account`.
// In development (NODE_ENV unset or `development`) lines are formatted for people by pino-pretty instead;
// LOG_FORMAT=json|pretty overrides. Levels come from LOG_LEVEL (config `logLevel`). Debug and info lines go to
// stdout, warn and error lines to stderr. Secret-looking fields are censored wherever they appear.
import pino, { type Logger as PinoLogger, type DestinationStream } from 'pino'

const levels = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof levels)[number]
export type LogFormat = 'json' | 'pretty'

/** Field names whose values never reach a log line (top level or one level down). */
const secretFields = [
  'password',
  'newPassword',
  'currentPassword',
  'accessToken',
  'refreshToken',
  'token',
  'mfaCode',
  'secret',
  'authorization',
  'cookie'
]
// (`code` only at the top level: an action code there, while `err.code` is an error's own code.)
const redact = {
  paths: ['code', ...secretFields, ...secretFields.map((field) => `*.${field}`)],
  censor: '[redacted]'
}

const isLevel = (value: unknown): value is LogLevel =>
  typeof value === 'string' && (levels as readonly string[]).includes(value)
const defaultFormat = (): LogFormat => {
  const configured = process.env.LOG_FORMAT
  if (configured === 'json' || configured === 'pretty') return configured
  const env = process.env.NODE_ENV
  return !env || env === 'development' ? 'pretty' : 'json'
}

// The level, the format and the pino instance are the process's, not an app's: a process has one stdout and one
// stderr, and every module writes to them through this one logger (the last app built sets the level from its
// `logLevel`; apps in one process, as in the tests, share it).
let level: LogLevel = isLevel(process.env.LOG_LEVEL) ? process.env.LOG_LEVEL : 'info'
let format: LogFormat = defaultFormat()

const destination = (target: NodeJS.WriteStream): DestinationStream => {
  if (format === 'json') return target
  // Loaded only when used: production images format as JSON.
  const pretty = require('pino-pretty') as (options: Record<string, unknown>) => DestinationStream
  return pretty({
    destination: target,
    sync: true,
    colorize: target.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname'
  })
}

const build = (): PinoLogger =>
  pino(
    {
      level,
      base: undefined,
      redact,
      formatters: { level: (label) => ({ level: label }) }
    },
    pino.multistream(
      [
        { level: 'debug', stream: destination(process.stdout) },
        { level: 'warn', stream: destination(process.stderr) }
      ],
      { dedupe: true }
    )
  )

let base = build()

// Positional arguments become the message (strings as they are, other values as JSON); the first Error is
// also attached as `err` (name, message, stack) — except for client aborts, which callers log as one line.
const write = (method: 'debug' | 'info' | 'warn' | 'error', args: unknown[]) => {
  if (!base.isLevelEnabled(method)) return
  const error = args.find((arg): arg is Error => arg instanceof Error)
  const msg = args
    .map((arg) => (arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : JSON.stringify(arg)))
    .join(' ')
  if (error) base[method]({ err: error }, msg)
  else base[method](msg)
}

export const logger = {
  /** Sets the level (config `logLevel`); unknown names are ignored. */
  setLevel(next: string) {
    if (!isLevel(next) || next === level) return
    level = next
    base.level = next
  },
  /** Switches between JSON lines and pino-pretty (tests and tools; LOG_FORMAT at start-up). */
  setFormat(next: LogFormat) {
    if (next === format) return
    format = next
    base = build()
  },
  isEnabled: (at: Exclude<LogLevel, 'silent'>) => base.isLevelEnabled(at),
  /** A structured line: `fields` are merged into the JSON object next to `msg`. */
  log(at: Exclude<LogLevel, 'silent'>, fields: Record<string, unknown>, msg: string) {
    base[at](fields, msg)
  },
  /**
   * An info line written whatever LOG_LEVEL says (except `silent`): the start line, which scripts and tests wait
   * for. As JSON it carries `fields`; formatted for people, the message alone (it states the same facts).
   */
  notice(fields: Record<string, unknown>, msg: string) {
    if (level === 'silent') return
    const always = base.child({}, { level: 'info' })
    if (format === 'json') always.info(fields, msg)
    else always.info(msg)
  },
  debug: (...args: unknown[]) => write('debug', args),
  info: (...args: unknown[]) => write('info', args),
  warn: (...args: unknown[]) => write('warn', args),
  error: (...args: unknown[]) => write('error', args)
}

/** The logger's interface, as the domain receives it in its dependencies. */
export type Logger = typeof logger
