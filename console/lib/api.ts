// The console's one connection: the project's typed client (src/client.ts) over Socket.IO to the server that served
// this page. The authentication client keeps the access token in localStorage (never shown) and signs in again
// after a reload (reAuthenticate) and after a reconnect. Access tokens are short: `keepSessionAlive` refreshes the
// session before each one expires (the refresh token lives in memory only). Views read the signed-in account, its
// facilities and the facility they work in through `useSession()`, and a service's list through `useFind`/`useLive`
// (refetched when the service announces a change the caller may see: the server sends events only to its audience).
import { io } from 'socket.io-client'
import socketio from '@feathersjs/socketio-client'
import type { AuthenticationResult } from '@feathersjs/authentication'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { createClient, keepSessionAlive, type ServiceTypes } from '../../src/client'
import type { Account } from '../../src/services/accounts/accounts.shared'
import type { Member } from '../../src/services/organization-members/organization-members.shared'
import type { Organization } from '../../src/services/organizations/organizations.shared'

export const socket = io(location.origin, { transports: ['websocket'], ackTimeout: 30000 })
export const client = createClient(socketio(socket))
keepSessionAlive(client)

export type { Account, Member, Organization }
export type ServicePath = Exclude<keyof ServiceTypes, 'authentication'>

/** What the console knows of the signed-in person. */
export interface SessionState {
  /** false until the stored session was tried (the console shows "Loading" meanwhile). */
  ready: boolean
  account?: Account
  memberships: Member[]
  organizations: Organization[]
  /** The facility the views work in (chosen in the header). '' when the account belongs to none. */
  current: string
  /** Why the sign-in form is shown again ("Signed out. …"), '' at first. */
  notice: string
  /** Counts the reconnects' sign-ins (live lists refetch on each). */
  generation: number
}

let session: SessionState = {
  ready: false,
  memberships: [],
  organizations: [],
  current: '',
  notice: '',
  generation: 0
}
const listeners = new Set<() => void>()
const update = (change: Partial<SessionState>) => {
  session = { ...session, ...change }
  for (const listener of [...listeners]) listener()
}
export const getSession = () => session

const storedFacility = 'console-facility'

/** The caller's memberships and their organizations (the header's facility selector). */
export const loadOrganizations = async () => {
  const me = session.account?.id
  if (!me) return
  const members = await client.service('organization-members').find({ query: { uid: me, $limit: 200 } })
  const ids = [...new Set(members.data.map((m) => m.organization))]
  const organizations = ids.length
    ? (await client.service('organizations').find({ query: { id: { $in: ids }, $limit: 200 } })).data
    : []
  let current = session.current || localStorage.getItem(storedFacility) || ''
  if (!organizations.some((o) => o.id === current)) current = organizations[0]?.id ?? ''
  update({ memberships: members.data, organizations, current })
}

const accountOf = (result: AuthenticationResult): Account | undefined => result?.account ?? result?.user

client.on('login', (result: AuthenticationResult) => {
  const account = accountOf(result)
  if (!account) return
  // The same account signing in again is a reconnect: live lists refetch what they missed while offline.
  const generation = session.account?.id === account.id ? session.generation + 1 : session.generation
  session = { ...session, account, notice: '' }
  void loadOrganizations()
    .catch(() => undefined)
    .then(() => update({ ready: true, account, generation }))
})
const signedOut = (notice = 'Signed out.') => {
  update({ ready: true, account: undefined, memberships: [], organizations: [], current: '', notice })
}
// Signed out here, or the session ended elsewhere: then the server says why (`reason`, `message`) before it cuts
// the connection, and the sign-in form shows that sentence.
client.on('logout', (result: AuthenticationResult) => {
  if (!session.account) return
  signedOut(
    typeof result?.reason === 'string' && typeof result.message === 'string'
      ? `Signed out. ${result.message}`
      : undefined
  )
})
// Added to (or removed from) an organization while signed in: the header's facilities follow.
for (const event of ['created', 'patched', 'removed']) {
  client.service('organization-members').on(event, (member: Member) => {
    if (session.account && member?.uid === session.account.id) void loadOrganizations()
  })
}

/**
 * Ends the session on the server. When the server no longer knows it (ended elsewhere), the client drops the
 * stored token without a `logout` event; either way the sign-in form comes back.
 */
export const signOut = async () => {
  try {
    await client.logout()
  } catch {
    await client.authentication.removeAccessToken()
    await client.authentication.reset()
  }
  if (session.account) signedOut()
}

/** Tries the stored session once at start; the sign-in form otherwise. */
export const restoreSession = async () => {
  try {
    await client.reAuthenticate()
  } catch {
    update({ ready: true })
  }
}
export const showSignedOut = (notice: string) => signedOut(notice)

/** Sets the facility the views work in (kept for the next visit). */
export const setCurrent = (id: string) => {
  localStorage.setItem(storedFacility, id)
  update({ current: id })
}

const membershipOf = (organization: string) =>
  session.memberships.find((m) => m.organization === organization)

