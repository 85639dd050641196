// Exists so that every create, patch and remove of a service holding privileges or configuration (memberships,
// webhooks) is a privilege audit event (src/audit/changes.ts), whoever makes it: an external call, or a cascade
// (an account or organization removed). `describe` picks the privilege fields of a document — never secrets.
import type { HookContext, NextFunction } from '../declarations'
import type { AuditAction, ChangeFields } from '../audit/chain'
import { changed, recordChange } from '../audit/changes'

export interface ChangeSubject {
  /** The account whose rights or settings the document holds. */
  account?: string
  /** The organization it belongs to. */
  facility?: string
  fields: ChangeFields
}

export const recordChanges =
  (
    describe: (doc: any) => ChangeSubject,
    actions: { create: AuditAction; patch: AuditAction; remove: AuditAction }
  ) =>
  async (context: HookContext, next: NextFunction) => {
    const method = context.method as 'create' | 'patch' | 'remove'
    if (
      !Object.hasOwn(actions, method) ||
      (method !== 'create' && (context.id === null || context.id === undefined))
    )
      return next()
    // The document as it was (loaded under the caller's scope by scopeAccess, or read here for internal calls).
    const existing =
      method === 'create'
        ? undefined
        : (context.params.existing ?? (await context.service._get(context.id).catch(() => undefined)))
    await next()
    const result = context.result
    const docs: any[] = Array.isArray(result) ? result : [result]
    for (const doc of docs) {
      if (!doc || typeof doc !== 'object') continue
      const after = describe(doc)
      const before = existing ? describe(existing) : undefined
      if (method === 'patch' && before && !changed(before.fields, after.fields)) continue
      await recordChange(
        context.app,
        {
          action: actions[method],
          service: context.path,
          actor: typeof context.params.account?.id === 'string' ? context.params.account.id : null,
          ...(after.account ? { account: after.account } : {}),
          ...(after.facility ? { facility: after.facility } : {}),
          ids: typeof doc.id === 'string' ? [doc.id] : [],
          ...(method === 'create' ? {} : { before: (before ?? after).fields }),
          ...(method === 'remove' ? {} : { after: after.fields }),
          status: context.http?.status ?? (method === 'create' ? 201 : 200)
        },
        context.params
      )
    }
  }
