// What the audit trail records of billing documents (docs/audit-trail.md): an invoice billed to a patient
// (`subjectType: 'patient'`) names that patient; its items and payments name the patient of their invoice.
import type { AuditDeclaration } from '../access/rules'
import type { Stores } from '../deps'
import { orNull } from './store-calls'

interface Billed {
  subjectType?: unknown
  subject?: unknown
}

const patientOfInvoice = (invoice: Billed | null | undefined): string | undefined =>
  invoice?.subjectType === 'patient' && typeof invoice.subject === 'string' ? invoice.subject : undefined

export const invoiceAudit: AuditDeclaration = {
  fields: ['subjectType', 'subject', 'facility'],
  patient: patientOfInvoice,
  facility: (doc) => (typeof doc.facility === 'string' ? doc.facility : undefined)
}

/** The audit of an invoice's children (items, payments, intents): the patient is their invoice's, read from
 *  `stores.invoices` when the audit asks (the stores are filled in once every service registered). */
export const invoiceChildAudit = (stores: Pick<Stores, 'invoices'>): AuditDeclaration => ({
  fields: ['invoice', 'facility'],
  patient: async (doc) =>
    typeof doc.invoice === 'string'
      ? patientOfInvoice(await orNull(stores.invoices._get(doc.invoice)))
      : undefined,
  facility: (doc) => (typeof doc.facility === 'string' ? doc.facility : undefined)
})
