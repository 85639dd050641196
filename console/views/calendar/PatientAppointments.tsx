// A patient's appointments (the patient page's "Appointments" tab).
import { EmptyState } from '../../components'

export function PatientAppointments({ patient }: { patient: string }) {
  return (
    <section aria-labelledby={`appointments-${patient}`}>
      <h3 id={`appointments-${patient}`}>Appointments</h3>
      <EmptyState title="Appointments are not shown here yet." />
    </section>
  )
}
