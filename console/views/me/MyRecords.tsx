// The patient's own view: the records shared with them (every record they may read), newest first.
import { useLive, useSession } from '../../lib/api'
import { EmptyState, Table } from '../../components'
import type { MedicalRecord } from '../../../src/services/medical-records/medical-records.shared'

/** A record type in words ("ape-report" → "Ape report"), for types without a label of their own. */
export const typeLabel = (type: string) => {
  const words = type.replace(/-/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export function MyRecords() {
  const { account } = useSession()
  const records = useLive<MedicalRecord>(
    'medical-records',
    account ? { $sort: { createdAt: -1 }, $limit: 50 } : null
  )
  return (
    <section aria-labelledby="my-records-title">
      <h1 id="my-records-title">My records</h1>
      {records.data.length === 0 ? (
        <EmptyState
          title={records.loading ? 'Loading your records…' : 'No record has been shared with you yet.'}
        >
          Your clinic shares a record with you from its patient page; it then appears here.
        </EmptyState>
      ) : (
        <Table
          caption="Records shared with you, newest first"
          rows={records.data}
          rowKey={(r) => r.id}
          rowAttributes={(r) => ({ 'data-id': r.id })}
          columns={[
            { label: 'Record', cell: (r) => typeLabel(String(r.type)) },
            { label: 'Date', cell: (r) => new Date(r.createdAt).toLocaleString() },
            {
              label: 'Summary',
              cell: (r) => {
                const fields = r as unknown as Record<string, unknown>
                return ['text', 'diagnosis', 'report', 'notes', 'summary', 'findings']
                  .map((f) => fields[f])
                  .filter((v): v is string => typeof v === 'string' && v.length > 0)
                  .join(' — ')
              }
            }
          ]}
        />
      )}
    </section>
  )
}
