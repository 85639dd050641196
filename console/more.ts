// Orders (status moves), inventory (stocks per stockroom), the directory search (results with distances) and the
// facility's subscription (status and checkout link), each for the organization chosen in the header.
import { client, state, listen, debounce, organizationName, type Cleanup } from './api'
import type { Stockroom } from '../src/services/inventory-stockrooms/inventory-stockrooms.shared'
import { h, field, formError, showErrors, clearErrors, replace, when, submitForm, formText } from './dom'

const none: Cleanup = () => undefined
const needsOrganization = (root: HTMLElement, title: string) => {
  replace(root, h('h2', {}, title), h('p', {}, 'Choose (or join) an organization first.'))
  return none
}
const numberOr = (data: FormData, name: string) =>
  formText(data, name) === '' ? undefined : Number(formText(data, name))

/** Allowed status moves (the server says the same in its 409 when a move is not allowed). */
const nextStatuses: Record<string, string[]> = {
  pending: ['preparing', 'cancelled'],
  preparing: ['ready', 'cancelled'],
  ready: ['dispatched', 'cancelled'],
  dispatched: ['completed', 'cancelled']
}

export const renderOrders = async (root: HTMLElement): Promise<Cleanup> => {
  const organization = state.current
  if (!organization) return needsOrganization(root, 'Orders')
  const list = h('ol', { class: 'records', id: 'orders' })
  const message = h('p', { class: 'form-error', role: 'alert' })
  const load = async () => {
    const page = await client
      .service('request/orders')
      .find({ query: { 'owner.organization': organization, $sort: { createdAt: -1 }, $limit: 50 } })
    replace(
      list,
      page.data.length
        ? page.data.map((order) =>
            h(
              'li',
              { 'data-id': order.id, 'data-status': order.status },
              h('strong', {}, order.items.map((i) => `${i.quantity} × ${i.name}`).join(', ')),
              ` · `,
              h('span', { class: 'badge' }, order.status),
              h(
                'div',
                { class: 'muted' },
                `for ${order.requestedForType} ${order.requestedFor} · ${when(order.createdAt)}`
              ),
              h(
                'div',
                { class: 'actions' },
                (nextStatuses[order.status] ?? []).map((status) =>
                  h(
                    'button',
                    {
                      type: 'button',
                      class: `secondary small${status === 'cancelled' ? ' danger' : ''}`,
                      onclick: async () => {
                        message.textContent = ''
                        try {
                          await client.service('request/orders').patch(order.id, { changeStatus: status })
                        } catch (error: any) {
                          message.textContent = error?.message ?? String(error)
                        }
                      }
                    },
                    `Move to ${status}`
                  )
                )
              )
            )
          )
        : h('li', {}, 'No orders yet.')
    )
  }
  const form = submitForm(
    'order-form',
    'New order',
    [
      field(
        'Requested for',
        h(
          'select',
          {},
          ['patient', 'ward', 'organization'].map((t) => h('option', { value: t }, t))
        ),
        'requestedForType'
      ),
      field(
        'Id (patient account, ward or organization)',
        h('input', { type: 'text', value: state.account?.id ?? '' }),
        'requestedFor'
      ),
      field('Item', h('input', { type: 'text' }), 'items'),
      field('Quantity', h('input', { type: 'number', value: '1', min: '1' }), 'quantity')
    ],
    'Place order',
    async (data) => {
      await client.service('request/orders').create({
        owner: { organization },
        requestedForType: formText(data, 'requestedForType'),
        requestedFor: formText(data, 'requestedFor'),
        items: [{ name: formText(data, 'items'), quantity: numberOr(data, 'quantity') }]
      })
    }
  )
  replace(
    root,
    h('h2', {}, `Orders of ${organizationName(organization)}`),
    message,
    h('div', { class: 'columns' }, list, h('section', { class: 'card' }, form))
  )
  await load()
  return listen(
    'request/orders',
    ['created', 'patched'],
    debounce(() => void load())
  )
}

