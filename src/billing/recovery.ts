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
import { logger } from '../logger'
import { removeEncounterCascade, removeInvoiceCascade, removeItemCascade } from './cascade'
import { completeFinalize } from './finalize'
import { releaseReservation, settleReservation } from './payments'
import { completeVoid } from './void'
import { billingSettings } from './settings'
import { orNull, stores } from './stores'
import { refreshTotalsAfterChange } from './totals'
import { invoiceLedger, recoverCaptures } from './intents'
import { depsSlot } from '../deps'
import { recoveryJob, recoveryPass, staleCutoff } from '../jobs/recovery-loop'
import { purgeExpiredKeys } from '../hooks/idempotency-key'

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

const all = (service: any, query: Record<string, unknown>) =>
  service._find({ query, paginate: false }) as Promise<any[]>

export const recoverBilling = async (app: Application, cutoffs: RecoveryCutoffs): Promise<RecoveryReport> => {
  const { invoices, items, payments, encounters } = stores(app)
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
    await orNull(removeEncounterCascade(app, encounter.id, recovering)).catch((error) =>
      logger.warn(`Encounter ${encounter.id} removal undone: ${error?.message}`)
    )
    report.encounterCascades++
  }
  for (const invoice of await all(invoices, { deletingAt: { $lt: cutoffs.operationsBefore } })) {
    await orNull(removeInvoiceCascade(app, invoice.id, recovering))
    report.invoiceCascades++
  }
  for (const item of await all(items, { deletingAt: { $lt: cutoffs.operationsBefore } })) {
    await orNull(removeItemCascade(app, item.id, recovering))
    report.itemCascades++
  }
  for (const invoice of await all(invoices, { 'finalizePending.at': { $lt: cutoffs.operationsBefore } })) {
    await completeFinalize(app, invoice, recovering)
    report.finalizations++
  }

  // Voids whose release of the amount (or its bookkeeping) did not finish.
  for (const payment of await all(payments, {
    voidPending: true,
    updatedAt: { $lt: cutoffs.operationsBefore }
  })) {
    await completeVoid(app, payment, recovering)
    report.voidsCompleted++
  }

  // Payments inserted but never recorded: recorded if their reservation was made, dropped otherwise.
  for (const payment of await all(payments, {
    status: 'pending',
    createdAt: { $lt: cutoffs.paymentsBefore }
  })) {
    const item = await orNull(items._get(payment.item))
    const reserved =
      !!item && !item.deleting && (item.pending ?? []).some((entry: any) => entry.key === payment.id)
    if (reserved) {
      await orNull(payments._patch(payment.id, { status: 'draft' }, { query: { status: 'pending' } }))
      await settleReservation(app, item.id, payment.id)
      report.paymentsRecorded++
    } else {
      await orNull(payments._remove(payment.id, { query: { status: 'pending' } }))
      report.paymentsDropped++
    }
    if (item) touched.add(item.invoice)
  }
  // Reservations whose recording never finished: kept if their payment exists, released if it is gone.
  for (const item of await all(items, { 'pending.at': { $lt: cutoffs.paymentsBefore } })) {
    for (const entry of item.pending ?? []) {
      if (entry.at >= cutoffs.paymentsBefore) continue
      const payment = await orNull(payments._get(entry.key))
      if (!payment) {
        if (await releaseReservation(app, item.id, entry.key, entry.amount)) report.reservationsReleased++
      } else {
        if (payment.status === 'pending') {
          await orNull(payments._patch(payment.id, { status: 'draft' }, { query: { status: 'pending' } }))
          report.paymentsRecorded++
        }
        await settleReservation(app, item.id, entry.key)
      }
      touched.add(item.invoice)
    }
  }

  if (cutoffs.sweepSince !== null) {
    const changed = await all(items, { updatedAt: { $gte: cutoffs.sweepSince } })
    const byInvoice = new Map<string, any[]>()
    for (const item of changed) byInvoice.set(item.invoice, [...(byInvoice.get(item.invoice) ?? []), item])
    for (const [invoiceId, list] of byInvoice) {
      const invoice = await orNull(invoices._get(invoiceId))
      for (const item of list) {
        // An item whose creation was cut short: its invoice is gone, or was finalized while it was inserted.
        const leftover =
          !invoice || (invoice.status === 'finalized' && !invoice.finalizePending && item.status === 'draft')
        if (leftover && !item.deleting) {
          await orNull(removeItemCascade(app, item.id, recovering))
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
    if (await refreshTotalsAfterChange(app, invoiceId)) report.invoicesRefreshed++
  }
  return report
}

/** One recovery pass on one instance at a time: the report, or null when another instance is running a pass. */
export const recoverBillingOnce = (
  app: Application,
  cutoffs: RecoveryCutoffs
): Promise<RecoveryReport | null> => recoveryPass(app, 'billing', () => recoverBilling(app, cutoffs))

const summary = (report: RecoveryReport) =>
  Object.entries(report)
    .filter(([, count]) => count > 0)
    .map(([key, count]) => `${key}=${count}`)
    .join(' ')

/** The start-up and periodic recovery passes (src/jobs/recovery-loop.ts), a job of src/ops/jobs.ts. */
export const billingRecoveryJob = (app: Application) =>
  recoveryJob(app, 'billing', {
    intervalMs: () => billingSettings(app).recoveryIntervalMs,
    pass: async (when) => {
      const settings = billingSettings(app)
      const now = Date.now()
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
      return summary(await recoverBilling(app, cutoffs))
    }
  })

/**
 * Captures interrupted by a crash are finished or undone at start-up (on MongoDB, where other instances may be
 * capturing, only those older than billing.staleAfterMs) and then every billing.recoveryIntervalMs; the same pass
 * removes expired idempotency keys.
 */
export const paymentIntentsRecoveryJob = (app: Application) =>
  recoveryJob(app, 'payment-intents', {
    intervalMs: () => app.get('billing').recoveryIntervalMs,
    pass: async (when) => {
      const finished = await recoverCaptures(
        depsSlot.require(app),
        invoiceLedger(app),
        staleCutoff(app, when, app.get('billing').staleAfterMs)
      )
      // Idempotency keys (of intents and billing customers) whose 24 hours are over.
      const purged = await purgeExpiredKeys(app)
      const done = [
        finished ? `${finished} interrupted captures settled` : '',
        purged ? `${purged} expired idempotency keys removed` : ''
      ].filter(Boolean)
      return done.length ? done.join(', ') : null
    }
  })
