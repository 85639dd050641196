// Sign in (the MFA code field appears when the server answers 401 with data.reason "mfa-required"), sign up
// (optionally with a new facility the account becomes superadmin of), the OAuth buttons of the providers the
// server has configured (GET /console/config.json), and the OAuth redirect's return (`finishOAuth`).
import type { AuthenticationRequest } from '@feathersjs/authentication'
import { useEffect, useRef, useState } from 'preact/hooks'
import { client } from '../../lib/api'
import type { AccountData } from '../../../src/services/accounts/accounts.shared'
import { Field, Form } from '../../components'
import { ClaimAccount } from './ClaimAccount'

interface OAuthProvider {
  provider: string
  label: string
  clientId: string
  authorizeURL: string
  scope: string
  extra?: Record<string, string>
}

/** The redirect address providers send the user back to: this page, ending with `/` (facebook needs it). */
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

const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim()

function OAuthButtons() {
  const [providers, setProviders] = useState<OAuthProvider[]>([])
  useEffect(() => {
    fetch('/console/config.json')
      .then((response) => (response.ok ? response.json() : {}))
      .then((config: { oauth?: OAuthProvider[] }) => setProviders(config.oauth ?? []))
      .catch(() => setProviders([]))
  }, [])
  if (providers.length === 0) return null
  return (
    <section aria-labelledby="oauth-title" class="card">
      <h2 id="oauth-title">Or sign in with</h2>
      <div class="actions">
        {providers.map((p) => (
          <button
            type="button"
            class="secondary"
            data-provider={p.provider}
            onClick={() => {
              const url = new URL(p.authorizeURL)
              url.searchParams.set('client_id', p.clientId)
              url.searchParams.set('redirect_uri', redirectURI())
              url.searchParams.set('scope', p.scope)
              url.searchParams.set('state', btoa(new URLSearchParams({ provider: p.provider }).toString()))
              for (const [key, value] of Object.entries(p.extra ?? {})) url.searchParams.set(key, value)
              location.assign(url.toString())
            }}
          >
            {p.label}
          </button>
        ))}
      </div>
    </section>
  )
}

function SignInForm() {
  const [askCode, setAskCode] = useState(false)
  const code = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (askCode) code.current?.querySelector('input')?.focus()
  }, [askCode])
  return (
    <Form
      id="login-form"
      title="Sign in"
      heading="h2"
      submitLabel="Sign in"
      reset={false}
      onSubmit={async (data) => {
        const body: AuthenticationRequest = {
          strategy: 'local',
          email: text(data, 'email'),
          password: String(data.get('password') ?? '')
        }
        if (askCode && text(data, 'mfaCode')) body.mfaCode = text(data, 'mfaCode')
        try {
          await client.authenticate(body)
        } catch (error) {
          const reason = (error as { data?: { reason?: unknown } })?.data?.reason
          if (reason !== 'mfa-required') throw error
          const asked = askCode
          setAskCode(true)
          throw new Error(
            asked
              ? 'The MFA code was not accepted; enter the current code.'
              : 'Enter the code from your authenticator app.'
          )
        }
      }}
    >
      <Field label="Email" name="email" type="email" autoComplete="username" required />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      <div ref={code} hidden={!askCode}>
        <Field
          label="MFA code (6 digits from your authenticator app)"
          name="mfaCode"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
        />
      </div>
    </Form>
  )
}

function SignUpForm() {
  return (
    <Form
      id="signup-form"
      title="Create an account"
      heading="h2"
      submitLabel="Sign up"
      reset={false}
      onSubmit={async (data) => {
        const body: AccountData = { email: text(data, 'email'), password: String(data.get('password') ?? '') }
        if (text(data, 'firstName')) body.firstName = text(data, 'firstName')
        if (text(data, 'lastName')) body.lastName = text(data, 'lastName')
        if (text(data, 'organization.name'))
          body.organization = { name: text(data, 'organization.name'), type: 'facility' }
        await client.service('accounts').create(body)
        await client.authenticate({ strategy: 'local', email: body.email, password: body.password })
      }}
    >
      <Field label="Email" name="email" type="email" autoComplete="email" required />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 10 characters, mixing two kinds (letters, digits, others)."
      />
      <Field label="First name" name="firstName" type="text" autoComplete="given-name" />
      <Field label="Last name" name="lastName" type="text" autoComplete="family-name" />
      <Field
        label="New facility (optional: you become its superadmin)"
        name="organization.name"
        type="text"
        autoComplete="organization"
      />
    </Form>
  )
}

/** The signed-out page: why (after a session ended), sign in, sign up, OAuth. */
export function SignIn({ notice }: { notice?: string }) {
  return (
    <main id="view" class="auth" tabIndex={-1}>
      {notice && (
        <p role="alert" class="notice">
          {notice}
        </p>
      )}
      <div class="card">
        <SignInForm />
      </div>
      <ClaimAccount />
      <div class="card">
        <SignUpForm />
      </div>
      <OAuthButtons />
    </main>
  )
}
