// The clinic console: one page, a view per hash (#records, #organizations, …), signed in through the typed
// Feathers client over Socket.IO. Served by the server from public/ (bundled to public/console.js).
import type { AuthenticationResult } from '@feathersjs/authentication'
import { client, socket, state, loadOrganizations, type Cleanup, type Member } from './api'
import { h, replace, copyButton } from './dom'
import { renderSignIn, finishOAuth } from './auth'
import { renderRecords } from './records'
import { renderOrganizations } from './organizations'
import { renderBilling } from './billing'
import { renderWebhooks } from './webhooks'
import { renderOrders, renderInventory, renderDirectory, renderSubscription } from './more'
import { renderAccount } from './account'

const views: Record<string, { title: string; render: (root: HTMLElement) => Promise<Cleanup | void> }> = {
  records: { title: 'Records', render: renderRecords },
  organizations: { title: 'Organizations', render: renderOrganizations },
  billing: { title: 'Billing', render: renderBilling },
  webhooks: { title: 'Webhooks', render: renderWebhooks },
  orders: { title: 'Orders', render: renderOrders },
  inventory: { title: 'Inventory', render: renderInventory },
  directory: { title: 'Directory', render: renderDirectory },
  subscription: { title: 'Subscription', render: renderSubscription },
  account: { title: 'My account', render: renderAccount }
}

const app = document.getElementById('app') as HTMLElement
const connection = document.getElementById('connection') as HTMLElement
let cleanup: Cleanup | void
let signedIn = false

const currentView = () => {
  const name = location.hash.replace(/^#/, '')
  return views[name] ? name : 'records'
}

const show = async () => {
  if (!signedIn) return
  cleanup?.()
  cleanup = undefined
  const name = currentView()
  document
    .querySelectorAll('nav a')
    .forEach((link) =>
      link.setAttribute('aria-current', link.getAttribute('href') === `#${name}` ? 'page' : 'false')
    )
  const main = document.getElementById('view') as HTMLElement
  main.setAttribute('aria-busy', 'true')
  try {
    cleanup = await views[name].render(main)
  } catch (error: any) {
    // The session ended elsewhere (signed out everywhere, password changed): back to the sign-in form.
    if (error?.code === 401) return signOut()
    replace(main, h('p', { role: 'alert', class: 'form-error' }, error?.message ?? String(error)))
  }
  main.setAttribute('aria-busy', 'false')
  document.title = `${views[name].title} · Clinic console`
}

const shell = () => {
  const account = state.account!
  const organizationSelect = h(
    'select',
    {
      id: 'current-organization',
      onchange: (event: Event) => {
        state.current = (event.target as HTMLSelectElement).value
        void show()
      }
    },
    state.organizations.length
      ? state.organizations.map((o) => h('option', { value: o.id, selected: o.id === state.current }, o.name))
      : h('option', { value: '' }, 'no organization')
  )
  replace(
    app,
    h(
      'header',
      { class: 'top' },
      h('h1', {}, 'Clinic console'),
      h(
        'div',
        { class: 'who' },
        h('label', { for: 'current-organization' }, 'Organization'),
        organizationSelect
      ),
      h(
        'div',
        { class: 'who' },
        h('span', { id: 'signed-in-as' }, account.email ?? account.id),
        h(
          'details',
          { class: 'account-id' },
          h('summary', {}, 'My account id'),
          h('code', { id: 'my-account-id' }, account.id),
          ' ',
          copyButton(account.id)
        ),
        h(
          'button',
          { type: 'button', id: 'logout', class: 'secondary', onclick: () => void signOut() },
          'Sign out'
        )
      )
    ),
    h(
      'nav',
      { 'aria-label': 'Sections' },
      Object.entries(views).map(([name, view]) => h('a', { href: `#${name}` }, view.title))
    ),
    h('main', { id: 'view', tabindex: '-1' })
  )
}

const enter = async (result: AuthenticationResult) => {
  state.account = result.account ?? result.user
  await loadOrganizations()
  signedIn = true
  shell()
  await show()
}

client.on('login', (result: AuthenticationResult) => {
  // A reconnect signs in again: the view is reloaded so nothing missed while offline stays missing.
  if (signedIn && state.account?.id === (result.account ?? result.user)?.id) void show()
  else void enter(result)
})
const signedOut = (message = 'Signed out.') => {
  signedIn = false
  cleanup?.()
  cleanup = undefined
  state.account = undefined
  void renderSignIn(app, message)
}
/**
 * Ends the session on the server. When the server no longer knows it (ended elsewhere), the client drops the
 * stored token without a `logout` event; either way the sign-in form comes back.
 */
const signOut = async () => {
  try {
    await client.logout()
  } catch {
    await client.authentication.removeAccessToken()
    await client.authentication.reset()
  }
  if (signedIn) signedOut()
}
// Signed out here, or the session ended elsewhere: then the server says why (`reason`, `message`) before it cuts
// the connection, and the sign-in form shows that sentence.
client.on('logout', (result: AuthenticationResult) => {
  if (signedIn)
    signedOut(
      typeof result?.reason === 'string' && typeof result.message === 'string'
        ? `Signed out. ${result.message}`
        : undefined
    )
})
// Added to (or removed from) an organization while signed in: the header's organizations follow.
for (const event of ['created', 'patched', 'removed']) {
  client.service('organization-members').on(event, async (member: Member) => {
    if (!signedIn || member?.uid !== state.account?.id) return
    await loadOrganizations()
    shell()
    await show()
  })
}
window.addEventListener('hashchange', () => void show())
// A socket the server cut (session ended) does not come back by itself: the next sign-in connects it again.
socket.on(
  'disconnect',
  () => (connection.textContent = socket.active ? 'Connection lost — reconnecting…' : '')
)
socket.on('connect', () => (connection.textContent = ''))

const start = async () => {
  try {
    if (await finishOAuth()) return
  } catch (error: any) {
    return renderSignIn(app, error?.message ?? String(error))
  }
  try {
    await client.reAuthenticate()
  } catch {
    await renderSignIn(app)
  }
}
void start()
