// A patient's appointments at the current facility (the patient page's "Appointments" tab), newest first, live:
// check in a scheduled one; booking is done in the calendar (a free slot of a provider).
import { useState } from 'preact/hooks'
import { client, errorMessage, useLive, useSession } from '../../lib/api'
import { Link } from '../../lib/router'
import { EmptyState, Status, Table } from '../../components'
import type { Appointment } from '../../../src/services/appointments/appointments.shared'
import { appointmentStatusLabel, formatDateTime } from './time'

export function PatientAppointments({ patient }: { patient: string }) {
  const { current: facility } = useSession()
  const appointments = useLive<Appointment>(
    'appointments',
    facility ? { facility, patient, $sort: { start: -1 }, $limit: 50 } : null
  )
  const [status, setStatus] = useState('')
  const [problem, setProblem] = useState('')
  const zone = appointments.data[0]?.timeZone ?? 'UTC'
  return (
    <section aria-labelledby={`appointments-${patient}`}>
      <h2 id={`appointments-${patient}`}>Appointments</h2>
      {appointments.data.length === 0 ? (
        <EmptyState
          title={appointments.loading ? 'Loading appointments…' : 'No appointments at this facility.'}
        >
          Book one from a free slot in the <Link href="/calendar">calendar</Link>.
        </EmptyState>
      ) : (
        <>
          <p class="hint">Times in {zone}, the facility's time zone.</p>
          <Table
            caption="Appointments, newest first"
            rows={appointments.data}
            rowKey={(a) => a.id}
            rowAttributes={(a) => ({ 'data-id': a.id })}
            columns={[
              { label: 'When', cell: (a) => formatDateTime(a.start, a.timeZone ?? zone) },
              { label: 'With', cell: (a) => a.names?.provider ?? 'Unnamed provider' },
              { label: 'Status', cell: (a) => appointmentStatusLabel[a.status] ?? a.status },
              { label: 'Reason', cell: (a) => a.reason ?? '' },
              {
                label: 'Actions',
                cell: (a) =>
                  a.status === 'scheduled' ? (
                    <button
                      type="button"
                      onClick={async () => {
                        setProblem('')
                        try {
                          await client.service('appointments').patch(a.id, { status: 'checked-in' })
                          setStatus('Checked in.')
                        } catch (error) {
                          setProblem(errorMessage(error))
                        }
                      }}
                    >
                      Check in
                    </button>
                  ) : (
                    ''
                  )
              }
            ]}
          />
        </>
      )}
      <Status>{status}</Status>
      <p class="form-error" role="alert">
        {problem}
      </p>
    </section>
  )
}
