// Billing at the current facility: the service catalogue, encounters (each with its invoice), an invoice's items
// and payments. Totals (total / paid / balance) follow the billing services' realtime events; a payment beyond
// what an item still owes shows the server's 409 message.
import { client, state, listen, debounce, type Cleanup } from './api'
import type { Invoice } from '../src/services/billing-invoices/billing-invoices.shared'
import type { BillingItemData, Item } from '../src/services/billing-items/billing-items.shared'
import type { BillingPaymentData } from '../src/services/billing-payments/billing-payments.shared'
import type { CatalogueServiceData, Service } from '../src/services/services/services.shared'
import type {
  Encounter,
  MedicalEncounterData
} from '../src/services/medical-encounters/medical-encounters.shared'
import { h, field, replace, when, submitForm, formText } from './dom'

const datalist = (id: string, values: string[]) =>
  h(
    'datalist',
    { id },
    values.map((value) => h('option', { value }))
  )
const money = (value: unknown, currency = '') =>
  `${Number(value ?? 0).toFixed(2)}${currency ? ` ${currency}` : ''}`

const form = (
  id: string,
  title: string,
  controls: HTMLElement[],
  label: string,
  submit: (data: FormData) => Promise<void>
) => submitForm(id, title, controls, label, submit, 'h4')
/** The filled-in fields among `names` (keys of the service's data type `T`); empty ones are left out. */
const optional = <T>(
  data: FormData,
  names: (keyof T & string)[],
  numbers: (keyof T & string)[] = []
): Partial<T> => {
  const body: Record<string, unknown> = {}
  for (const name of names)
    if (formText(data, name))
      body[name] = numbers.includes(name) ? Number(formText(data, name)) : formText(data, name)
  return body as Partial<T>
}

