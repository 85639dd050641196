// The JWT secret: AUTH_SECRET; in development a random one is created once and kept under DATA_DIR so
// tokens survive restarts. In production an unset secret stops the server, and so does a weak one: shorter than
// 32 bytes, a placeholder, the development secret of DATA_DIR, or text that does not look random (a rough
// estimate below 128 bits: repeated or sequential characters, a few characters used over and over). The
// estimate only catches obvious mistakes; the secret should come from a generator such as `openssl rand -base64 48`.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { StartupError } from './startup-error'

/** What every refusal says to do. */
const generateHint =
  'Generate one with `openssl rand -base64 48` and set AUTH_SECRET to it (the same value on every instance).'

const MIN_BYTES = 32
const MIN_BITS = 128

// Words that mark a value copied from an example rather than generated (compared without case or punctuation).
const placeholders = [
  'changeme',
  'replaceme',
  'yoursecret',
  'placeholder',
  'example',
  'insertsecret',
  'secretkey',
  'development',
  'notsecret'
]

const shannonBits = (symbols: number[]) => {
  const counts = new Map<number, number>()
  for (const symbol of symbols) counts.set(symbol, (counts.get(symbol) ?? 0) + 1)
  let bits = 0
  for (const count of counts.values()) bits -= (count / symbols.length) * Math.log2(count / symbols.length)
  return bits
}

/** The shortest period of `symbols` (the whole length when it does not repeat). */
const periodOf = (symbols: number[]) => {
  for (let period = 1; period <= symbols.length / 2; period++) {
    if (symbols.every((symbol, index) => index < period || symbol === symbols[index - period])) return period
  }
  return symbols.length
}

/**
 * A rough estimate of the randomness in `text`, in bits: the characters' entropy (and that of the steps between
 * neighbouring characters, which catches `abcdef…`), times the length of the part that does not repeat.
 */
export const estimatedBits = (text: string): number => {
  const points = [...text].map((char) => char.codePointAt(0)!)
  if (points.length < 2) return 0
  const steps = points.slice(1).map((point, index) => point - points[index])
  return Math.floor(Math.min(shannonBits(points), shannonBits(steps)) * periodOf(points))
}

/** Why `secret` is not fit for production, or undefined; `developmentSecret` is the one generated under DATA_DIR. */
export const weakSecretReason = (secret: string, developmentSecret?: string): string | undefined => {
  const bytes = Buffer.byteLength(secret, 'utf8')
  if (bytes < MIN_BYTES) return `it is ${bytes} bytes long; at least ${MIN_BYTES} are needed`
  if (developmentSecret && secret === developmentSecret)
    return 'it is the development secret generated in DATA_DIR/.auth-secret'
  const letters = secret.toLowerCase().replace(/[^a-z]/g, '')
  const placeholder = placeholders.find((word) => letters.includes(word))
  if (placeholder) return `it looks like a placeholder (it contains "${placeholder}")`
  const bits = estimatedBits(secret)
  if (bits < MIN_BITS)
    return `it does not look random (about ${bits} bits of randomness; at least ${MIN_BITS} are needed)`
  return undefined
}

const developmentSecretFile = (dataDir: string) => path.resolve(dataDir, '.auth-secret')

const readDevelopmentSecret = (dataDir: string) => {
  try {
    return fs.readFileSync(developmentSecretFile(dataDir), 'utf8').trim() || undefined
  } catch {
    return undefined // none was generated here
  }
}

export const resolveAuthSecret = (
  configured: string | undefined,
  dataDir: string,
  env = process.env.NODE_ENV
): string => {
  if (env === 'production') {
    if (!configured)
      throw new StartupError(`AUTH_SECRET is not set; production needs a long random secret. ${generateHint}`)
    const reason = weakSecretReason(configured, readDevelopmentSecret(dataDir))
    if (reason) throw new StartupError(`AUTH_SECRET is too weak for production: ${reason}. ${generateHint}`)
    return configured
  }
  if (configured) return configured
  const existing = readDevelopmentSecret(dataDir)
  if (existing) return existing
  const file = developmentSecretFile(dataDir)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const secret = crypto.randomBytes(48).toString('base64')
  fs.writeFileSync(file, secret, { mode: 0o600 })
  return secret
}
