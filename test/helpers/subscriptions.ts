// Subscription test fixtures, over HTTP as clients do: a server with an application admin, a movable clock and a
// fast time-driven pass; the configured packages by key; sign-ups with a subscription; and the sandbox checkout
// page followed like a plain HTTP client follows its form.
import assert from 'node:assert/strict'
import defaults from '../../config/default.json'
import { http, signUp, startServer, waitUntil, type SignedUp, type TestServer } from './app'

export const ADMIN = { email: 'admin@subs.test', password: 'admin password 1' }
export const DAY = 24 * 60 * 60 * 1000
/** Sessions that outlast the weeks these tests move the app's clock by (sessions end on that clock too: idle after
 *  12 h, at most 30 days by default), so the fixtures' sign-ins stay valid while time runs forward. */
export const LONG_SESSIONS = { ...defaults.sessions, idleMs: 3650 * DAY, maxMs: 3650 * DAY }

/** A clock the test moves: `now()` is the real time plus the offset. */
export interface TestClock {
  offset: number
  now(): number
  advance(ms: number): void
}
export const testClock = (): TestClock => {
  const clock: TestClock = {
    offset: 0,
    now: () => Date.now() + clock.offset,
    advance: (ms) => {
      clock.offset += ms
    }
  }
  return clock
}

export interface SubsServer {
  server: TestServer
  clock: TestClock
  admin: string
  packages: Record<string, any>
}

export const startSubsServer = async (
  overrides: Record<string, unknown> = {},
  subscriptions: Record<string, unknown> = {}
): Promise<SubsServer> => {
  const clock = testClock()
  const server = await startServer({
    admin: ADMIN,
    clock,
    sessions: LONG_SESSIONS,
    subscriptions: { ...defaults.subscriptions, jobIntervalMs: 40, ...subscriptions },
    ...overrides
  })
  const login = await http(server.url, 'POST', '/authentication', {
    body: { email: ADMIN.email, password: ADMIN.password }
  })
  assert.equal(login.status, 201, JSON.stringify(login.body))
  const list = await http(server.url, 'GET', '/subscription/packages?$limit=50')
  assert.equal(list.status, 200, JSON.stringify(list.body))
  const packages = Object.fromEntries(list.body.data.map((pkg: any) => [pkg.key, pkg]))
  return { server, clock, admin: login.body.accessToken, packages }
}

/** Signs up with an organization (a clinic unless `types` says otherwise) subscribed to `pkg`. */
export const signUpWith = async (
  url: string,
  pkg: string,
  extra: { trial?: boolean; types?: string[] } = {}
): Promise<SignedUp & { subscription: any }> => {
  const created = await signUp(url, {
    organization: {
      name: 'Clinic',
      type: 'facility',
      types: extra.types ?? ['clinic'],
      subscription: { package: pkg, ...(extra.trial ? { trial: true } : {}) }
    }
  })
  const found = await http(url, 'GET', `/subscriptions?facility=${created.organization.id}`, {
    token: created.token
  })
  assert.equal(found.status, 200, JSON.stringify(found.body))
  return { ...created, subscription: found.body.data[0] }
}

/** Follows a sandbox checkout URL: reads the page, then submits its Pay (or Fail) form. Answers the final response. */
export const followCheckout = async (checkoutUrl: string, button: 'pay' | 'fail' = 'pay') => {
  const page = await fetch(checkoutUrl)
  assert.equal(page.status, 200)
  const html = await page.text()
  const action = new RegExp(
    `<form method="post" action="([^"]+)"><button type="submit" id="${button}">`
  ).exec(html)?.[1]
  assert.ok(action, `no ${button} form on the page: ${html}`)
  const submitted = await fetch(new URL(action.replace(/&amp;/g, '&'), checkoutUrl), {
    method: 'POST',
    redirect: 'manual'
  })
  assert.equal(submitted.status, 303)
  return submitted
}

/** The subscription as its facility's superadmin reads it. */
export const readSubscription = async (url: string, token: string, id: string) => {
  const res = await http(url, 'GET', `/subscriptions/${id}`, { token })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body
}

/** Waits until the time-driven pass has moved the subscription to `status`. */
export const waitForStatus = async (url: string, token: string, id: string, status: string) => {
  await waitUntil(
    async () => (await readSubscription(url, token, id)).status === status,
    5000,
    `subscription ${id} to become ${status}`
  )
  return readSubscription(url, token, id)
}
