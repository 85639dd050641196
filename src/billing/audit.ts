// What the audit trail records of billing documents (docs/audit-trail.md): an invoice billed to a patient
// (`subjectType: 'patient'`) names that patient; its items and payments name the patient of their invoice.
import type { AuditDeclaration } from '../access/rules'
import { orNull, stores } from './stores'

const patientOfInvoice = (invoice: any): string | undefined =>
  invoice?.subjectType === 'patient' && typeof invoice.subject === 'string' ? invoice.subject : undefined

export const invoiceAudit: AuditDeclaration = {
  fields: ['subjectType', 'subject', 'facility'],
  patient: patientOfInvoice,
  facility: (doc) => (typeof doc.facility === 'string' ? doc.facility : undefined)
}

export const invoiceChildAudit: AuditDeclaration = {
  fields: ['invoice', 'facility'],
  patient: async (doc, app) =>
    typeof doc.invoice === 'string'
      ? patientOfInvoice(await orNull(stores(app).invoices._get(doc.invoice)))
      : undefined,
  facility: (doc) => (typeof doc.facility === 'string' ? doc.facility : undefined)
}
