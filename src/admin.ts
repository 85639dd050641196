// The application admin from ADMIN_EMAIL/ADMIN_PASSWORD, created at startup if missing (a restart changes nothing).
import type { Application } from './declarations'
import { normalizeEmail } from './services/accounts/accounts'
import { logger } from './logger'

export const ensureAdmin = async (app: Application) => {
  const { email, password } = app.get('admin') ?? {}
  if (!email || !password) return
  const accounts = app.service('accounts' as any) as any
  const normalized = normalizeEmail(email)
  const [existing] = await accounts._find({ query: { email: normalized, $limit: 1 }, paginate: false })
  if (existing) {
    if (existing.admin !== true) await accounts._patch(existing.id, { admin: true })
    return
  }
  const created = await accounts.create({ email: normalized, password })
  await accounts._patch(created.id, { admin: true })
  logger.info(`Created application admin ${normalized}`)
}
