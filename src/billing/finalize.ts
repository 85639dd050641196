// Finalizing: an invoice — directly or through PATCH /medical-encounters/:id {finalize: true}
// — becomes finalized together with every one of its items (and, through an encounter, the encounter).
// All or nothing: the first write finalizes the invoice atomically (only if it is still a draft and not
// being deleted) and records `finalizePending` on it in the same write; that is the point of no return and
// the durable record of the rest. Then the draft items are finalized, then the encounter, then the marker
// is cleared. If the process dies in between, startup recovery completes the same steps.
// Items created concurrently re-check their invoice after insertion (items hook), so none stays a draft.
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Query } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { within } from '../access/rules'
import type { Invoice } from '../services/billing-invoices/billing-invoices.schema'
import type { Encounter } from '../services/medical-encounters/medical-encounters.schema'
import { billingInvoicePath } from '../services/billing-invoices/billing-invoices.shared'
import { billingItemPath } from '../services/billing-items/billing-items.shared'
import { medicalEncounterPath } from '../services/medical-encounters/medical-encounters.shared'
import { faultPoint } from './fault'
import { multi, orNull } from './store-calls'

export interface FinalizeStamp {
  finalizedAt: number | null
  finalizedBy: string | null
}

interface Pending {
  encounter: string | null
  encounterFields?: Record<string, unknown>
  at: number
}

/** Completes a finalization whose invoice write is done (also used by recovery). */
export const completeFinalize = async (
  deps: Deps,
  invoice: Stored<Invoice>,
  options: { recovering?: boolean } = {}
) => {
  const { invoices, items, encounters } = deps.stores
  const pending: Pending | null = invoice.finalizePending ?? null
  const stamp: FinalizeStamp = { finalizedAt: invoice.finalizedAt, finalizedBy: invoice.finalizedBy ?? null }
  const finalizedItems = await items._patch(
    null,
    { status: 'finalized', ...stamp, updatedAt: deps.clock.now() },
    multi({ invoice: invoice.id, status: 'draft', deleting: { $ne: true } })
  )
  await deps.announce(billingItemPath, 'patched', finalizedItems)
  faultPoint('finalize:items', options)

  let encounter: Stored<Encounter> | null = null
  if (pending?.encounter) {
    encounter = await orNull(
      encounters._patch(
        pending.encounter,
        { ...(pending.encounterFields ?? {}), status: 'finalized', ...stamp, updatedAt: deps.clock.now() },
        { query: { status: 'draft' } }
      )
    )
  }
  const done = await orNull(invoices._patch(invoice.id, { finalizePending: null }))
  // A client call's own result is its event; recovery has no client call, so it announces both.
  if (options.recovering) {
    if (encounter) await deps.announce(medicalEncounterPath, 'patched', encounter)
    if (done) await deps.announce(billingInvoicePath, 'patched', done)
  }
  return { invoice: done ?? invoice, items: finalizedItems, encounter }
}

/**
 * Finalizes a draft invoice (applying `invoiceFields` in the same write) and its items, and `encounter`
 * (applying its `fields`) when given. `scope` (the caller's finalize scope) is part of the invoice write's query.
 * 404 when the invoice is gone or being deleted, 409 when it is no longer a draft.
 */
export const finalizeInvoice = async (
  deps: Deps,
  invoiceId: string,
  by: string | null,
  encounter?: { id: string; fields?: Record<string, unknown> },
  invoiceFields: Record<string, unknown> = {},
  scope?: Query
) => {
  const { invoices } = deps.stores
  const now = deps.clock.now()
  const pending: Pending = {
    encounter: encounter?.id ?? null,
    ...(encounter?.fields ? { encounterFields: encounter.fields } : {}),
    at: now
  }
  const invoice = await orNull(
    invoices._patch(
      invoiceId,
      {
        ...invoiceFields,
        status: 'finalized',
        finalizedAt: now,
        finalizedBy: by,
        finalizePending: pending,
        updatedAt: now
      },
      { query: within({ status: 'draft', deleting: { $ne: true } }, scope) }
    )
  )
  if (!invoice) {
    const fresh = await orNull(invoices._get(invoiceId, { query: within({}, scope) }))
    if (!fresh || fresh.deleting) throw new NotFound(`No billing invoice found for id '${invoiceId}'`)
    throw new Conflict(`Billing invoice ${invoiceId} is already finalized`, {
      invoice: invoiceId,
      status: fresh.status
    })
  }
  faultPoint('finalize:invoice')
  return completeFinalize(deps, invoice)
}
