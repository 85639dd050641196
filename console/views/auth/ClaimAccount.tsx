// "First time here? Set your password": the person a facility registered (or imported) has an account without a
// password. They ask for a code by email (the server answers alike for every address), type the code from the
// mail and a new password (applyActionCode with payload.password), and are signed in with it.
import type { AuthenticationRequest, AuthenticationResult } from '@feathersjs/authentication'
import { useEffect, useRef, useState } from 'preact/hooks'
import { client } from '../../lib/api'
import { Field, Form, Status } from '../../components'

const authenticationCall = (body: AuthenticationRequest): Promise<AuthenticationResult> =>
  client.service('authentication').create(body)
const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim()

export function ClaimAccount() {
  const [open, setOpen] = useState(false)
  const [email, setEmail] = useState('')
  const card = useRef<HTMLElement>(null)
  // Each step starts at its first input.
  useEffect(() => {
    if (open) card.current?.querySelector('input')?.focus()
  }, [open, email])
  if (!open)
    return (
      <p class="claim-start">
        <button type="button" class="secondary" onClick={() => setOpen(true)}>
          First time here? Set your password
        </button>
      </p>
    )
  return (
    <section class="card" aria-labelledby="claim-title" ref={card}>
      <h2 id="claim-title">Set your password</h2>
      {/* Keyed: each step is a new form, so no input keeps the other step's value. */}
      {!email ? (
        <Form
          key="request"
          id="claim-request-form"
          title="Get a code by email"
          heading="h3"
          submitLabel="Send me a code"
          reset={false}
          onSubmit={async (data) => {
            const address = text(data, 'email')
            await authenticationCall({ action: 'sendClaimCode', email: address })
            setEmail(address)
          }}
          actions={
            <button type="button" class="secondary" onClick={() => setOpen(false)}>
              Cancel
            </button>
          }
        >
          <p>
            If your clinic registered you, your account has no password yet. Enter the email address the
            clinic has for you: we mail you a code to choose one.
          </p>
          <Field label="Email" name="email" type="email" autoComplete="email" required />
        </Form>
      ) : (
        <Form
          key="password"
          id="claim-password-form"
          title="Choose your password"
          heading="h3"
          submitLabel="Set password and sign in"
          reset={false}
          onSubmit={async (data) => {
            const password = String(data.get('payload.password') ?? '')
            await authenticationCall({
              action: 'applyActionCode',
              code: text(data, 'code'),
              payload: { password }
            })
            await client.authenticate({ strategy: 'local', email, password })
          }}
          actions={
            <button type="button" class="secondary" onClick={() => setEmail('')}>
              Use another email
            </button>
          }
        >
          <Status>
            If {email} belongs to an account without a password, a code is on its way. It can be used once.
          </Status>
          <Field
            label="Code from the email"
            name="code"
            type="text"
            autoComplete="one-time-code"
            hint="It looks like ABCD1234-12345678."
            required
          />
          <Field
            label="New password"
            name="payload.password"
            type="password"
            autoComplete="new-password"
            required
            hint="At least 10 characters, mixing two kinds (letters, digits, others)."
          />
        </Form>
      )}
    </section>
  )
}
