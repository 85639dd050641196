// Orders of the current facility (newest first) with the status moves the server allows, and a new order.
import { useState } from 'preact/hooks'
import { client, errorMessage, useLive, useSession, when } from '../../lib/api'
import { EmptyState, ErrorText, Field, Form, PatientPicker, Table } from '../../components'
import type { Order } from '../../../src/services/request-orders/request-orders.shared'

/** Allowed status moves (the server says the same in its 409 when a move is not allowed). */
const nextStatuses: Record<string, string[]> = {
  pending: ['preparing', 'cancelled'],
  preparing: ['ready', 'cancelled'],
  ready: ['dispatched', 'cancelled'],
  dispatched: ['completed', 'cancelled']
}
const word = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

export function Orders(_props: { params: Record<string, string> }) {
  const session = useSession()
  const organization = session.current
  const orders = useLive<Order>(
    'request/orders',
    organization ? { 'owner.organization': organization, $sort: { createdAt: -1 }, $limit: 50 } : null
  )
  const [error, setError] = useState('')
  const [forKind, setForKind] = useState('organization')
  if (!organization)
    return (
      <section>
        <h1>Orders</h1>
        <EmptyState title="Orders belong to a facility, and you are not a member of one yet." />
      </section>
    )
  return (
    <section>
      <h1>Orders of {session.organizationName(organization)}</h1>
      <ErrorText message={error || orders.error} />
      {orders.data.length === 0 && !orders.loading ? (
        <EmptyState title="No orders yet.">
          <p>Place one below: what is needed, and for whom.</p>
        </EmptyState>
      ) : (
        <Table<Order>
          id="orders"
          caption="Orders, newest first"
          rows={orders.data}
          rowKey={(o) => o.id}
          rowAttributes={(o) => ({ 'data-status': o.status })}
          columns={[
            { label: 'Items', cell: (o) => o.items.map((i) => `${i.quantity} × ${i.name}`).join(', ') },
            { label: 'Status', cell: (o) => <span class="badge">{word(o.status)}</span> },
            { label: 'For', cell: (o) => word(o.requestedForType) },
            { label: 'Placed', cell: (o) => when(o.createdAt) },
            {
              label: 'Next step',
              cell: (o) => (
                <div class="actions">
                  {(nextStatuses[o.status] ?? []).map((status) => (
                    <button
                      type="button"
                      class={status === 'cancelled' ? 'secondary danger' : 'secondary'}
                      onClick={async () => {
                        setError('')
                        try {
                          await client.service('request/orders').patch(o.id, { changeStatus: status })
                        } catch (e) {
                          setError(errorMessage(e))
                        }
                      }}
                    >
                      {status === 'cancelled' ? 'Cancel the order' : `Mark ${status}`}
                    </button>
                  ))}
                </div>
              )
            }
          ]}
        />
      )}
      <Form
        id="order-form"
        title="New order"
        heading="h2"
        submitLabel="Place order"
        success="Order placed."
        onSubmit={async (data) => {
          await client.service('request/orders').create({
            owner: { organization },
            requestedForType: forKind,
            requestedFor:
              forKind === 'organization'
                ? organization
                : String(data.get(forKind === 'patient' ? 'patient' : 'ward') ?? '').trim(),
            items: [
              { name: String(data.get('name') ?? '').trim(), quantity: Number(data.get('quantity') || 1) }
            ]
          })
          setForKind('organization')
        }}
      >
        <Field label="Item" name="name" required />
        <Field label="Quantity" name="quantity" inputMode="numeric" defaultValue="1" />
        <Field
          label="Requested for"
          name="requestedForType"
          as="select"
          value={forKind}
          onChange={(event) => setForKind(event.currentTarget.value)}
        >
          <option value="organization">This facility</option>
          <option value="ward">A ward</option>
          <option value="patient">A patient</option>
        </Field>
        {forKind === 'ward' && (
          <Field label="Ward" name="ward" required hint="The ward's name, e.g. Pediatrics." />
        )}
        {forKind === 'patient' && <PatientPicker facility={organization} required />}
      </Form>
    </section>
  )
}
