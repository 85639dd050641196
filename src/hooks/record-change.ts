// Exists so that every create, patch and remove of a service holding privileges or configuration (memberships,
// webhooks) is a privilege audit event (src/audit/changes.ts), whoever makes it: an external call, or a cascade
// (an account or organization removed). `describe` picks the privilege fields of a document — never secrets.
// A service that announces its writes on the app's bus (a ResourceService) declares its change audit instead
// (`declareChangeAudit`), and this hook leaves it to that subscriber (transition: the hook goes once every such
// service is a ResourceService).
import type { HookContext, NextFunction } from '../declarations'
import type { AuditAction } from '../audit/chain'
import { recordDescribedChanges, type ChangeAudit, type ChangeSubject } from '../audit/changes'
import { auditLog } from '../audit/log'
import { announcesOwnWrites } from '../jobs/announce'
import type { StoreDoc } from '../store'

export type { ChangeSubject }

const isDoc = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value)

export const recordChanges =
  <D extends object = StoreDoc>(
    describe: (doc: D) => ChangeSubject,
    actions: { create: AuditAction; patch: AuditAction; remove: AuditAction }
  ) =>
  async (context: HookContext, next: NextFunction) => {
    const method = context.method
    if (
      announcesOwnWrites(context.self) ||
      !(method === 'create' || method === 'patch' || method === 'remove') ||
      (method !== 'create' && (context.id === null || context.id === undefined))
    )
      return next()
    // The document as it was (loaded under the caller's scope by scopeAccess, or read here for internal calls).
    const existing: unknown =
      method === 'create'
        ? undefined
        : (context.params.existing ?? (await context.service._get(context.id).catch(() => undefined)))
    await next()
    const log = auditLog(context.app)
    if (!log) return
    const audit = { describe, actions } as unknown as ChangeAudit // (cast: `describe` reads this service's documents)
    const result: unknown = context.result
    await recordDescribedChanges(
      log,
      context.path,
      audit,
      method,
      isDoc(existing) ? existing : undefined,
      Array.isArray(result) ? result : [result],
      context.params
    )
  }
