// The project's typed client (src/client.ts) over Socket.IO to the server that served this page. The
// authentication client keeps the access token in localStorage (never shown) and signs in again after a
// reload (reAuthenticate) and after a reconnect (its own handler on the socket's disconnect). A call the
// server has not answered within `ackTimeout` (or when the connection drops under it) fails instead of waiting.
// Access tokens are short: `keepSessionAlive` refreshes the session before each one expires (the refresh token is
// kept in memory only, so after a reload the console lives on the stored access token until it signs in again).
import { io } from 'socket.io-client'
import socketio from '@feathersjs/socketio-client'
import { createClient, keepSessionAlive, type ServiceTypes } from '../src/client'
import type { Account } from '../src/services/accounts/accounts.shared'
import type { Member } from '../src/services/organization-members/organization-members.shared'
import type { Organization } from '../src/services/organizations/organizations.shared'

export const socket = io(location.origin, { transports: ['websocket'], ackTimeout: 30000 })
export const client = createClient(socketio(socket))
keepSessionAlive(client)

export type { Account, Member, Organization }

export const state = {
  account: undefined as Account | undefined,
  memberships: [] as Member[],
  organizations: [] as Organization[],
  /** The organization the views work in (chosen in the header). */
  current: '' as string
}

/** The caller's memberships and their organizations. */
export const loadOrganizations = async () => {
  const me = state.account?.id
  if (!me) return
  const members = await client.service('organization-members').find({ query: { uid: me, $limit: 200 } })
  state.memberships = members.data
  const ids = [...new Set(state.memberships.map((m) => m.organization))]
  const organizations = ids.length
    ? (await client.service('organizations').find({ query: { id: { $in: ids }, $limit: 200 } })).data
    : []
  state.organizations = organizations
  if (!state.organizations.some((o) => o.id === state.current))
    state.current = state.organizations[0]?.id ?? ''
}

export const organizationName = (id: string | undefined) =>
  state.organizations.find((o) => o.id === id)?.name ?? id ?? ''
export const isSuperadmin = (organization: string) =>
  state.memberships.some((m) => m.organization === organization && m.superadmin)

/** A listener on a service event, removed when the view is left. */
export type Cleanup = () => void
export const listen = (path: keyof ServiceTypes, events: string[], handler: (item: any) => void): Cleanup => {
  const service = client.service(path)
  for (const event of events) service.on(event, handler)
  return () => {
    for (const event of events) service.off(event, handler)
  }
}

/** Runs `fn` at most once per `ms` after the last call (realtime bursts refetch once). */
export const debounce = (fn: () => void, ms = 80) => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return () => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(fn, ms)
  }
}
