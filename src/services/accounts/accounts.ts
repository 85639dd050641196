// Accounts: public sign-up (optionally with an organization), self-only reads and patches, admins read all.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { hooks as localHooks } from '@feathersjs/authentication-local'
import { Conflict } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { externalView } from '../../schema/external'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import {
  bodyNotAnObject,
  dataValidator,
  fieldErrors,
  invalid,
  validateBody,
  validateQueryWith
} from '../../schema/validators'
import { passwordProblem } from '../../auth/password'
import { normalizeEmail } from '../../auth/accounts'
import { checkSignUpSubscription } from '../../subscriptions/signup'
import { AccountService } from './accounts.class'
import {
  accountDataSchema,
  accountExternalResolver,
  accountPatchSchema,
  accountQuerySchema
} from './accounts.schema'
import { accountMethods, accountPath } from './accounts.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [accountPath]: AccountService
  }
}

// Emails are unique whatever their case or surrounding spaces.
const normalizeEmails = async (context: HookContext, next: NextFunction) => {
  if (context.data && typeof context.data === 'object' && 'email' in context.data) {
    context.data = { ...context.data, email: normalizeEmail(context.data.email) }
  }
  if (context.params.query && typeof context.params.query.email === 'string') {
    context.params = {
      ...context.params,
      query: { ...context.params.query, email: normalizeEmail(context.params.query.email) }
    }
  }
  await next()
}

// A duplicate email is a 409 that names the field (the unique index is the guarantee under concurrency).
const refuseDuplicateEmail = async (context: HookContext, next: NextFunction) => {
  const found = await context.service._find({
    query: { email: context.data.email, $limit: 1 },
    paginate: false
  })
  if (found.length > 0)
    throw new Conflict('An account with this email already exists', {
      errors: [{ field: 'email', message: 'is already registered' }]
    })
  await next()
}

// The sign-up body is checked against its schema and the password policy (config `passwordPolicy`, the same as
// for changed passwords) in one step, so one 400 names every offending field with the policy's own message.
const validateSignUp = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  const data = context.data
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw bodyNotAnObject()
  const validate = dataValidator.compile(accountDataSchema)
  const errors = validate(data) ? [] : fieldErrors(validate.errors)
  const problem =
    typeof data.password === 'string'
      ? passwordProblem(deps.settings.get('passwordPolicy'), data.password, data.email)
      : undefined
  if (problem) errors.push({ field: 'password', message: problem })
  if (errors.length) throw invalid('data', errors)
  await next()
}

// A sign-up asking for its organization's subscription names a package fit for that organization (checked before
// the account is created; the class creates the organization and the subscription with it).
const checkSignUpOrganization = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  const { subscription, ...organizationData } = context.data.organization ?? {}
  if (subscription) await checkSignUpSubscription(deps, organizationData, subscription)
  await next()
}

// Notification preferences are patched channel by channel: `{ notifications: { email: false } }` sets that channel
// only and keeps the other's choice (one atomic write of the named fields, no read-then-write).
const patchNotificationPreferences = async (context: HookContext, next: NextFunction) => {
  const { notifications, ...rest } = context.data ?? {}
  if (notifications && typeof notifications === 'object') {
    const fields = Object.fromEntries(
      Object.entries(notifications as Record<string, boolean>).map(([channel, on]) => [
        `notifications.${channel}`,
        on
      ])
    )
    context.data = { ...rest, ...fields }
  }
  await next()
}

export const accounts = (app: Application, deps: Deps) => {
  app.use(accountPath, new AccountService(app, deps), { methods: [...accountMethods], events: [] })
  app.service(accountPath).populatable = true

  defineAccess(app, accountPath, {
    read: (access) => (access.admin ? null : { id: access.accountId }),
    write: (access, method) =>
      method === 'remove' ? (access.admin ? null : { id: { $in: [] } }) : { id: access.accountId },
    // Sign-up is public.
    create: 'anyone',
    audience: (doc) => [`accounts/${doc.id}`, 'admins']
  })

  app.service(accountPath).hooks({
    around: {
      all: [populate, externalView(app, accountPath, accountExternalResolver), normalizeEmails],
      find: [authenticate('jwt'), validateQueryWith(accountQuerySchema), scopeAccess],
      get: [authenticate('jwt'), validateQueryWith(accountQuerySchema), scopeAccess],
      create: [
        validateSignUp(deps),
        checkSignUpOrganization(deps),
        refuseDuplicateEmail,
        localHooks.hashPassword('password'),
        setCreated
      ],
      patch: [
        authenticate('jwt'),
        validateQueryWith(accountQuerySchema),
        scopeAccess,
        validateBody({ patch: accountPatchSchema }),
        patchNotificationPreferences
      ],
      remove: [authenticate('jwt'), validateQueryWith(accountQuerySchema), scopeAccess]
    }
  })
}
