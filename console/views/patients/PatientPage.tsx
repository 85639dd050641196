// One patient of the current facility: who they are, then tabs — their records by type (newest first), a new
// record, their files (drag and drop or choose, previews of images and PDFs), the notifications sent to them, their
// encounters and bills, their appointments. The tab is kept in the address (#/patients/:id?tab=files).
import { useEffect, useState } from 'preact/hooks'
import { client, errorMessage, personName, useSession, when } from '../../lib/api'
import { Link, navigate } from '../../lib/router'
import { EmptyState, Tabs } from '../../components'
import type { Patient } from '../../../src/services/patients/patients.shared'
import { PatientBills } from '../billing/PatientBills'
import { PatientAppointments } from '../calendar/PatientAppointments'
import { RecordForm } from './RecordForm'
import { RecordsTab } from './RecordsTab'
import { FilesTab } from './FilesTab'
import { NotificationsTab } from './NotificationsTab'

const sourceText: Record<Patient['source'], string> = {
  registered: 'registered by the staff',
  'medical-records': 'from a medical record',
  'medical-encounters': 'from an encounter',
  appointments: 'from an appointment'
}

export function PatientPage({ params }: { params: Record<string, string> }) {
  const session = useSession()
  const [patient, setPatient] = useState<Patient | undefined>()
  const [error, setError] = useState('')
  useEffect(() => {
    setPatient(undefined)
    setError('')
    client
      .service('patients')
      .get(params.id)
      .then(setPatient, (e: unknown) => setError(errorMessage(e)))
  }, [params.id])
  const facility = session.organizations.find((o) => o.id === (patient?.facility ?? session.current))
  if (error)
    return (
      <>
        <h1>Patient</h1>
        <EmptyState title="This patient is not one of this facility’s.">
          <p>
            {error} Find the patient in the <Link href="/patients">patient list</Link> of the facility you
            work in.
          </p>
        </EmptyState>
      </>
    )
  if (!patient) return <p aria-busy="true">Loading the patient…</p>
  const id = patient.patient
  return (
    <>
      <p class="breadcrumb">
        <Link href="/patients">Patients</Link>
      </p>
      <h1 id="patient-name">{personName(patient) || 'Unnamed patient'}</h1>
      <dl class="facts">
        <dt>Email</dt>
        <dd>{patient.email ?? 'none'}</dd>
        <dt>Phone</dt>
        <dd>{patient.mobileNo ?? 'none'}</dd>
        <dt>Patient here since</dt>
        <dd>
          {when(patient.createdAt)} ({sourceText[patient.source]})
        </dd>
      </dl>
      <Tabs
        label="About this patient"
        selected={params.tab}
        onSelect={(tab) => navigate(`/patients/${params.id}?tab=${tab}`)}
        tabs={[
          {
            id: 'records',
            label: 'Records',
            render: () => <RecordsTab patient={id} facility={patient.facility} />
          },
          {
            id: 'new-record',
            label: 'New record',
            render: () => <RecordForm patient={id} facility={facility} />
          },
          {
            id: 'files',
            label: 'Files',
            render: () => <FilesTab patient={id} facility={patient.facility} />
          },
          {
            id: 'notifications',
            label: 'Notifications',
            render: () => <NotificationsTab patient={id} facility={patient.facility} />
          },
          { id: 'bills', label: 'Encounters & bills', render: () => <PatientBills patient={id} /> },
          { id: 'appointments', label: 'Appointments', render: () => <PatientAppointments patient={id} /> }
        ]}
      />
    </>
  )
}
