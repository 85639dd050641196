// What billing documents look like to clients: internal bookkeeping (reservation counters, cascade and
// finalize markers, revisions) never leaves the server; items gain `paid` and `balance`.
import type { Application, HookContext, NextFunction } from '../declarations'
import { toMajor } from './money'
import { billingSettings } from './settings'

export const invoiceInternals = ['totalsRev', 'totalsAt', 'finalizePending', 'deleting', 'deletingAt']
export const itemInternals = ['amountMinor', 'reserved', 'pending', 'deleting', 'deletingAt', 'voided']
export const paymentInternals = ['voidPending']
export const encounterInternals = ['deleting', 'deletingAt']

const omit = (doc: any, fields: string[]) => {
  const copy = { ...doc }
  for (const field of fields) delete copy[field]
  return copy
}

type Presenter = (doc: any, app: Application) => any

export const presentInvoice: Presenter = (doc) => omit(doc, invoiceInternals)

export const presentItem: Presenter = (doc, app) => {
  const out = omit(doc, itemInternals)
  if (typeof doc.amountMinor === 'number') {
    const decimals = billingSettings(app).moneyDecimals
    const reserved = typeof doc.reserved === 'number' ? doc.reserved : 0
    out.paid = toMajor(reserved, decimals)
    out.balance = toMajor(doc.amountMinor - reserved, decimals)
  }
  return out
}

export const presentEncounter: Presenter = (doc) => omit(doc, encounterInternals)

export const presentPayment: Presenter = (doc) => omit(doc, paymentInternals)

export const presentPlain: Presenter = (doc) => doc

const presenters: Record<string, Presenter> = {
  'billing-invoices': presentInvoice,
  'billing-items': presentItem,
  'medical-encounters': presentEncounter,
  'billing-payments': presentPayment
}

/** Other domains declare the client view of their documents here (used by `present` and `announceChange`). */
export const registerPresenter = (path: string, presenter: Presenter) => {
  presenters[path] = presenter
}

/** A presenter that leaves internal bookkeeping fields out. */
export const omitting =
  (fields: string[]): Presenter =>
  (doc) =>
    omit(doc, fields)

/** The client view of a document of `path`. */
export const present = (app: Application, path: string, doc: any) => (doc && typeof doc === 'object' ? (presenters[path] ?? presentPlain)(doc, app) : doc)

/** Around hook: results and events carry the client view. */
export const presentResults = (path: string) => async (context: HookContext, next: NextFunction) => {
  await next()
  const result: any = context.result
  if (!result) return
  const map = (doc: any) => present(context.app, path, doc)
  const shown = Array.isArray(result)
    ? result.map(map)
    : context.method === 'find' && Array.isArray(result.data)
      ? { ...result, data: result.data.map(map) }
      : map(result)
  context.result = shown
  context.dispatch = shown
}
