// Invoice totals (total, paid, balance, itemCount) are recomputed from the invoice's items after every
// item or payment change: items hold `amountMinor` (price × quantity) and `reserved` (the sum of their
// payments), so a refresh is one read of the items and one write. The write is conditional on the
// invoice's `totalsRev`, so a refresh that read stale items never overwrites a newer one (on any number of
// processes); within a process, refreshes of one invoice are coalesced so a burst of payments costs a few
// refreshes, each caller waiting for one that started after its own change.
import { GeneralError } from '@feathersjs/errors'
import type { Application } from '../declarations'
import { logger } from '../logger'
import { toMajor } from './money'
import { announceChange } from '../jobs/announce'
import { billingSettings } from './settings'
import { orNull, paths, stores } from './stores'
import { appSlot } from '../runtime'

interface Waiter {
  resolve(value: any): void
  reject(error: unknown): void
}
interface Slot {
  waiting: Waiter[]
  running: boolean
}

const totalsSlot = appSlot<Map<string, Slot>>('invoice totals in flight')

const computeAndWrite = async (app: Application, invoiceId: string) => {
  const { invoices, items } = stores(app)
  const decimals = billingSettings(app).moneyDecimals
  for (let attempt = 0; attempt < 25; attempt++) {
    const invoice = await orNull(invoices._get(invoiceId))
    if (!invoice || invoice.deleting) return null
    const startedAt = Date.now()
    const list = await items._find({
      query: { invoice: invoiceId, deleting: { $ne: true }, $select: ['amountMinor', 'reserved'] },
      paginate: false
    })
    let total = 0
    let paid = 0
    for (const item of list) {
      total += item.amountMinor ?? 0
      paid += item.reserved ?? 0
    }
    const totals = {
      total: toMajor(total, decimals),
      paid: toMajor(paid, decimals),
      balance: toMajor(total - paid, decimals),
      itemCount: list.length
    }
    const rev = invoice.totalsRev ?? 0
    const updated = await orNull(
      invoices._patch(
        invoiceId,
        { ...totals, totalsAt: startedAt, totalsRev: rev + 1 },
        { query: { totalsRev: rev, deleting: { $ne: true } } }
      )
    )
    if (updated) {
      const changed = (Object.keys(totals) as (keyof typeof totals)[]).some(
        (key) => invoice[key] !== totals[key]
      )
      if (changed) await announceChange(app, paths.invoices, 'patched', updated)
      return updated
    }
  }
  throw new GeneralError(`Totals of invoice ${invoiceId} could not be refreshed`)
}

const pump = async (app: Application, slots: Map<string, Slot>, invoiceId: string, slot: Slot) => {
  slot.running = true
  while (slot.waiting.length) {
    const batch = slot.waiting
    slot.waiting = []
    try {
      const result = await computeAndWrite(app, invoiceId)
      for (const waiter of batch) waiter.resolve(result)
    } catch (error) {
      for (const waiter of batch) waiter.reject(error)
    }
  }
  slot.running = false
  slots.delete(invoiceId)
}

/** Recomputes an invoice's totals; resolves with the updated invoice (null if it is gone or being deleted). */
export const refreshInvoiceTotals = (app: Application, invoiceId: string): Promise<any> => {
  const slots = totalsSlot.ensure(app, () => new Map())
  let slot = slots.get(invoiceId)
  if (!slot) {
    slot = { waiting: [], running: false }
    slots.set(invoiceId, slot)
  }
  const promise = new Promise<any>((resolve, reject) => slot.waiting.push({ resolve, reject }))
  if (!slot.running) void pump(app, slots, invoiceId, slot)
  return promise
}

/**
 * The same, for callers whose own change has already succeeded: a failed refresh is logged, not thrown
 * (the next change, or the recovery sweep, recomputes the totals from the items).
 */
export const refreshTotalsAfterChange = async (app: Application, invoiceId: string) => {
  try {
    return await refreshInvoiceTotals(app, invoiceId)
  } catch (error: any) {
    logger.error(`Refreshing totals of invoice ${invoiceId} failed:`, error?.message ?? error)
    return null
  }
}
