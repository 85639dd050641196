// Invoice totals (total, paid, balance, itemCount) are recomputed from the invoice's items after every
// item or payment change: items hold `amountMinor` (price × quantity) and `reserved` (the sum of their
// payments), so a refresh is one read of the items and one write. The write is conditional on the
// invoice's `totalsRev`, so a refresh that read stale items never overwrites a newer one (on every number of
// processes); within a process, refreshes of one invoice are coalesced so a burst of payments costs a few
// refreshes, each caller waiting for one that started after its own change.
import { GeneralError } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { Invoice } from '../services/billing-invoices/billing-invoices.schema'
import type { Stored } from '../store'
import { toMajor } from '../schema/money'
import { billingInvoicePath } from '../services/billing-invoices/billing-invoices.shared'
import { appSlot } from '../runtime'
import { messageOf, orNull } from './store-calls'

type TotalsDeps = Pick<Deps, 'stores' | 'settings' | 'clock' | 'announce' | 'logger'>
type Refreshed = Stored<Invoice> | null

interface Waiter {
  resolve(value: Refreshed): void
  reject(error: unknown): void
}
interface Slot {
  waiting: Waiter[]
  running: boolean
}

// The refreshes in flight by invoice id. Kept on the app's dependencies object (one per app, built by the
// composition root), so two apps in one process never share them and every caller of one app finds them.
const totalsSlot = appSlot<Map<string, Slot>>('invoice totals in flight')

const computeAndWrite = async (deps: TotalsDeps, invoiceId: string): Promise<Refreshed> => {
  const { invoices, items } = deps.stores
  const decimals = deps.settings.get('billing').moneyDecimals
  for (let attempt = 0; attempt < 25; attempt++) {
    const invoice = await orNull(invoices._get(invoiceId))
    if (!invoice || invoice.deleting) return null
    const startedAt = deps.clock.now()
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
      if (changed) await deps.announce(billingInvoicePath, 'patched', updated)
      return updated
    }
  }
  throw new GeneralError(`Totals of invoice ${invoiceId} could not be refreshed`)
}

const pump = async (deps: TotalsDeps, slots: Map<string, Slot>, invoiceId: string, slot: Slot) => {
  slot.running = true
  while (slot.waiting.length) {
    const batch = slot.waiting
    slot.waiting = []
    try {
      const result = await computeAndWrite(deps, invoiceId)
      for (const waiter of batch) waiter.resolve(result)
    } catch (error) {
      for (const waiter of batch) waiter.reject(error)
    }
  }
  slot.running = false
  slots.delete(invoiceId)
}

/** Recomputes an invoice's totals; resolves with the updated invoice (null if it is gone or being deleted). */
export const refreshInvoiceTotals = (deps: TotalsDeps, invoiceId: string): Promise<Refreshed> => {
  const slots = totalsSlot.ensure(deps, () => new Map())
  let slot = slots.get(invoiceId)
  if (!slot) {
    slot = { waiting: [], running: false }
    slots.set(invoiceId, slot)
  }
  const promise = new Promise<Refreshed>((resolve, reject) => slot.waiting.push({ resolve, reject }))
  if (!slot.running) void pump(deps, slots, invoiceId, slot)
  return promise
}

/**
 * The same, for callers whose own change has already succeeded: a failed refresh is logged, not thrown
 * (the next change, or the recovery sweep, recomputes the totals from the items).
 */
export const refreshTotalsAfterChange = async (deps: TotalsDeps, invoiceId: string): Promise<Refreshed> => {
  try {
    return await refreshInvoiceTotals(deps, invoiceId)
  } catch (error) {
    deps.logger.error(`Refreshing totals of invoice ${invoiceId} failed:`, messageOf(error))
    return null
  }
}