export const renderInventory = async (root: HTMLElement): Promise<Cleanup> => {
  const facility = state.current
  if (!facility) return needsOrganization(root, 'Inventory')
  const rooms = h('div', { id: 'stockrooms' })
  let stockrooms: Stockroom[] = []
  const load = async () => {
    stockrooms = (await client.service('inventory-stockrooms').find({ query: { facility, $limit: 100 } }))
      .data
    const stocks = (await client.service('inventory-stocks').find({ query: { facility, $limit: 500 } })).data
    replace(
      rooms,
      stockrooms.length
        ? stockrooms.map((room) =>
            h(
              'section',
              { class: 'card', 'data-id': room.id },
              h('h3', {}, room.name),
              h(
                'table',
                {},
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    ['Variant (sku)', 'Lot', 'Quantity', 'Reorder level', 'Expires'].map((title) =>
                      h('th', { scope: 'col' }, title)
                    )
                  )
                ),
                h(
                  'tbody',
                  {},
                  stocks
                    .filter((s) => s.stockroom === room.id)
                    .map((s) =>
                      h(
                        'tr',
                        {},
                        h('td', {}, s.variant),
                        h('td', {}, s.lot ?? ''),
                        h('td', {}, String(s.quantity)),
                        h('td', {}, String(s.reorderLevel ?? '')),
                        h('td', {}, when(s.expiresAt))
                      )
                    )
                )
              )
            )
          )
        : h('p', {}, 'No stockrooms yet.')
    )
    const select = root.querySelector<HTMLSelectElement>('#variant-form select')
    if (select)
      replace(
        select,
        stockrooms.map((room) => h('option', { value: room.id }, room.name))
      )
  }
  const roomForm = submitForm(
    'stockroom-form',
    'New stockroom',
    [field('Name', h('input', { type: 'text' }), 'name')],
    'Add stockroom',
    async (data) => {
      await client.service('inventory-stockrooms').create({ facility, name: formText(data, 'name') })
    }
  )
  const variantForm = submitForm(
    'variant-form',
    'New variant with its first stock',
    [
      field('SKU', h('input', { type: 'text' }), 'sku'),
      field('Name', h('input', { type: 'text' }), 'name'),
      field('Stockroom', h('select', {}), 'stockroom'),
      field('Initial stock', h('input', { type: 'number', min: '0', value: '0' }), 'initialStock')
    ],
    'Add variant',
    async (data) => {
      await client.service('inventory-variants').create({
        facility,
        sku: formText(data, 'sku'),
        name: formText(data, 'name'),
        stockroom: formText(data, 'stockroom') || undefined,
        initialStock: numberOr(data, 'initialStock')
      })
    }
  )
  replace(
    root,
    h('h2', {}, `Inventory of ${organizationName(facility)}`),
    h(
      'div',
      { class: 'columns' },
      rooms,
      h('div', {}, h('section', { class: 'card' }, roomForm), h('section', { class: 'card' }, variantForm))
    )
  )
  await load()
  const stops = (['inventory-stocks', 'inventory-stockrooms'] as const).map((path) =>
    listen(
      path,
      ['created', 'patched', 'removed'],
      debounce(() => void load())
    )
  )
  return () => stops.forEach((stop) => stop())
}

export const renderDirectory = async (root: HTMLElement): Promise<Cleanup> => {
  const results = h('ol', { class: 'records', id: 'directory-results', 'aria-live': 'polite' })
  const search = h('input', { type: 'search', value: '*' })
  const location = h('input', { type: 'text', placeholder: '14.55,121.02,10' })
  const form: HTMLFormElement = h('form', { id: 'directory-form', role: 'search', novalidate: true })
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    const query: Record<string, unknown> = { $search: search.value.trim() || '*', $limit: 50 }
    if (location.value.trim()) query.location = location.value.trim()
    try {
      const page = await client.service('bff/unified-directory').find({ query })
      replace(
        results,
        page.data.length
          ? page.data.map((entry) =>
              h(
                'li',
                {},
                h('strong', {}, entry.name),
                ` · ${entry.type}${entry.ref?.types?.length ? ` (${entry.ref.types.join(', ')})` : ''}`,
                entry.distanceKm !== undefined
                  ? h('span', { class: 'badge' }, `${entry.distanceKm.toFixed(1)} km`)
                  : null,
                entry.description ? h('div', { class: 'muted' }, entry.description) : null
              )
            )
          : h('li', {}, 'Nothing found.')
      )
    } catch (error) {
      showErrors(form, error)
    }
  })
  form.append(
    formError(),
    field('Search (* for everything)', search, '$search'),
    field('Near (latitude,longitude[,radius km])', location, 'location'),
    h('button', { type: 'submit' }, 'Search')
  )
  replace(root, h('h2', {}, 'Directory'), form, results)
  form.requestSubmit()
  return none
}

export const renderSubscription = async (root: HTMLElement): Promise<Cleanup> => {
  const facility = state.current
  if (!facility) return needsOrganization(root, 'Subscription')
  const body = h('div', { id: 'subscription' })
  const load = async () => {
    const page = await client.service('subscriptions').find({ query: { facility, $limit: 1 } })
    const subscription = page.data[0]
    if (!subscription) return replace(body, h('p', {}, `${organizationName(facility)} has no subscription.`))
    replace(
      body,
      h(
        'dl',
        { class: 'totals' },
        h('dt', {}, 'Status'),
        h('dd', { id: 'subscription-status' }, subscription.status),
        h('dt', {}, 'Package'),
        h('dd', {}, subscription.package),
        h('dt', {}, 'Price'),
        h('dd', {}, `${subscription.price} ${subscription.currency} / ${subscription.interval}`),
        h('dt', {}, 'Current period ends'),
        h('dd', {}, when(subscription.currentPeriodEnd ?? undefined) || '—')
      ),
      subscription.checkoutSession
        ? h(
            'p',
            {},
            h(
              'a',
              { href: subscription.checkoutSession.url, id: 'checkout-link', rel: 'noopener' },
              'Pay at the checkout'
            ),
            ` (open until ${when(subscription.checkoutSession.expiresAt)})`
          )
        : h('p', {}, 'Nothing to pay.')
    )
  }
  replace(root, h('h2', {}, `Subscription of ${organizationName(facility)}`), body)
  await load()
  return listen(
    'subscriptions',
    ['created', 'patched'],
    debounce(() => void load())
  )
}
