// New billing documents as stored: server-owned state, totals and bookkeeping fields start here.
import type { Deps } from '../deps'

export interface InvoiceInput {
  facility: string
  type: string
  subject: string
  subjectType: string
  currency?: string
  dueAt?: number
  notes?: string
  encounter?: string
  createdAt: number
  createdBy: string | null
}

/** Inserts a draft invoice with zero totals. */
export const createInvoiceRecord = (deps: Pick<Deps, 'stores' | 'settings'>, input: InvoiceInput) => {
  const settings = deps.settings.get('billing')
  return deps.stores.invoices._create({
    ...input,
    currency: input.currency ?? settings.currency,
    encounter: input.encounter ?? null,
    status: 'draft',
    finalizedAt: null,
    finalizedBy: null,
    total: 0,
    paid: 0,
    balance: 0,
    itemCount: 0,
    totalsRev: 0,
    finalizePending: null,
    deleting: false,
    updatedAt: input.createdAt
  })
}
