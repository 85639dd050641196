// Sign in, MFA code when the server asks for one (401, data.reason "mfa-required"), sign up, OAuth buttons for
// the providers the server has configured (GET /console/config.json), and the OAuth redirect's return.
import type { AuthenticationRequest } from '@feathersjs/authentication'
import { client } from './api'
import type { AccountData } from '../src/services/accounts/accounts.shared'
import { h, field, formError, showErrors, clearErrors } from './dom'

interface OAuthProvider {
  provider: string
  label: string
  clientId: string
  authorizeURL: string
  scope: string
  extra?: Record<string, string>
}

/** The redirect address both providers send the user back to: this page, ending with `/` (facebook needs it). */
const redirectURI = () => `${location.origin}/`

/** After a provider's redirect: `?code=…&state=…` names the provider; the code is exchanged by the server. */
export const finishOAuth = async (): Promise<boolean> => {
  const query = new URLSearchParams(location.search)
  const code = query.get('code')
  const stateParam = query.get('state')
  if (!code || !stateParam) return false
  history.replaceState(null, '', '/')
  let provider = ''
  try {
    provider = new URLSearchParams(atob(stateParam)).get('provider') ?? ''
  } catch {
    return false
  }
  await client.authenticate({ strategy: provider, redirectURI: redirectURI(), code })
  return true
}

const oauthButtons = async () => {
  let providers: OAuthProvider[] = []
  try {
    const response = await fetch('/console/config.json')
    providers = response.ok ? ((await response.json()).oauth ?? []) : []
  } catch {
    providers = []
  }
  if (providers.length === 0) return null
  return h(
    'section',
    { 'aria-labelledby': 'oauth-title', class: 'card' },
    h('h2', { id: 'oauth-title' }, 'Or sign in with'),
    providers.map((p) =>
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          'data-provider': p.provider,
          onclick: () => {
            const url = new URL(p.authorizeURL)
            url.searchParams.set('client_id', p.clientId)
            url.searchParams.set('redirect_uri', redirectURI())
            url.searchParams.set('scope', p.scope)
            url.searchParams.set('state', btoa(new URLSearchParams({ provider: p.provider }).toString()))
            for (const [key, value] of Object.entries(p.extra ?? {})) url.searchParams.set(key, value)
            location.assign(url.toString())
          }
        },
        p.label
      )
    )
  )
}

export const renderSignIn = async (root: HTMLElement, message = '') => {
  const email = h('input', { type: 'email', autocomplete: 'username', required: true })
  const password = h('input', { type: 'password', autocomplete: 'current-password', required: true })
  const mfaCode = h('input', {
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    pattern: '[0-9]{6}'
  })
  const mfaField = field('MFA code (6 digits from your authenticator app)', mfaCode, 'mfaCode')
  mfaField.hidden = true
  const login = h(
    'form',
    {
      id: 'login-form',
      'aria-labelledby': 'login-title',
      novalidate: true,
      onsubmit: async (event: Event) => {
        event.preventDefault()
        clearErrors(login)
        const body: AuthenticationRequest = {
          strategy: 'local',
          email: email.value,
          password: password.value
        }
        if (!mfaField.hidden && mfaCode.value) body.mfaCode = mfaCode.value.trim()
        try {
          await client.authenticate(body)
        } catch (error: any) {
          if (error?.data?.reason === 'mfa-required') {
            const asked = !mfaField.hidden
            mfaField.hidden = false
            mfaCode.focus()
            showErrors(login, {
              message: asked
                ? 'The MFA code was not accepted; enter the current code.'
                : 'Enter the code from your authenticator app.'
            })
          } else showErrors(login, error)
        }
      }
    },
    h('h2', { id: 'login-title' }, 'Sign in'),
    formError(),
    field('Email', email, 'email'),
    field('Password', password, 'password'),
    mfaField,
    h('button', { type: 'submit' }, 'Sign in')
  )

  const signup = h(
    'form',
    {
      id: 'signup-form',
      'aria-labelledby': 'signup-title',
      novalidate: true,
      onsubmit: async (event: Event) => {
        event.preventDefault()
        clearErrors(signup)
        const data = new FormData(signup)
        const get = (name: string) => String(data.get(name) ?? '').trim()
        const body: AccountData = { email: get('email'), password: String(data.get('password') ?? '') }
        if (get('firstName')) body.firstName = get('firstName')
        if (get('lastName')) body.lastName = get('lastName')
        if (get('organization.name')) body.organization = { name: get('organization.name'), type: 'facility' }
        try {
          await client.service('accounts').create(body)
          await client.authenticate({ strategy: 'local', email: body.email, password: body.password })
        } catch (error) {
          showErrors(signup, error)
        }
      }
    },
    h('h2', { id: 'signup-title' }, 'Create an account'),
    formError(),
    field('Email', h('input', { type: 'email', autocomplete: 'email' }), 'email'),
    field(
      'Password',
      h('input', { type: 'password', autocomplete: 'new-password' }),
      'password',
      'At least 10 characters, mixing two kinds (letters, digits, others).'
    ),
    field('First name', h('input', { type: 'text', autocomplete: 'given-name' }), 'firstName'),
    field('Last name', h('input', { type: 'text', autocomplete: 'family-name' }), 'lastName'),
    field(
      'New facility (optional: you become its superadmin)',
      h('input', { type: 'text' }),
      'organization.name'
    ),
    h('button', { type: 'submit' }, 'Sign up')
  )
  root.replaceChildren(
    h(
      'div',
      { class: 'auth' },
      message ? h('p', { role: 'alert', class: 'notice' }, message) : null,
      h('div', { class: 'card' }, login),
      h('div', { class: 'card' }, signup)
    )
  )
  const buttons = await oauthButtons()
  if (buttons) root.querySelector('.auth')?.appendChild(buttons)
}
