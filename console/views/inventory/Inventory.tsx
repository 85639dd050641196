// Inventory of the current facility: each stockroom with its stocks (variant by name, lot, quantity, reorder
// level, expiry), a new stockroom, and a new variant with its first stock.
import { client, useLive, useSession, when } from '../../lib/api'
import { EmptyState, ErrorText, Field, Form, Table } from '../../components'
import type { Stockroom } from '../../../src/services/inventory-stockrooms/inventory-stockrooms.shared'
import type { Stock } from '../../../src/services/inventory-stocks/inventory-stocks.shared'
import type { Variant } from '../../../src/services/inventory-variants/inventory-variants.shared'

export function Inventory(_props: { params: Record<string, string> }) {
  const session = useSession()
  const facility = session.current
  const rooms = useLive<Stockroom>('inventory-stockrooms', facility ? { facility, $limit: 100 } : null)
  const stocks = useLive<Stock>('inventory-stocks', facility ? { facility, $limit: 500 } : null)
  const variants = useLive<Variant>('inventory-variants', facility ? { facility, $limit: 500 } : null)
  if (!facility)
    return (
      <section>
        <h1>Inventory</h1>
        <EmptyState title="Inventory belongs to a facility, and you are not a member of one yet." />
      </section>
    )
  const variantName = (id: string) => {
    const v = variants.data.find((x) => x.id === id)
    return v ? `${v.name} (${v.sku})` : 'A variant'
  }
  return (
    <section>
      <h1>Inventory of {session.organizationName(facility)}</h1>
      <ErrorText message={rooms.error || stocks.error || variants.error} />
      {rooms.data.length === 0 && !rooms.loading ? (
        <EmptyState title="No stockrooms yet.">
          <p>
            Add a stockroom below, then the variants kept in it. (Inventory needs a package that includes it.)
          </p>
        </EmptyState>
      ) : (
        rooms.data.map((room) => (
          <Table<Stock>
            key={room.id}
            caption={room.name}
            rows={stocks.data.filter((s) => s.stockroom === room.id)}
            rowKey={(s) => s.id}
            columns={[
              { label: 'Variant', cell: (s) => variantName(s.variant) },
              { label: 'Lot', cell: (s) => s.lot ?? '—' },
              { label: 'Quantity', cell: (s) => String(s.quantity) },
              { label: 'Reorder level', cell: (s) => String(s.reorderLevel ?? '—') },
              { label: 'Expires', cell: (s) => when(s.expiresAt) || '—' }
            ]}
          />
        ))
      )}
      <Form
        id="stockroom-form"
        title="New stockroom"
        heading="h2"
        submitLabel="Add stockroom"
        success="Stockroom added."
        onSubmit={async (data) => {
          await client
            .service('inventory-stockrooms')
            .create({ facility, name: String(data.get('name') ?? '').trim() })
        }}
      >
        <Field label="Name" name="name" required />
      </Form>
      <Form
        id="variant-form"
        title="New variant with its first stock"
        heading="h2"
        submitLabel="Add variant"
        success="Variant added."
        onSubmit={async (data) => {
          const stockroom = String(data.get('stockroom') ?? '')
          await client.service('inventory-variants').create({
            facility,
            sku: String(data.get('sku') ?? '').trim(),
            name: String(data.get('name') ?? '').trim(),
            ...(stockroom ? { stockroom, initialStock: Number(data.get('initialStock') || 0) } : {})
          })
        }}
      >
        <Field label="SKU" name="sku" required hint="The stock-keeping code, e.g. PARA-500." />
        <Field label="Name" name="name" required />
        <Field label="Stockroom" name="stockroom" as="select">
          <option value="">None yet</option>
          {rooms.data.map((room) => (
            <option value={room.id}>{room.name}</option>
          ))}
        </Field>
        <Field label="Initial stock" name="initialStock" inputMode="numeric" defaultValue="0" />
      </Form>
    </section>
  )
}
