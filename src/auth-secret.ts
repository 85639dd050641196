// The JWT secret: AUTH_SECRET; in development a random one is created once and kept under DATA_DIR so
// tokens survive restarts; in production an unset secret stops the server.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

export const resolveAuthSecret = (configured: string | undefined, dataDir: string, env = process.env.NODE_ENV): string => {
  if (configured) return configured
  if (env === 'production') {
    throw new Error('AUTH_SECRET is not set. Set AUTH_SECRET to a long random string before starting in production.')
  }
  const file = path.resolve(dataDir, '.auth-secret')
  try {
    const existing = fs.readFileSync(file, 'utf8').trim()
    if (existing) return existing
  } catch {
    // first start: create it below
  }
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const secret = crypto.randomBytes(48).toString('base64')
  fs.writeFileSync(file, secret, { mode: 0o600 })
  return secret
}
