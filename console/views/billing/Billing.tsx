// Billing at the current facility: its encounters and their bills (newest first), and the service catalogue with
// prices in their currency. A new encounter is opened for a patient picked by name (or from the patient's page).
import { client, useLive, useSession } from '../../lib/api'
import { EmptyState, ErrorText, Field, Form, PatientPicker, Table } from '../../components'
import type { Encounter } from '../../../src/services/medical-encounters/medical-encounters.shared'
import type { Service } from '../../../src/services/services/services.shared'
import { EncounterBills } from './EncounterBills'
import { Amount } from './Amount'
import { encounterTypes, label, serviceTypes } from './words'

export function Billing(_props: { params: Record<string, string> }) {
  const session = useSession()
  const facility = session.current
  const encounters = useLive<Encounter>(
    'medical-encounters',
    facility ? { facility, $sort: { createdAt: -1 }, $limit: 50 } : null
  )
  const services = useLive<Service>(
    'services',
    facility ? { facility, $limit: 200, $sort: { name: 1 } } : null
  )
  const canBill = !!facility && session.hasPrivilege(facility, 'billing')
  if (!facility)
    return (
      <section>
        <h1>Billing</h1>
        <EmptyState title="Billing works in a facility, and you are not a member of one yet." />
      </section>
    )
  return (
    <section>
      <h1>Billing at {session.organizationName(facility)}</h1>
      <h2>Encounters and bills</h2>
      <ErrorText message={encounters.error} />
      {encounters.data.length === 0 && !encounters.loading ? (
        <EmptyState title="No encounters yet.">
          <p>Open one below for a patient found by name, or from the patient's page.</p>
        </EmptyState>
      ) : (
        <EncounterBills encounters={encounters.data} caption="Encounters, newest first" patientLinks />
      )}
      <Form
        id="billing-encounter-form"
        title="New encounter with a bill"
        heading="h3"
        submitLabel="Open encounter"
        success="Encounter opened: open its bill in the list above."
        onSubmit={async (data) => {
          const reason = String(data.get('reason') ?? '').trim()
          await client.service('medical-encounters').create({
            facility,
            patient: String(data.get('patient') ?? ''),
            invoice: true,
            type: String(data.get('type')),
            ...(reason ? { reason } : {})
          })
        }}
      >
        <PatientPicker facility={facility} required />
        <Field label="Type" name="type" as="select">
          {encounterTypes.map((t) => (
            <option value={t}>{label(t)}</option>
          ))}
        </Field>
        <Field label="Reason" name="reason" hint="What the visit is for, e.g. Annual check-up." />
      </Form>
      <h2>Service catalogue</h2>
      <ErrorText message={services.error} />
      {services.data.length === 0 && !services.loading ? (
        <EmptyState title="The catalogue is empty.">
          <p>Add the services this facility bills for, with their prices.</p>
        </EmptyState>
      ) : (
        <Table<Service>
          id="services"
          caption="Services and prices"
          rows={services.data}
          rowKey={(s) => s.id}
          columns={[
            { label: 'Service', cell: (s) => s.name },
            { label: 'Type', cell: (s) => label(s.type) },
            { label: 'Price', cell: (s) => <Amount value={s.price} currency={s.currency ?? 'USD'} /> }
          ]}
        />
      )}
      {canBill && (
        <Form
          id="service-form"
          title="Add a service to the catalogue"
          heading="h3"
          submitLabel="Add service"
          success="Service added."
          onSubmit={async (data) => {
            const currency = String(data.get('currency') ?? '')
              .trim()
              .toUpperCase()
            await client.service('services').create({
              facility,
              name: String(data.get('name') ?? '').trim(),
              type: String(data.get('type')),
              price: Number(String(data.get('price') ?? '').replace(',', '.')),
              ...(currency ? { currency } : {})
            })
          }}
        >
          <Field label="Name" name="name" required />
          <Field label="Type" name="type" as="select">
            {serviceTypes.map((t) => (
              <option value={t}>{label(t)}</option>
            ))}
          </Field>
          <Field
            label="Price"
            name="price"
            required
            inputMode="decimal"
            hint="In the currency below, e.g. 49.00."
          />
          <Field
            label="Currency"
            name="currency"
            defaultValue="USD"
            hint="A three-letter code, e.g. USD, EUR, JPY."
          />
        </Form>
      )}
    </section>
  )
}
