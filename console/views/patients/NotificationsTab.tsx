// The messages the server sent (or skipped) to this patient from this facility: event, channel, masked address,
// status. The facility's superadmins and members with the `notifications` privilege read them.
import { useLive, when } from '../../lib/api'
import { EmptyState, Table } from '../../components'
import type { Notification } from '../../../src/services/notifications/notifications.shared'

const eventText: Record<string, string> = {
  'appointment.booked': 'Appointment booked',
  'appointment.rescheduled': 'Appointment moved',
  'appointment.cancelled': 'Appointment cancelled',
  'appointment.reminder': 'Appointment reminder',
  'queue.next': 'Almost their turn',
  'queue.called': 'Called in the waiting room',
  'record.finalized': 'Record finalized',
  'invoice.finalized': 'Invoice finalized'
}
const statusText: Record<string, string> = {
  queued: 'Waiting to be sent',
  sent: 'Sent',
  failed: 'Failed',
  skipped: 'Not sent'
}

export function NotificationsTab({ patient, facility }: { patient: string; facility: string }) {
  const found = useLive<Notification>('notifications', {
    recipient: patient,
    facility,
    $sort: { createdAt: -1 },
    $limit: 50
  })
  return (
    <section aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications sent</h2>
      {found.error ? (
        <EmptyState title="You cannot see this patient’s notifications.">
          <p>
            The facility’s superadmins and members with the “notifications” privilege see them. ({found.error}
            )
          </p>
        </EmptyState>
      ) : !found.loading && found.data.length === 0 ? (
        <EmptyState title="Nothing was sent to this patient from this facility yet.">
          <p>
            Appointment changes, reminders, waiting-room calls and finalized records and invoices are sent
            here.
          </p>
        </EmptyState>
      ) : (
        <Table
          id="notifications"
          caption={`${found.total} ${found.total === 1 ? 'message' : 'messages'}, newest first`}
          rows={found.data}
          rowKey={(n) => n.id}
          columns={[
            { label: 'When', cell: (n) => when(n.createdAt) },
            { label: 'What', cell: (n) => eventText[n.event] ?? n.event },
            {
              label: 'How',
              cell: (n) => `${n.channel === 'sms' ? 'SMS' : 'Email'} to ${n.to ?? 'no address'}`
            },
            {
              label: 'Status',
              cell: (n) => `${statusText[n.status] ?? n.status}${n.reason ? ` (${n.reason})` : ''}`
            }
          ]}
        />
      )}
    </section>
  )
}
