// A patient's encounters and their bills (the patient page's "Encounters & bills" tab).
import { EmptyState } from '../../components'

export function PatientBills({ patient }: { patient: string }) {
  return (
    <section aria-labelledby={`bills-${patient}`}>
      <h3 id={`bills-${patient}`}>Encounters and bills</h3>
      <EmptyState title="Encounters and bills are not shown here yet." />
    </section>
  )
}
