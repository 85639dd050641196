// A patient's encounters at the current facility and their bills (the patient page's "Encounters & bills" tab):
// open a new encounter with a bill, add items, finalize, collect payments.
import { client, useLive, useSession } from '../../lib/api'
import { EmptyState, ErrorText, Field, Form } from '../../components'
import type { Encounter } from '../../../src/services/medical-encounters/medical-encounters.shared'
import { EncounterBills } from './EncounterBills'
import { encounterTypes, label } from './words'

export function PatientBills({ patient }: { patient: string }) {
  const { current: facility } = useSession()
  const encounters = useLive<Encounter>(
    'medical-encounters',
    facility ? { facility, patient, $sort: { createdAt: -1 }, $limit: 50 } : null
  )
  return (
    <section aria-labelledby={`bills-${patient}`}>
      <h3 id={`bills-${patient}`}>Encounters and bills</h3>
      <ErrorText message={encounters.error} />
      {encounters.data.length === 0 && !encounters.loading ? (
        <EmptyState title="No encounters at this facility yet.">
          <p>Open one below to bill this patient's visit.</p>
        </EmptyState>
      ) : (
        <EncounterBills encounters={encounters.data} caption="Encounters, newest first" />
      )}
      <Form
        id="encounter-form"
        title="New encounter with a bill"
        heading="h4"
        submitLabel="Open encounter"
        success="Encounter opened: open its bill above to add items."
        onSubmit={async (data) => {
          const reason = String(data.get('reason') ?? '').trim()
          await client.service('medical-encounters').create({
            facility,
            patient,
            invoice: true,
            type: String(data.get('type')),
            ...(reason ? { reason } : {})
          })
        }}
      >
        <Field label="Type" name="type" as="select">
          {encounterTypes.map((t) => (
            <option value={t}>{label(t)}</option>
          ))}
        </Field>
        <Field label="Reason" name="reason" hint="What the visit is for, e.g. Annual check-up." />
      </Form>
    </section>
  )
}
