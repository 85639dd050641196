// The console's shell: the sign-in page until a session exists; then the header (facility selector, who is
// signed in, sign out), the nav of the views the account's audience may use in the current facility, and the view
// the hash names (the first nav entry when it names none). The view's main region takes focus on navigation.
import { useEffect, useRef } from 'preact/hooks'
import { useSession, socket } from './lib/api'
import { Link, match, useRoute } from './lib/router'
import { routes, type Audience, type RouteDef } from './routes'
import { SignIn } from './views/auth/SignIn'
import { EmptyState } from './components'

/** Which audiences the signed-in account belongs to in the current facility. */
export const useAudiences = (): Set<Audience> => {
  const session = useSession()
  const audiences = new Set<Audience>(['any'])
  const all = session.isAdmin || (session.current !== '' && session.isSuperadmin(session.current))
  if (all || (session.current && session.isStaff(session.current))) audiences.add('staff')
  if (all || session.memberships.length === 0) audiences.add('patient')
  return audiences
}

function Connection() {
  const status = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = document.getElementById('connection')
    const lost = () => {
      if (element) element.textContent = socket.active ? 'Connection lost — reconnecting…' : ''
    }
    const back = () => {
      if (element) element.textContent = ''
    }
    socket.on('disconnect', lost)
    socket.on('connect', back)
    return () => {
      socket.off('disconnect', lost)
      socket.off('connect', back)
    }
  }, [])
  return <div ref={status} hidden />
}

function Header() {
  const session = useSession()
  return (
    <header class="top">
      <p class="brand">Clinic console</p>
      {session.organizations.length > 0 && (
        <div class="who">
          <label for="current-organization">Facility</label>
          <select
            id="current-organization"
            value={session.current}
            onChange={(event) => session.setCurrent((event.currentTarget as HTMLSelectElement).value)}
          >
            {session.organizations.map((o) => (
              <option value={o.id}>{o.name}</option>
            ))}
          </select>
        </div>
      )}
      <div class="who">
        <span id="signed-in-as">{session.account?.email ?? ''}</span>
        <button type="button" id="logout" class="secondary" onClick={() => void session.signOut()}>
          Sign out
        </button>
      </div>
    </header>
  )
}

export function App() {
  const session = useSession()
  const route = useRoute()
  const audiences = useAudiences()
  const main = useRef<HTMLElement>(null)
  const allowed = routes.filter((r) => audiences.has(r.audience))
  const nav = allowed.filter((r) => r.nav)
  let found: { route: RouteDef; params: Record<string, string> } | undefined
  for (const r of allowed) {
    const params = match(r.path, route.path)
    if (params) {
      found = { route: r, params }
      break
    }
  }
  if (!found && route.path === '/' && nav[0]) found = { route: nav[0], params: {} }
  const title = found?.route.title ?? 'Not found'
  useEffect(() => {
    document.title = `${title} · Clinic console`
  }, [title])
  useEffect(() => {
    if (session.account) main.current?.focus({ preventScroll: true })
  }, [route.path])

  if (!session.ready)
    return (
      <main id="view" class="auth">
        <p>Loading the console…</p>
      </main>
    )
  if (!session.account) return <SignIn notice={session.notice} />
  const View = found?.route.component
  const activeNav = found ? (nav.find((r) => found.route.path.startsWith(r.path)) ?? found.route) : undefined
  return (
    <>
      <Connection />
      <Header />
      <nav aria-label="Sections">
        {nav.map((r) => (
          <Link href={r.path} current={activeNav?.path === r.path}>
            {r.nav}
          </Link>
        ))}
      </nav>
      <main id="view" tabIndex={-1} ref={main} key={session.current}>
        {View && found ? (
          <View params={{ ...route.query, ...found.params }} />
        ) : (
          <EmptyState title="This page is not here.">
            <p>
              The address names no view you can open in this facility. Choose one in the navigation above.
            </p>
          </EmptyState>
        )}
      </main>
    </>
  )
}
