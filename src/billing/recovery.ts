// Crash recovery for billing's multi-step operations. Every step they take is idempotent and every
// operation leaves a durable marker before its first irreversible step, so finishing one is always safe,
// even while another process is still working on it:
// - `deletingAt` on an invoice or item: a cascade (cascade.ts) → run it again;
// - `finalizePending` on an invoice: a finalization (finalize.ts) → finalize the remaining draft items;
// - a payment with status `pending`, or a `pending` entry on an item (payments.ts) → record or drop it;
// - at startup, a sweep over recently changed items and invoices recomputes totals and removes items left
//   behind by a crash in the middle of an item creation (invoice gone, or finalized meanwhile).
// At startup on the embedded engine (one process owns the data) everything unfinished is stale; on MongoDB
// (several processes) payments count as stale after `billing.staleAfterMs`, so a payment still in flight on
// another process is left alone. A timer (`billing.recoveryIntervalMs`) repeats the stale-operation pass.
// With several instances (REDIS_URL) a pass runs under a lease (src/cluster/lease.ts): instances starting or
// ticking together run it once, the others skip it (every step stays idempotent should a lease expire mid-pass).
import type { Application } from '../declarations'
import type { Deps, Store } from '../deps'
import type { Stored } from '../store'
import type { Item } from '../services/billing-items/billing-items.schema'
import { removeEncounterCascade, removeInvoiceCascade, removeItemCascade } from './cascade'
import { completeFinalize } from './finalize'
import { releaseReservation, settleReservation } from './payments'
import { completeVoid } from './void'
import { isPending, messageOf, orNull } from './store-calls'
import { refreshTotalsAfterChange } from './totals'
import { invoiceLedger, recoverCaptures } from './intents'
import { recoveryJob, recoveryPass, staleCutoff } from '../jobs/recovery-loop'
import { purgeExpiredKeys } from './idempotency'

export interface RecoveryCutoffs {
  /** Cascades and finalizations marked before this time are finished. */
  operationsBefore: number
  /** Pending payments and reservations made before this time are resolved. */
  paymentsBefore: number
  /** Items and invoices changed since this time are swept (totals, leftovers); null skips the sweep. */
  sweepSince: number | null
}

export interface RecoveryReport {
  encounterCascades: number
  voidsCompleted: number
  invoiceCascades: number
  itemCascades: number
  finalizations: number
  paymentsRecorded: number
  paymentsDropped: number
  reservationsReleased: number
  leftoverItems: number
  encountersLinked: number
  invoicesRefreshed: number
}

/** Every document of `store` matching `query` (an internal call: no pagination). */
const all = <T>(store: Store<T>, query: Record<string, unknown>) => store._find({ query, paginate: false })

/** A pending entry of an item's reservations (src/billing/payments.ts). */
interface Reservation {
  key: string
  amount: number
  at: number
}

const reservationsOf = (item: Stored<Item>): Reservation[] => item.pending ?? []

