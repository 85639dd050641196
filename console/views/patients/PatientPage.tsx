// One patient of the current facility: records by type, new record, attachments, notifications, bills, appointments.
import { Tabs } from '../../components'
import { PatientBills } from '../billing/PatientBills'
import { PatientAppointments } from '../calendar/PatientAppointments'

export function PatientPage({ params }: { params: Record<string, string> }) {
  const patient = params.id
  return (
    <>
      <h1>Patient</h1>
      <Tabs
        label="Patient"
        tabs={[
          { id: 'bills', label: 'Encounters & bills', render: () => <PatientBills patient={patient} /> },
          {
            id: 'appointments',
            label: 'Appointments',
            render: () => <PatientAppointments patient={patient} />
          }
        ]}
      />
    </>
  )
}
