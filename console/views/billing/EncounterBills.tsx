// A list of encounters, each with a button that opens its bill below it (one open at a time).
import { useState } from 'preact/hooks'
import { when } from '../../lib/api'
import { Table } from '../../components'
import type { Encounter } from '../../../src/services/medical-encounters/medical-encounters.shared'
import { InvoicePanel } from './InvoicePanel'
import { billStatus, label } from './words'

export function EncounterBills({
  encounters,
  caption,
  patientLinks
}: {
  encounters: Encounter[]
  caption: string
  /** Link each encounter to its patient's page (the facility-wide list). */
  patientLinks?: boolean
}) {
  const [open, setOpen] = useState('')
  const opened = encounters.find((e) => e.id === open)
  return (
    <>
      <Table<Encounter>
        id="encounters"
        caption={caption}
        rows={encounters}
        rowKey={(e) => e.id}
        rowAttributes={(e) => ({ 'data-id': e.id, 'data-status': e.status })}
        columns={[
          { label: 'Encounter', cell: (e) => e.reason || label(e.type) || 'Encounter' },
          { label: 'Started', cell: (e) => when(e.startedAt ?? e.createdAt) },
          { label: 'Status', cell: (e) => billStatus(e.status) },
          ...(patientLinks
            ? [
                {
                  label: 'Patient',
                  cell: (e: Encounter) => <a href={`#/patients/${e.patient}`}>Patient's page</a>
                }
              ]
            : []),
          {
            label: 'Bill',
            cell: (e) =>
              e.invoice ? (
                <button
                  type="button"
                  class="secondary"
                  aria-expanded={open === e.id}
                  onClick={() => setOpen(open === e.id ? '' : e.id)}
                >
                  {open === e.id ? 'Close the bill' : 'Open the bill'}
                </button>
              ) : (
                'No bill'
              )
          }
        ]}
      />
      {opened?.invoice && <InvoicePanel invoiceId={opened.invoice} encounter={opened.id} />}
    </>
  )
}