export const renderBilling = async (root: HTMLElement): Promise<Cleanup> => {
  const facility = state.current
  if (!facility) {
    replace(
      root,
      h('h2', {}, 'Billing'),
      h('p', {}, 'Billing works in an organization: join or create one first.')
    )
    return () => undefined
  }
  let services: Service[] = []
  let openEncounter: Encounter | undefined
  const catalogue = h('ul', { class: 'plain', id: 'services' })
  const encounters = h('ol', { class: 'records', id: 'encounters' })
  const invoicePanel = h('section', { id: 'invoice', 'aria-live': 'polite' })

  const loadServices = async () => {
    services = (await client.service('services').find({ query: { facility, $limit: 200 } })).data
    replace(
      catalogue,
      services.length
        ? services.map((s) => h('li', {}, `${s.name} (${s.type ?? ''}) · ${money(s.price, s.currency)}`))
        : h('li', {}, 'No services yet.')
    )
  }
  const loadEncounters = async () => {
    const page = await client
      .service('medical-encounters')
      .find({ query: { facility, $sort: { createdAt: -1 }, $limit: 50 } })
    replace(
      encounters,
      page.data.length
        ? page.data.map((e) =>
            h(
              'li',
              { 'data-id': e.id },
              h('strong', {}, e.reason || e.type || 'Encounter'),
              ` · ${e.status} · patient ${e.patient} · ${when(e.createdAt)}`,
              h(
                'div',
                { class: 'actions' },
                e.invoice
                  ? h(
                      'button',
                      { type: 'button', class: 'secondary small', onclick: () => void openInvoice(e) },
                      'Open invoice'
                    )
                  : null
              )
            )
          )
        : h('li', {}, 'No encounters yet.')
    )
  }

  const openInvoice = async (encounter: Encounter) => {
    openEncounter = encounter
    const invoice = await client.service('billing-invoices').get(encounter.invoice!) // opened only for an encounter with an invoice
    const items = (
      await client.service('billing-items').find({ query: { invoice: invoice.id, $limit: 200 } })
    ).data
    const itemIds = items.map((i) => i.id)
    const payments = itemIds.length
      ? (await client.service('billing-payments').find({ query: { item: { $in: itemIds }, $limit: 500 } }))
          .data
      : []
    const final = invoice.status !== 'draft'
    replace(
      invoicePanel,
      h('h3', {}, `Invoice · ${encounter.reason || encounter.type || 'encounter'} · ${invoice.status}`),
      h(
        'dl',
        { class: 'totals' },
        h('dt', {}, 'Total'),
        h('dd', { id: 'invoice-total' }, money(invoice.total, invoice.currency)),
        h('dt', {}, 'Paid'),
        h('dd', { id: 'invoice-paid' }, money(invoice.paid, invoice.currency)),
        h('dt', {}, 'Balance'),
        h('dd', { id: 'invoice-balance' }, money(invoice.balance, invoice.currency))
      ),
      h(
        'ul',
        { class: 'plain', id: 'items' },
        items.map((item) =>
          h(
            'li',
            { 'data-id': item.id },
            h('strong', {}, item.name ?? item.type),
            ` · ${item.quantity} × ${money(item.price)} = ${money(item.amount, item.currency)} · paid ${money(item.paid)} · balance ${money(item.balance)}`,
            h(
              'ul',
              {},
              payments
                .filter((p) => p.item === item.id)
                .map((p) =>
                  h('li', {}, `${p.type} by ${p.paymentMethod}: ${money(p.amount, p.currency)} (${p.status})`)
                )
            ),
            final ? null : paymentForm(item)
          )
        )
      ),
      final ? null : itemForm(invoice),
      final
        ? null
        : h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: async () => {
                try {
                  await client.service('medical-encounters').patch(encounter.id, { finalize: true })
                } catch (error: any) {
                  alert(error?.message ?? String(error))
                }
              }
            },
            'Finalize the encounter and its invoice'
          )
    )
  }

  const itemForm = (invoice: Invoice) =>
    form(
      'item-form',
      'Add an item',
      [
        field(
          'Type',
          h(
            'select',
            {},
            ['service', 'custom', 'inventory-variant'].map((t) => h('option', { value: t }, t))
          ),
          'type'
        ),
        field(
          'Service (for a service item)',
          h(
            'select',
            {},
            h('option', { value: '' }, '—'),
            services.map((s) => h('option', { value: s.id }, s.name))
          ),
          'ref'
        ),
        field('Name (custom items)', h('input', { type: 'text' }), 'name'),
        field(
          'Price per unit (optional for services)',
          h('input', { type: 'number', step: '0.01' }),
          'price'
        ),
        field('Quantity', h('input', { type: 'number', step: 'any', value: '1' }), 'quantity')
      ],
      'Add item',
      async (data) => {
        await client.service('billing-items').create({
          invoice: invoice.id,
          type: formText(data, 'type'),
          ...optional<BillingItemData>(data, ['ref', 'name', 'price', 'quantity'], ['price', 'quantity'])
        } as BillingItemData) // (a required field left empty: the server's validation reports it)
      }
    )

  const paymentForm = (item: Item) =>
    form(
      `payment-form-${item.id}`,
      'Record a payment',
      [
        field('Type', h('input', { type: 'text', list: 'payment-types', value: 'payment' }), 'type'),
        field(
          'Method',
          h('input', { type: 'text', list: 'payment-methods', value: 'cash' }),
          'paymentMethod'
        ),
        field('Amount', h('input', { type: 'number', step: '0.01' }), 'amount')
      ],
      'Record payment',
      async (data) => {
        await client.service('billing-payments').create({
          item: item.id,
          ...optional<BillingPaymentData>(data, ['type', 'paymentMethod', 'amount'], ['amount'])
        } as BillingPaymentData) // (as above)
      }
    )

  const serviceForm = form(
    'service-form',
    'Add a service to the catalogue',
    [
      field('Name', h('input', { type: 'text' }), 'name'),
      field('Type', h('input', { type: 'text', list: 'service-types', value: 'consultation' }), 'type'),
      field('Price', h('input', { type: 'number', step: '0.01' }), 'price')
    ],
    'Add service',
    async (data) => {
      await client.service('services').create({
        facility,
        ...optional<CatalogueServiceData>(data, ['name', 'type', 'price'], ['price'])
      } as CatalogueServiceData) // (as above)
    }
  )
  const encounterForm = form(
    'encounter-form',
    'New encounter with an invoice',
    [
      field('Patient (account id)', h('input', { type: 'text', value: state.account?.id ?? '' }), 'patient'),
      field('Type', h('input', { type: 'text', value: 'outpatient' }), 'type'),
      field('Reason', h('input', { type: 'text' }), 'reason')
    ],
    'Open encounter',
    async (data) => {
      const encounter = await client.service('medical-encounters').create({
        facility,
        invoice: true,
        ...optional<MedicalEncounterData>(data, ['patient', 'type', 'reason'])
      } as MedicalEncounterData) // (as above)
      await openInvoice(encounter)
    }
  )

  replace(
    root,
    h('h2', {}, 'Billing'),
    datalist('payment-types', ['payment', 'deposit', 'copay', 'discount', 'write-off']),
    datalist('payment-methods', ['cash', 'card', 'check', 'bank-transfer', 'online', 'hmo', 'insurance']),
    datalist('service-types', [
      'consultation',
      'procedure',
      'laboratory',
      'imaging',
      'dental',
      'vaccination',
      'therapy',
      'other'
    ]),
    h(
      'div',
      { class: 'columns' },
      h(
        'section',
        { 'aria-label': 'Encounters' },
        h('h3', {}, 'Encounters'),
        encounters,
        h('div', { class: 'card' }, encounterForm)
      ),
      h(
        'div',
        {},
        h('div', { class: 'card' }, invoicePanel),
        h(
          'section',
          { class: 'card', 'aria-label': 'Catalogue' },
          h('h3', {}, 'Service catalogue'),
          catalogue,
          serviceForm
        )
      )
    )
  )
  await Promise.all([loadServices(), loadEncounters()])
  const refreshInvoice = debounce(() => {
    if (openEncounter) void openInvoice(openEncounter)
  })
  const stops = [
    listen('billing-invoices', ['patched', 'updated'], refreshInvoice),
    listen('billing-items', ['created', 'patched', 'removed'], refreshInvoice),
    listen('billing-payments', ['created', 'patched'], refreshInvoice),
    listen(
      'medical-encounters',
      ['created', 'patched', 'removed'],
      debounce(() => void loadEncounters())
    ),
    listen(
      'services',
      ['created', 'patched', 'removed'],
      debounce(() => void loadServices())
    )
  ]
  return () => stops.forEach((stop) => stop())
}
