// The signed-in account: name and email (the name editable), two-factor authentication on (setupMFA, then the
// first code from the authenticator app) and off (password and a current code), and sign-out everywhere (with an
// inline confirmation).
import type { AuthenticationRequest, AuthenticationResult } from '@feathersjs/authentication'
import { useEffect, useState } from 'preact/hooks'
import { client, errorMessage, useSession, type Account } from '../../lib/api'
import { ConfirmButton, ErrorText, Field, Form } from '../../components'

const authenticationCall = (body: AuthenticationRequest): Promise<AuthenticationResult> =>
  client.service('authentication').create(body)
const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim()

function TwoFactor({ enabled, onChange }: { enabled: boolean; onChange: (on: boolean) => void }) {
  const [setup, setSetup] = useState<AuthenticationResult | undefined>()
  const [copied, setCopied] = useState('')
  if (enabled)
    return (
      <Form
        id="mfa-disable-form"
        title="Two-factor authentication is on"
        heading="h3"
        submitLabel="Turn off"
        onSubmit={async (data) => {
          await authenticationCall({
            action: 'disableMFA',
            password: String(data.get('password') ?? ''),
            mfaCode: text(data, 'mfaCode')
          })
          onChange(false)
        }}
      >
        <Field
          label="Current password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
        />
        <Field
          label="Current code"
          name="mfaCode"
          inputMode="numeric"
          autoComplete="one-time-code"
          required
        />
      </Form>
    )
  if (setup)
    return (
      <Form
        id="mfa-confirm-form"
        title="Add this account to your authenticator app"
        heading="h3"
        submitLabel="Confirm"
        onSubmit={async (data) => {
          await authenticationCall({
            action: 'applyActionCode',
            code: setup.code,
            payload: { mfaCode: text(data, 'payload.mfaCode') }
          })
          setSetup(undefined)
          onChange(true)
        }}
      >
        <p>
          Enter the key below in the app (or open the otpauth link on the phone that has it), then type its
          current code.
        </p>
        <p>
          <code class="secret" id="mfa-secret">
            {setup.secret}
          </code>{' '}
          <button
            type="button"
            class="secondary small"
            onClick={() =>
              navigator.clipboard.writeText(String(setup.secret)).then(
                () => setCopied('Copied.'),
                () => setCopied('Select the key and copy it.')
              )
            }
          >
            Copy key
          </button>{' '}
          <a href={String(setup.otpauthURI)}>otpauth link</a> <span role="status">{copied}</span>
        </p>
        <Field
          label="Code from the app"
          name="payload.mfaCode"
          inputMode="numeric"
          autoComplete="one-time-code"
          required
        />
      </Form>
    )
  return (
    <Form
      id="mfa-setup-form"
      title="Two-factor authentication is off"
      heading="h3"
      submitLabel="Turn on"
      onSubmit={async (data) => {
        setSetup(
          await authenticationCall({ action: 'setupMFA', password: String(data.get('password') ?? '') })
        )
      }}
    >
      <Field
        label="Current password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
      />
    </Form>
  )
}

export function AccountPage(_props: { params: Record<string, string> }) {
  const session = useSession()
  const [account, setAccount] = useState<Account | undefined>()
  const [error, setError] = useState('')
  const id = session.account?.id
  useEffect(() => {
    if (!id) return
    client
      .service('accounts')
      .get(id)
      .then(setAccount, (e: unknown) => setError(errorMessage(e)))
  }, [id])
  if (error) return <ErrorText message={error} />
  if (!account) return <p aria-busy="true">Loading your account…</p>
  return (
    <>
      <h1>My account</h1>
      <dl class="facts">
        <dt>Email</dt>
        <dd id="account-email">{account.email}</dd>
        <dt>Facilities</dt>
        <dd>
          {session.organizations.map((o) => o.name).join(', ') ||
            'none (you see your own records as a patient)'}
        </dd>
      </dl>
      <div class="columns">
        <section class="card">
          <Form
            id="profile-form"
            title="Your name"
            heading="h2"
            submitLabel="Save name"
            reset={false}
            success="Saved."
            onSubmit={async (data) => {
              const saved = await client.service('accounts').patch(account.id, {
                firstName: text(data, 'firstName'),
                lastName: text(data, 'lastName')
              })
              if (!Array.isArray(saved)) setAccount(saved)
            }}
          >
            <Field
              label="First name"
              name="firstName"
              autoComplete="given-name"
              defaultValue={account.firstName ?? ''}
            />
            <Field
              label="Last name"
              name="lastName"
              autoComplete="family-name"
              defaultValue={account.lastName ?? ''}
            />
          </Form>
        </section>
        <section class="card" id="mfa" aria-label="Two-factor authentication">
          <TwoFactor
            enabled={account.mfaEnabled === true}
            onChange={(on) => setAccount({ ...account, mfaEnabled: on })}
          />
        </section>
      </div>
      <section class="card" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        <p>Signed in on a device you no longer have? End every session of this account.</p>
        <ConfirmButton
          id="logout-everywhere"
          class="secondary danger"
          question="This ends every session of this account, on every device, this one included."
          confirmLabel="Sign out everywhere"
          onConfirm={async () => {
            try {
              await authenticationCall({ action: 'logout-everywhere' })
            } finally {
              await client.logout().catch(() => undefined)
            }
          }}
        >
          Sign out everywhere
        </ConfirmButton>
      </section>
    </>
  )
}