/** The signed-in account, its facilities and what it may do in them. Re-renders on every change. */
export const useSession = () => {
  const [, rerender] = useState(0)
  const state = session
  const rendered = useRef(state)
  rendered.current = state
  useEffect(() => {
    const listener = () => rerender((n) => n + 1)
    listeners.add(listener)
    // A change between this render and the subscription (effects run after paint) is not missed.
    if (rendered.current !== session) listener()
    return () => void listeners.delete(listener)
  }, [])
  return {
    ...state,
    setCurrent,
    signOut,
    /** An application admin (sees every view). */
    isAdmin: state.account?.admin === true,
    /** A member of the facility (or an application admin): the staff's views. */
    isStaff: (organization: string) => state.account?.admin === true || !!membershipOf(organization),
    /** A superadmin of the facility (or an application admin). */
    isSuperadmin: (organization: string) =>
      state.account?.admin === true || membershipOf(organization)?.superadmin === true,
    /** Holds the privilege in the facility (its superadmins hold them all). */
    hasPrivilege: (organization: string, privilege: string) => {
      if (state.account?.admin === true) return true
      const membership = membershipOf(organization)
      return !!membership && (membership.superadmin || membership.privileges.includes(privilege))
    },
    organizationName: (id: string | undefined) =>
      state.organizations.find((o) => o.id === id)?.name ?? ''
  }
}

/** A Feathers error's field problems: `[{ field, message }]` (in `errors` or `data.errors`). */
export const fieldErrors = (error: unknown): Array<{ field: string; message: string }> => {
  if (!error || typeof error !== 'object') return []
  const e = error as { errors?: unknown; data?: { errors?: unknown } }
  const list = Array.isArray(e.errors) ? e.errors : Array.isArray(e.data?.errors) ? e.data.errors : []
  return list
    .filter((p): p is { field?: unknown; message?: unknown } => !!p && typeof p === 'object')
    .map((p) => ({ field: String(p.field ?? ''), message: String(p.message ?? '') }))
}

/** A sentence for a failed call: the server's message (field problems are shown beside their fields). */
export const errorMessage = (error: unknown): string => {
  if (error && typeof error === 'object') {
    const e = error as { message?: unknown; code?: unknown; name?: unknown }
    if (typeof e.message === 'string' && e.message) return e.message
    if (e.code === 401) return 'Your session has ended; sign in again.'
  }
  return String(error ?? 'Something went wrong.')
}

type Listener = (item: unknown) => void
/** Calls `handler` on the service's created/patched/removed events until the returned function is called. */
export const listen = (path: ServicePath, handler: Listener, events = ['created', 'patched', 'removed']) => {
  const service = client.service(path) as unknown as {
    on(event: string, listener: Listener): void
    off(event: string, listener: Listener): void
  }
  for (const event of events) service.on(event, handler)
  return () => {
    for (const event of events) service.off(event, handler)
  }
}

export interface FindState<T> {
  data: T[]
  total: number
  loading: boolean
  error: string
  reload: () => void
}

interface Findable<T> {
  find(params: { query: Record<string, unknown> }): Promise<{ data: T[]; total: number } | T[]>
}

/**
 * `service.find({ query })` whenever `deps` change (the query is read then); `query === null` finds nothing (e.g.
 * no facility chosen yet). A call answered after a newer one started is dropped.
 */
export function useFind<T = Record<string, unknown>>(
  path: ServicePath,
  query: Record<string, unknown> | null,
  deps: unknown[] = [JSON.stringify(query)]
): FindState<T> {
  const [state, setState] = useState<{ data: T[]; total: number; loading: boolean; error: string }>({
    data: [],
    total: 0,
    loading: query !== null,
    error: ''
  })
  const latest = useRef(0)
  const queryRef = useRef(query)
  queryRef.current = query
  const reload = useCallback(() => {
    const q = queryRef.current
    const call = ++latest.current
    if (q === null) {
      setState({ data: [], total: 0, loading: false, error: '' })
      return
    }
    setState((s) => ({ ...s, loading: true }))
    const service = client.service(path) as unknown as Findable<T>
    service.find({ query: q }).then(
      (result) => {
        if (call !== latest.current) return
        const data = Array.isArray(result) ? result : result.data
        const total = Array.isArray(result) ? result.length : result.total
        setState({ data, total, loading: false, error: '' })
      },
      (error: unknown) => {
        if (call === latest.current) setState({ data: [], total: 0, loading: false, error: errorMessage(error) })
      }
    )
  }, [path])
  useEffect(reload, [path, ...deps])
  return { ...state, reload }
}

/**
 * `useFind` that follows the service's events: a created/patched/removed item the server sent (it sends them only
 * to the item's audience) refetches the list, once per burst.
 */
export function useLive<T = Record<string, unknown>>(
  path: ServicePath,
  query: Record<string, unknown> | null,
  deps: unknown[] = [JSON.stringify(query)]
): FindState<T> {
  const generation = useSyncedGeneration()
  const found = useFind<T>(path, query, [...deps, generation])
  const { reload } = found
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const stop = listen(path, () => {
      if (timer) clearTimeout(timer)
      timer = setTimeout(reload, 60)
    })
    return () => {
      if (timer) clearTimeout(timer)
      stop()
    }
  }, [path, reload])
  return found
}

const useSyncedGeneration = () => {
  const [generation, setGeneration] = useState(session.generation)
  useEffect(() => {
    const listener = () => setGeneration(session.generation)
    listeners.add(listener)
    listener()
    return () => void listeners.delete(listener)
  }, [])
  return generation
}

/** `value` once it has stopped changing for `ms` (search as you type: one call per pause). */
export function useDebounced<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

/** A date and time in the reader's locale ('' when absent). */
export const when = (at: number | string | undefined) => (at ? new Date(at).toLocaleString() : '')
/** A person's name from an account (its email when it has none). */
export const personName = (a: { firstName?: string; lastName?: string; email?: string } | undefined) =>
  a ? [a.firstName, a.lastName].filter(Boolean).join(' ') || a.email || '' : ''
