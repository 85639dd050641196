// Hash routing: `#/patients/:id?tab=records` → { path: '/patients/:id', params: { id }, query: { tab } } once
// matched against the route table. Links are ordinary <a href="#/…"> (keyboard, new tab and history work).
import { createElement, type ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'

export interface Route {
  /** The location's path, e.g. '/patients/65a…' ('/' when empty). */
  path: string
  /** Values of the matched pattern's `:names` (filled by `match`). */
  params: Record<string, string>
  query: Record<string, string>
}

const current = (): Route => {
  const hash = location.hash.replace(/^#/, '') || '/'
  const [path, search = ''] = hash.split('?')
  return {
    path: path.startsWith('/') ? path : `/${path}`,
    params: {},
    query: Object.fromEntries(new URLSearchParams(search))
  }
}

/** The current location; re-renders when it changes. */
export const useRoute = (): Route => {
  const [route, setRoute] = useState(current)
  useEffect(() => {
    const changed = () => setRoute(current())
    window.addEventListener('hashchange', changed)
    return () => window.removeEventListener('hashchange', changed)
  }, [])
  return route
}

/** The `:name` values when `path` matches `pattern` ('/patients/:id'), else undefined. */
export const match = (pattern: string, path: string): Record<string, string> | undefined => {
  const want = pattern.split('/').filter(Boolean)
  const got = path.split('/').filter(Boolean)
  if (want.length !== got.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i])
    else if (want[i] !== got[i]) return undefined
  }
  return params
}

/** Goes to `path` ('/patients/1' or '#/patients/1'). */
export const navigate = (path: string) => {
  location.hash = path.startsWith('#') ? path : `#${path.startsWith('/') ? path : `/${path}`}`
}

/** An <a> to a console path ('/patients/1'). */
export function Link({
  href,
  children,
  class: className,
  current: isCurrent
}: {
  href: string
  children: ComponentChildren
  class?: string
  current?: boolean
}) {
  const target = href.startsWith('#') ? href : `#${href}`
  return createElement(
    'a',
    { href: target, class: className, 'aria-current': isCurrent ? 'page' : undefined },
    children
  )
}
