// The application admin from ADMIN_EMAIL/ADMIN_PASSWORD, created at startup if missing (a restart changes nothing).
// The bootstrap never adopts an account it did not create: if the email belongs to an account that is not
// admin (e.g. someone signed up with it first), startup stops — unless ADMIN_PROMOTE_EXISTING=true (config
// `admin.promoteExisting`) says to promote that very account, which also ends all its sessions. Either way the
// promotion is an audit event (`admin-promote`, actor null: the server's configuration did it).
import { GeneralError } from '@feathersjs/errors'
import type { Application } from './declarations'
import { normalizeEmail } from './auth/accounts'
import { endSessions } from './auth/sessions'
import { depsSlot } from './deps'
import { logger } from './logger'
import { recordChange } from './audit/changes'

const recordPromotion = (app: Application, accountId: string) =>
  recordChange(app, {
    action: 'admin-promote',
    service: 'accounts',
    actor: null,
    account: accountId,
    ids: [accountId],
    before: { admin: false },
    after: { admin: true }
  })

export const ensureAdmin = async (app: Application) => {
  const deps = depsSlot.require(app)
  const { email, password, promoteExisting } = deps.settings.get('admin')
  if (!email || !password) return
  const accounts = app.service('accounts')
  const normalized = normalizeEmail(email) as string // a string in, a string out
  const [existing] = await accounts._find({ query: { email: normalized, $limit: 1 }, paginate: false })
  if (existing) {
    if (existing.admin === true) return
    if (!promoteExisting) {
      throw new GeneralError(
        `ADMIN_EMAIL ${normalized} belongs to an existing account that is not an admin, and the admin bootstrap does not adopt accounts it did not create. ` +
          'Set ADMIN_EMAIL to another email, or set ADMIN_PROMOTE_EXISTING=true to make that existing account (with its own password) the admin and end all its sessions.',
        { reason: 'admin-email-taken' }
      )
    }
    // Its tokens were issued to a non-admin: they all end, so only a fresh sign-in carries the admin rights.
    const promoted = await endSessions(deps, existing.id, 'rights-changed', {
      change: { admin: true, updatedAt: deps.clock.now() }
    })
    await deps.announce('accounts', 'patched', promoted)
    await recordPromotion(app, existing.id)
    logger.info(`Promoted the existing account ${normalized} to application admin (ADMIN_PROMOTE_EXISTING)`)
    return
  }
  const created = await accounts.create({ email: normalized, password })
  await accounts._patch(created.id, { admin: true })
  await recordPromotion(app, created.id)
  logger.info(`Created application admin ${normalized}`)
}
