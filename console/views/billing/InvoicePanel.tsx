// One bill: its totals, items and payments, all in the invoice's currency. While a draft, items are added and the
// bill can be finalized (after an inline confirmation that says what it locks). Finalized or not, a payment can be
// recorded for every item with a balance left. Everything follows the server's events, so statuses and totals
// shown are always the current ones.
import { client, useLive, when } from '../../lib/api'
import { ConfirmButton, ErrorText, Field, Form, Table } from '../../components'
import type { Invoice } from '../../../src/services/billing-invoices/billing-invoices.shared'
import type { Item } from '../../../src/services/billing-items/billing-items.shared'
import type { Payment } from '../../../src/services/billing-payments/billing-payments.shared'
import type { Service } from '../../../src/services/services/services.shared'
import type { Intent } from '../../../src/services/billing-payment-intents/billing-payment-intents.shared'
import { Amount, formatAmount } from './Amount'
import { billStatus, label, paymentMethods, paymentStatus, paymentTypes } from './words'

/** An online payment's status in words. */
const intentStatus = (status: string) =>
  ({
    created: 'Waiting for the payer',
    approved: 'Approved, not yet collected',
    capturing: 'Being collected',
    captured: 'Collected',
    cancelled: 'Cancelled',
    failed: 'Failed'
  })[status] ?? status

/** A refused payment in words: the remaining balance formatted, never the item's id. */
const paymentRefusal = (error: unknown, currency: string): unknown => {
  const e = error as { code?: number; data?: { remainingBalance?: unknown } }
  const remaining = e?.data?.remainingBalance
  if (e?.code === 409 && typeof remaining === 'number') {
    const sentence =
      remaining > 0
        ? `This payment is more than the item still owes: at most ${formatAmount(remaining, currency)} can be recorded.`
        : 'This item is paid in full: nothing is left to pay.'
    return Object.assign(new Error(sentence), { errors: [{ field: 'amount', message: sentence }] })
  }
  return error
}

