// Webhooks of the current organization (or of the caller's account): register one (its signing secret is shown
// this once, with a copy button), ping it, the delivery log (status, attempts, last response) and retry.
import { client, state, listen, debounce, organizationName, isSuperadmin, type Cleanup } from './api'
import { h, field, replace, when, copyButton, submitForm } from './dom'
import type { Webhook, WebhookData } from '../src/services/webhooks/webhooks.shared'
import type { Delivery } from '../src/services/webhook-events/webhook-events.shared'

export const renderWebhooks = async (root: HTMLElement): Promise<Cleanup> => {
  const me = state.account!.id
  const organization = state.current
  const owners = [
    ...(organization && isSuperadmin(organization)
      ? [{ value: `organization:${organization}`, label: `${organizationName(organization)} (organization)` }]
      : []),
    { value: `account:${me}`, label: 'my account' }
  ]
  const hooks = h('ul', { class: 'records', id: 'webhooks' })
  const secretBox = h('div', { id: 'webhook-secret', 'aria-live': 'polite' })
  const log = h('section', { id: 'deliveries', 'aria-live': 'polite' })
  let openHook: Webhook | undefined

  const loadHooks = async () => {
    const queries = [{ account: me }, ...(organization ? [{ organization }] : [])]
    const found: Webhook[] = []
    for (const query of queries) {
      try {
        found.push(...(await client.service('webhooks').find({ query: { ...query, $limit: 100 } })).data)
      } catch {
        // Not allowed to list this owner's webhooks: nothing to show for it.
      }
    }
    replace(
      hooks,
      found.length
        ? found.map((hook) =>
            h(
              'li',
              { 'data-id': hook.id },
              h('strong', {}, hook.url),
              ` · ${hook.events} · ${hook.active ? 'active' : `inactive${hook.deactivatedReason ? ` (${hook.deactivatedReason})` : ''}`} · ${hook.organization ? organizationName(hook.organization) : 'my account'}`,
              h(
                'div',
                { class: 'actions' },
                h(
                  'button',
                  { type: 'button', class: 'secondary small', onclick: () => void ping(hook) },
                  'Ping'
                ),
                h(
                  'button',
                  { type: 'button', class: 'secondary small', onclick: () => void openLog(hook) },
                  'Delivery log'
                ),
                h(
                  'button',
                  { type: 'button', class: 'secondary small', onclick: () => void toggle(hook) },
                  hook.active ? 'Deactivate' : 'Activate'
                )
              )
            )
          )
        : h('li', {}, 'No webhooks yet.')
    )
  }
  const ping = async (hook: Webhook) => {
    try {
      await client.service('webhook-events').create({ webhook: hook.id, event: 'ping' })
      await openLog(hook)
    } catch (error: any) {
      alert(error?.message ?? String(error))
    }
  }
  const toggle = async (hook: Webhook) => {
    try {
      await client.service('webhooks').patch(hook.id, { active: !hook.active })
      await loadHooks()
    } catch (error: any) {
      alert(error?.message ?? String(error))
    }
  }
  const openLog = async (hook: Webhook) => {
    openHook = hook
    const page = await client.service('webhook-events').find({ query: { webhook: hook.id, $limit: 50 } })
    replace(
      log,
      h('h3', {}, `Deliveries to ${hook.url}`),
      h(
        'table',
        { id: 'delivery-log' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Event', 'Status', 'Attempts', 'Last response', 'Created', ''].map((title) =>
              h('th', { scope: 'col' }, title)
            )
          )
        ),
        h(
          'tbody',
          {},
          page.data.map((d) =>
            h(
              'tr',
              { 'data-id': d.id, 'data-status': d.status },
              h('td', {}, d.event),
              h('td', { class: `status status-${d.status}` }, d.status),
              h('td', {}, String(d.attempts)),
              h(
                'td',
                {},
                d.lastResponse
                  ? `${d.lastResponse.status ?? ''} ${d.lastResponse.error ?? ''} · ${d.lastResponse.durationMs} ms · ${when(d.lastResponse.at)}`
                  : '—'
              ),
              h('td', {}, when(d.createdAt)),
              h(
                'td',
                {},
                d.status === 'failed'
                  ? h(
                      'button',
                      { type: 'button', class: 'secondary small', onclick: () => void retry(d) },
                      'Retry'
                    )
                  : null
              )
            )
          )
        )
      )
    )
  }
  const retry = async (delivery: Delivery) => {
    try {
      await client.service('webhook-events').patch(delivery.id, { retry: true })
      if (openHook) await openLog(openHook)
    } catch (error: any) {
      alert(error?.message ?? String(error))
    }
  }

  const owner = h(
    'select',
    {},
    owners.map((o) => h('option', { value: o.value }, o.label))
  )
  const url = h('input', { type: 'url', placeholder: 'https://hooks.example.org/clinic' })
  const events = h('input', { type: 'text', value: '*' })
  // (`events` comes back to `*` on reset: its default value)
  const register = submitForm(
    'webhook-form',
    'Register a webhook',
    [
      field('Owner', owner, 'owner'),
      field('URL', url, 'url'),
      field('Events', events, 'events', 'comma-separated: * or medical-records, billing-payments.create, …')
    ],
    'Register',
    async () => {
      const [kind, id] = owner.value.split(':')
      const data: WebhookData = {
        ...(kind === 'organization' ? { organization: id } : { account: id }),
        url: url.value.trim(),
        events: events.value.trim()
      }
      // A registration answers the webhook and its signing secret, shown this once.
      const created = await client.service('webhook-events').create(data)
      replace(
        secretBox,
        h(
          'div',
          { class: 'notice', role: 'status' },
          h('p', {}, 'Signing secret — shown this once; keep it where the receiver can read it:'),
          h('code', { class: 'secret' }, created.secret),
          ' ',
          copyButton(created.secret, 'Copy secret'),
          ' ',
          h('button', { type: 'button', class: 'secondary', onclick: () => replace(secretBox) }, 'Done')
        )
      )
      await loadHooks()
    }
  )

  replace(
    root,
    h('h2', {}, 'Webhooks'),
    secretBox,
    h(
      'div',
      { class: 'columns' },
      h('section', { 'aria-label': 'Webhooks' }, hooks, log),
      h('section', { class: 'card' }, register)
    )
  )
  await loadHooks()
  // Deliveries change in the background (the worker): the open log is read again every 1.5 s and on events.
  const poll = setInterval(() => {
    if (openHook) void openLog(openHook)
  }, 1500)
  const stop = listen(
    'webhook-events',
    ['created', 'patched'],
    debounce(() => openHook && void openLog(openHook))
  )
  const stopHooks = listen(
    'webhooks',
    ['patched', 'removed'],
    debounce(() => void loadHooks())
  )
  return () => {
    clearInterval(poll)
    stop()
    stopHooks()
  }
}