export const recoverBilling = async (deps: Deps, cutoffs: RecoveryCutoffs): Promise<RecoveryReport> => {
  const { invoices, items, payments, encounters } = deps.stores
  const report: RecoveryReport = {
    encounterCascades: 0,
    voidsCompleted: 0,
    invoiceCascades: 0,
    itemCascades: 0,
    finalizations: 0,
    paymentsRecorded: 0,
    paymentsDropped: 0,
    reservationsReleased: 0,
    leftoverItems: 0,
    encountersLinked: 0,
    invoicesRefreshed: 0
  }
  const touched = new Set<string>()
  const recovering = { recovering: true }

  for (const encounter of await all(encounters, {
    deleting: true,
    deletingAt: { $lt: cutoffs.operationsBefore }
  })) {
    await orNull(removeEncounterCascade(deps, encounter.id, recovering)).catch((error: unknown) =>
      deps.logger.warn(`Encounter ${encounter.id} removal undone: ${messageOf(error)}`)
    )
    report.encounterCascades++
  }
  for (const invoice of await all(invoices, { deletingAt: { $lt: cutoffs.operationsBefore } })) {
    await orNull(removeInvoiceCascade(deps, invoice.id, recovering))
    report.invoiceCascades++
  }
  for (const item of await all(items, { deletingAt: { $lt: cutoffs.operationsBefore } })) {
    await orNull(removeItemCascade(deps, item.id, recovering))
    report.itemCascades++
  }
  for (const invoice of await all(invoices, { 'finalizePending.at': { $lt: cutoffs.operationsBefore } })) {
    await completeFinalize(deps, invoice, recovering)
    report.finalizations++
  }

  // Voids whose release of the amount (or its bookkeeping) did not finish.
  for (const payment of await all(payments, {
    voidPending: true,
    updatedAt: { $lt: cutoffs.operationsBefore }
  })) {
    await completeVoid(deps, payment, recovering)
    report.voidsCompleted++
  }

  // Payments inserted but never recorded: recorded if their reservation was made, dropped otherwise.
  for (const payment of await all(payments, {
    status: 'pending',
    createdAt: { $lt: cutoffs.paymentsBefore }
  })) {
    const item = await orNull(items._get(payment.item))
    const reserved =
      !!item && !item.deleting && reservationsOf(item).some((entry) => entry.key === payment.id)
    if (reserved) {
      await orNull(payments._patch(payment.id, { status: 'draft' }, { query: { status: 'pending' } }))
      await settleReservation(deps, item.id, payment.id)
      report.paymentsRecorded++
    } else {
      await orNull(payments._remove(payment.id, { query: { status: 'pending' } }))
      report.paymentsDropped++
    }
    if (item) touched.add(item.invoice)
  }
  // Reservations whose recording never finished: kept if their payment exists, released if it is gone.
  for (const item of await all(items, { 'pending.at': { $lt: cutoffs.paymentsBefore } })) {
    for (const entry of reservationsOf(item)) {
      if (entry.at >= cutoffs.paymentsBefore) continue
      const payment = await orNull(payments._get(entry.key))
      if (!payment) {
        if (await releaseReservation(deps, item.id, entry.key, entry.amount)) report.reservationsReleased++
      } else {
        if (isPending(payment)) {
          await orNull(payments._patch(payment.id, { status: 'draft' }, { query: { status: 'pending' } }))
          report.paymentsRecorded++
        }
        await settleReservation(deps, item.id, entry.key)
      }
      touched.add(item.invoice)
    }
  }

  if (cutoffs.sweepSince !== null) {
    const changed = await all(items, { updatedAt: { $gte: cutoffs.sweepSince } })
    const byInvoice = new Map<string, Stored<Item>[]>()
    for (const item of changed) byInvoice.set(item.invoice, [...(byInvoice.get(item.invoice) ?? []), item])
    for (const [invoiceId, list] of byInvoice) {
      const invoice = await orNull(invoices._get(invoiceId))
      for (const item of list) {
        // An item whose creation was cut short: its invoice is gone, or was finalized while it was inserted.
        const leftover =
          !invoice || (invoice.status === 'finalized' && !invoice.finalizePending && item.status === 'draft')
        if (leftover && !item.deleting) {
          await orNull(removeItemCascade(deps, item.id, recovering))
          report.leftoverItems++
        }
      }
      if (invoice) touched.add(invoiceId)
    }
    // An encounter whose invoice was created but not yet recorded on it.
    for (const invoice of await all(invoices, { createdAt: { $gte: cutoffs.sweepSince } })) {
      if (!invoice.encounter || invoice.deleting) continue
      const linked = await orNull(
        encounters._patch(invoice.encounter, { invoice: invoice.id }, { query: { invoice: null } })
      )
      if (!linked) continue
      report.encountersLinked++
      // A deletion of the invoice that ran meanwhile (on another process) must not be left pointed at.
      const still = await orNull(invoices._get(invoice.id))
      if (!still || still.deleting)
        await orNull(
          encounters._patch(invoice.encounter, { invoice: null }, { query: { invoice: invoice.id } })
        )
    }
  }

  for (const invoiceId of touched) {
    if (await refreshTotalsAfterChange(deps, invoiceId)) report.invoicesRefreshed++
  }
  return report
}

/** One recovery pass on one instance at a time: the report, or null when another instance is running a pass. */
export const recoverBillingOnce = (
  app: Application,
  deps: Deps,
  cutoffs: RecoveryCutoffs
): Promise<RecoveryReport | null> => recoveryPass(app, 'billing', () => recoverBilling(deps, cutoffs))

const summary = (report: RecoveryReport) =>
  Object.entries(report)
    .filter(([, count]) => count > 0)
    .map(([key, count]) => `${key}=${count}`)
    .join(' ')

/**
 * The start-up and periodic recovery passes (src/jobs/recovery-loop.ts), a job of src/ops/jobs.ts. The loop itself
 * (its lease and the engine's stale cutoff) still takes the app; the passes take `deps`.
 */
export const billingRecoveryJob = (app: Application, deps: Deps) =>
  recoveryJob(app, 'billing', {
    intervalMs: () => deps.settings.get('billing').recoveryIntervalMs,
    pass: async (when) => {
      const settings = deps.settings.get('billing')
      const now = deps.clock.now()
      // At start-up: every marked operation (their steps are idempotent), payments as stale as the engine allows,
      // and the totals of recently changed invoices; afterwards what is older than the stale cutoff.
      const cutoffs: RecoveryCutoffs =
        when === 'startup'
          ? {
              operationsBefore: now,
              paymentsBefore: staleCutoff(app, when, settings.staleAfterMs),
              sweepSince: now - settings.totalsSweepWindowMs
            }
          : {
              operationsBefore: now - settings.staleAfterMs,
              paymentsBefore: now - settings.staleAfterMs,
              sweepSince: null
            }
      return summary(await recoverBilling(deps, cutoffs))
    }
  })

/**
 * Captures interrupted by a crash are finished or undone at start-up (on MongoDB, where other instances may be
 * capturing, only those older than billing.staleAfterMs) and then every billing.recoveryIntervalMs; the same pass
 * removes expired idempotency keys.
 */
export const paymentIntentsRecoveryJob = (app: Application, deps: Deps) =>
  recoveryJob(app, 'payment-intents', {
    intervalMs: () => deps.settings.get('billing').recoveryIntervalMs,
    pass: async (when) => {
      const billing = deps.settings.get('billing')
      const finished = await recoverCaptures(
        deps,
        invoiceLedger(deps),
        staleCutoff(app, when, billing.staleAfterMs)
      )
      // Idempotency keys (of intents and billing customers) whose 24 hours are over.
      const purged = await purgeExpiredKeys(deps)
      const done = [
        finished ? `${finished} interrupted captures settled` : '',
        purged ? `${purged} expired idempotency keys removed` : ''
      ].filter(Boolean)
      return done.length ? done.join(', ') : null
    }
  })