export function InvoicePanel({ invoiceId, encounter }: { invoiceId: string; encounter?: string }) {
  const invoices = useLive<Invoice>('billing-invoices', { id: invoiceId })
  const items = useLive<Item>('billing-items', { invoice: invoiceId, $limit: 200, $sort: { createdAt: 1 } })
  const payments = useLive<Payment>('billing-payments', {
    invoice: invoiceId,
    $limit: 500,
    $sort: { createdAt: 1 }
  })
  // Online payments started for this bill (the gateways' checkouts); a facility without them gets a refusal,
  // and then the section is simply not shown.
  const intents = useLive<Intent>('billing-payment-intents', {
    invoice: invoiceId,
    $limit: 50,
    $sort: { createdAt: -1 }
  })
  const invoice = invoices.data[0]
  const services = useLive<Service>(
    'services',
    invoice ? { facility: invoice.facility, active: true, $limit: 200 } : null
  )
  if (!invoice)
    return <p>{invoices.loading ? 'Loading the bill…' : invoices.error || 'This bill no longer exists.'}</p>
  const currency = invoice.currency
  const draft = invoice.status === 'draft'
  return (
    <section class="card invoice" aria-labelledby={`invoice-${invoice.id}`} data-status={invoice.status}>
      <h3 id={`invoice-${invoice.id}`}>
        Bill · <span class="badge invoice-status">{billStatus(invoice.status)}</span>
      </h3>
      <p class="muted">
        {draft
          ? 'Items can be added until the bill is finalized.'
          : `Finalized ${when(invoice.finalizedAt ?? undefined)}: its items are locked. Payments can still be recorded for the balance.`}
      </p>
      <dl class="totals">
        <dt>Total</dt>
        <dd>
          <Amount id="invoice-total" value={invoice.total} currency={currency} />
        </dd>
        <dt>Paid</dt>
        <dd>
          <Amount id="invoice-paid" value={invoice.paid} currency={currency} />
        </dd>
        <dt>Balance</dt>
        <dd>
          <Amount id="invoice-balance" value={invoice.balance} currency={currency} />
        </dd>
      </dl>
      <ErrorText message={items.error || payments.error} />
      <Table<Item>
        id="items"
        caption="Items"
        rows={items.data}
        rowKey={(i) => i.id}
        rowAttributes={(i) => ({ 'data-id': i.id })}
        columns={[
          { label: 'Item', cell: (i) => i.name ?? label(i.type) },
          {
            label: 'Quantity × price',
            cell: (i) => (
              <>
                {i.quantity} × <Amount value={i.price ?? 0} currency={currency} />
              </>
            )
          },
          { label: 'Amount', cell: (i) => <Amount value={i.amount} currency={currency} /> },
          { label: 'Paid', cell: (i) => <Amount value={i.paid} currency={currency} /> },
          { label: 'Balance', cell: (i) => <Amount value={i.balance} currency={currency} /> }
        ]}
      />
      {payments.data.length > 0 && (
        <Table<Payment>
          id="payments"
          caption="Payments"
          rows={payments.data}
          rowKey={(p) => p.id}
          rowAttributes={(p) => ({ 'data-status': p.status })}
          columns={[
            { label: 'Amount', cell: (p) => <Amount value={p.amount} currency={currency} /> },
            { label: 'For', cell: (p) => items.data.find((i) => i.id === p.item)?.name ?? 'An item' },
            { label: 'How', cell: (p) => `${label(p.type)} by ${label(p.paymentMethod)}` },
            { label: 'Status', cell: (p) => <span class="payment-status">{paymentStatus(p.status)}</span> },
            { label: 'When', cell: (p) => when(p.paidAt ?? p.createdAt) }
          ]}
        />
      )}
      {!intents.error && intents.data.length > 0 && (
        <Table<Intent>
          id="intents"
          caption="Online payments"
          rows={intents.data}
          rowKey={(p) => p.id}
          rowAttributes={(p) => ({ 'data-status': p.status })}
          columns={[
            { label: 'Amount', cell: (p) => <Amount value={p.netAmount} currency={p.currency} /> },
            { label: 'Through', cell: (p) => `${label(p.gateway)} (${label(p.method)})` },
            { label: 'Status', cell: (p) => intentStatus(p.status) },
            {
              label: 'Payer',
              cell: (p) =>
                p.status === 'created' && p.checkout ? (
                  <a href={p.checkout.approvalURL} rel="noopener">
                    The payer's approval page
                  </a>
                ) : (
                  when(p.capturedAt ?? p.updatedAt)
                )
            }
          ]}
        />
      )}
      {items.data
        .filter((i) => i.balance > 0)
        .map((item) => (
          <Form
            key={`${item.id}-${item.balance}-${invoice.status}`}
            id={`payment-form-${item.id}`}
            class="payment-form"
            title={`Record a payment for ${item.name ?? label(item.type)}`}
            heading="h4"
            submitLabel="Record payment"
            success="Payment recorded."
            onSubmit={async (data) => {
              try {
                await client.service('billing-payments').create({
                  item: item.id,
                  type: String(data.get('type')),
                  paymentMethod: String(data.get('paymentMethod')),
                  amount: Number(String(data.get('amount') ?? '').replace(',', '.'))
                })
              } catch (error) {
                throw paymentRefusal(error, currency)
              }
            }}
          >
            <Field
              label={`Amount (${currency})`}
              name="amount"
              required
              inputMode="decimal"
              defaultValue={String(item.balance)}
              hint={`Still owed for this item: ${formatAmount(item.balance, currency)}.`}
            />
            <Field label="Type" name="type" as="select">
              {paymentTypes.map((t) => (
                <option value={t}>{label(t)}</option>
              ))}
            </Field>
            <Field label="Method" name="paymentMethod" as="select">
              {paymentMethods.map((m) => (
                <option value={m}>{label(m)}</option>
              ))}
            </Field>
          </Form>
        ))}
      {draft && (
        <Form
          id="item-form"
          title="Add an item"
          heading="h4"
          submitLabel="Add item"
          onSubmit={async (data) => {
            const ref = String(data.get('ref') ?? '')
            const service = services.data.find((s) => s.id === ref)
            const price = String(data.get('price') ?? '').trim()
            const quantity = String(data.get('quantity') ?? '').trim()
            await client.service('billing-items').create({
              invoice: invoice.id,
              type: service ? 'service' : 'custom',
              ...(service ? { ref: service.id } : {}),
              name: String(data.get('name') ?? '').trim() || service?.name || '',
              ...(price ? { price: Number(price.replace(',', '.')) } : {}),
              ...(quantity ? { quantity: Number(quantity) } : {})
            })
          }}
        >
          <Field
            label="Service from the catalogue"
            name="ref"
            as="select"
            hint="Or leave it and name a custom item."
          >
            <option value="">A custom item</option>
            {services.data.map((s) => (
              <option value={s.id}>
                {s.name} · {formatAmount(s.price, s.currency ?? currency)}
              </option>
            ))}
          </Field>
          <Field label="Name" name="name" hint="For a custom item (a service keeps its own name)." />
          <Field
            label={`Price per unit (${currency})`}
            name="price"
            inputMode="decimal"
            hint="For a service, leave it empty to use the catalogue price."
          />
          <Field label="Quantity" name="quantity" inputMode="numeric" defaultValue="1" />
        </Form>
      )}
      {draft && (
        <ConfirmButton
          id="finalize"
          question="Finalizing locks this bill: no item can be added, changed or removed afterwards, and it cannot be undone. Payments can still be recorded for the balance."
          confirmLabel="Finalize the bill"
          onConfirm={async () => {
            if (encounter) await client.service('medical-encounters').patch(encounter, { finalize: true })
            else await client.service('billing-invoices').patch(invoice.id, { finalize: true })
          }}
        >
          Finalize…
        </ConfirmButton>
      )}
    </section>
  )
}
