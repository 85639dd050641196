// New billing documents as stored: server-owned state, totals and bookkeeping fields start here.
import type { Application } from '../declarations'
import { billingSettings } from './settings'
import { stores } from './stores'

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
export const createInvoiceRecord = (app: Application, input: InvoiceInput) => {
  const settings = billingSettings(app)
  return stores(app).invoices._create({
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
