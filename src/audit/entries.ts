// The audit events of a disclosure of documents of an audited service (src/access/rules.ts `audit`): one event per
// (patient, facility) of the documents, each naming the ids it covers, so each patient sees the accesses about them
// and each facility's superadmins those of their facility. Used for calls (src/hooks/record-audit.ts), realtime
// events (src/audit/realtime.ts) and webhook deliveries and their reads (src/audit/webhooks.ts).
import type { Application } from '../declarations'
import type { AuditDeclaration } from '../access/rules'
import { randomUUID } from 'node:crypto'
import type { AuditEntry, AuditVia } from './chain'

export const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value)

export const idString = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : undefined

/** The documents of a result: a page, a list or one document. */
export const docsOf = (result: unknown): Record<string, unknown>[] => {
  const list =
    isObject(result) && Array.isArray(result.data) ? result.data : Array.isArray(result) ? result : [result]
  return list.filter(isObject)
}

/** The patient and facility of one stored document, as its service's declaration says. */
export const patientAndFacility = async (
  app: Application,
  declaration: AuditDeclaration,
  doc: Record<string, unknown>
) => {
  const patient = idString(await declaration.patient(doc, app))
  const facility = idString(await declaration.facility?.(doc, app))
  return { ...(patient ? { patient } : {}), ...(facility ? { facility } : {}) }
}

const isPromise = (value: unknown): value is Promise<unknown> =>
  !!value && typeof (value as { then?: unknown }).then === 'function'

/** `patientAndFacility` without a promise when the declaration answers at once (a page's 20 documents, each call). */
const whereOf = (
  app: Application,
  declaration: AuditDeclaration,
  doc: Record<string, unknown>
): { patient?: string; facility?: string } | Promise<{ patient?: string; facility?: string }> => {
  const patient = declaration.patient(doc, app)
  const facility = declaration.facility?.(doc, app)
  const where = (patientValue: unknown, facilityValue: unknown) => {
    const patientId = idString(patientValue)
    const facilityId = idString(facilityValue)
    return { ...(patientId ? { patient: patientId } : {}), ...(facilityId ? { facility: facilityId } : {}) }
  }
  if (isPromise(patient) || isPromise(facility))
    return Promise.all([patient, facility]).then(([p, f]) => where(p, f))
  return where(patient, facility)
}

/** One entry per (patient, facility) of the stored `docs` (one entry without ids when there are none). */
export const entriesFor = async (
  app: Application,
  declaration: AuditDeclaration,
  base: Omit<AuditEntry, 'ids'>,
  docs: Record<string, unknown>[]
) => {
  if (docs.length === 0) return [{ ...base, ids: [] }]
  const groups = new Map<string, { entry: AuditEntry; ids: Set<string> }>()
  for (const doc of docs) {
    const found = whereOf(app, declaration, doc)
    const where = isPromise(found) ? await found : found
    const key = JSON.stringify([where.patient ?? null, where.facility ?? null])
    let group = groups.get(key)
    if (!group) {
      group = { entry: { ...base, ids: [], ...where }, ids: new Set() }
      groups.set(key, group)
    }
    const id = idString(doc.id)
    if (id && !group.ids.has(id)) {
      group.ids.add(id)
      group.entry.ids.push(id)
    }
  }
  return [...groups.values()].map((group) => group.entry)
}

/** Where a call came from: its address, agent, request id (a new one when it has none) and transport. */
export const callCircumstances = (params: {
  ip?: unknown
  userAgent?: unknown
  requestId?: unknown
  provider?: unknown
}) => ({
  ...(typeof params.ip === 'string' ? { ip: params.ip } : {}),
  ...(typeof params.userAgent === 'string' ? { userAgent: params.userAgent } : {}),
  requestId: typeof params.requestId === 'string' ? params.requestId : randomUUID(),
  ...(params.provider === 'rest' || params.provider === 'socketio'
    ? { via: params.provider as AuditVia }
    : {})
})
