// The current facility's patients: search by name, email or phone as you type (the server's /patients search,
// one call per pause), each a link to their page; staff who may register a patient get the form for it.
import { useState } from 'preact/hooks'
import { client, useDebounced, useLive, useSession, personName } from '../../lib/api'
import { Link, navigate } from '../../lib/router'
import { EmptyState, Field, Form, Table } from '../../components'
import type { Patient } from '../../../src/services/patients/patients.shared'

const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim()

function RegisterPatient({ facility }: { facility: string }) {
  return (
    <Form
      id="register-patient"
      title="Register a new patient"
      heading="h2"
      submitLabel="Register patient"
      onSubmit={async (data) => {
        const patient = await client.service('patients').create({
          facility,
          firstName: text(data, 'firstName'),
          ...(text(data, 'lastName') ? { lastName: text(data, 'lastName') } : {}),
          email: text(data, 'email'),
          ...(text(data, 'mobileNo') ? { mobileNo: text(data, 'mobileNo') } : {})
        })
        navigate(`/patients/${patient.id}`)
      }}
    >
      <Field label="First name" name="firstName" autoComplete="off" required />
      <Field label="Last name" name="lastName" autoComplete="off" />
      <Field
        label="Email"
        name="email"
        type="email"
        autoComplete="off"
        required
        hint="Their account: an existing one with this email is used; else one is made for them to claim."
      />
      <Field label="Mobile phone" name="mobileNo" type="tel" autoComplete="off" />
    </Form>
  )
}

export function PatientList(_props: { params: Record<string, string> }) {
  const session = useSession()
  const facility = session.current
  const [typed, setTyped] = useState('')
  const q = useDebounced(typed.trim(), 250)
  const found = useLive<Patient>(
    'patients',
    facility ? { facility, ...(q ? { q } : {}), $limit: 50, $sort: { lastName: 1, firstName: 1 } } : null
  )
  const mayRegister =
    facility !== '' &&
    (session.hasPrivilege(facility, 'patients') || session.hasPrivilege(facility, 'scheduling'))
  return (
    <>
      <h1>Patients</h1>
      <div class="columns">
        <section aria-label="Patient list">
          <div class="search" role="search">
            <Field
              label="Find a patient"
              name="q"
              type="search"
              id="patient-search"
              autoComplete="off"
              value={typed}
              hint="Type the start of a name, an email or a phone number."
              onInput={(event) => setTyped(event.currentTarget.value)}
            />
          </div>
          <p class="muted" role="status" id="patient-count">
            {found.loading
              ? 'Searching…'
              : q
                ? `${found.total} ${found.total === 1 ? 'patient matches' : 'patients match'} “${q}”.`
                : `${found.total} ${found.total === 1 ? 'patient' : 'patients'} in ${session.organizationName(facility)}.`}
          </p>
          {found.error && (
            <p class="form-error" role="alert">
              {found.error}
            </p>
          )}
          {!found.loading && found.data.length === 0 && !found.error ? (
            <EmptyState title={q ? `No patient matches “${q}”.` : 'No patients yet.'}>
              <p>
                Someone becomes this facility’s patient when they are registered here, or when a record, an
                encounter or an appointment is created for them here.
                {mayRegister ? ' Register a new patient with the form.' : ''}
              </p>
            </EmptyState>
          ) : (
            found.data.length > 0 && (
              <Table
                id="patients"
                caption="Patients"
                rows={found.data}
                rowKey={(p) => p.id}
                rowAttributes={(p) => ({ 'data-id': p.id })}
                columns={[
                  {
                    label: 'Name',
                    cell: (p) => <Link href={`/patients/${p.id}`}>{personName(p) || 'Unnamed patient'}</Link>
                  },
                  { label: 'Email', cell: (p) => p.email ?? '' },
                  { label: 'Phone', cell: (p) => p.mobileNo ?? '' }
                ]}
              />
            )
          )}
        </section>
        {mayRegister && (
          <section class="card">
            <RegisterPatient facility={facility} />
          </section>
        )}
      </div>
    </>
  )
}
