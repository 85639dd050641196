// The signed-in account: its id (to be added to an organization), two-factor authentication on (setupMFA, then
// the first code from the authenticator app) and off (password and a current code), and sign-out everywhere.
import type { AuthenticationRequest, AuthenticationResult } from '@feathersjs/authentication'
import { client, state, type Cleanup } from './api'
import { h, field, formError, showErrors, clearErrors, replace, copyButton } from './dom'

const authenticationCall = (body: AuthenticationRequest): Promise<AuthenticationResult> =>
  client.service('authentication').create(body)

export const renderAccount = async (root: HTMLElement): Promise<Cleanup> => {
  const account = await client.service('accounts').get(state.account!.id)
  const mfa = h('section', { class: 'card', id: 'mfa' })
  const password = () => h('input', { type: 'password', autocomplete: 'current-password' })
  const code = () => h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code' })

  const showOff = () => {
    const form: HTMLFormElement = h('form', {
      id: 'mfa-setup-form',
      novalidate: true,
      'aria-label': 'Turn on two-factor authentication'
    })
    const current = password()
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form)
      try {
        const setup = await authenticationCall({ action: 'setupMFA', password: current.value })
        showConfirm(setup)
      } catch (error) {
        showErrors(form, error)
      }
    })
    form.append(
      h('h3', {}, 'Two-factor authentication is off'),
      formError(),
      field('Current password', current, 'password'),
      h('button', { type: 'submit' }, 'Turn on')
    )
    replace(mfa, form)
  }
  const showConfirm = (setup: AuthenticationResult) => {
    const form: HTMLFormElement = h('form', {
      id: 'mfa-confirm-form',
      novalidate: true,
      'aria-label': 'Confirm two-factor authentication'
    })
    const first = code()
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form)
      try {
        await authenticationCall({
          action: 'applyActionCode',
          code: setup.code,
          payload: { mfaCode: first.value.trim() }
        })
        showOn()
      } catch (error) {
        showErrors(form, error)
      }
    })
    form.append(
      h('h3', {}, 'Add this account to your authenticator app'),
      h(
        'p',
        {},
        'Enter the key below in the app (or open the otpauth link on the phone that has it), then type its current code.'
      ),
      h(
        'p',
        {},
        h('code', { class: 'secret', id: 'mfa-secret' }, setup.secret),
        ' ',
        copyButton(setup.secret, 'Copy key'),
        ' ',
        h('a', { href: setup.otpauthURI }, 'otpauth link')
      ),
      formError(),
      field('Code from the app', first, 'payload.mfaCode'),
      h('button', { type: 'submit' }, 'Confirm')
    )
    replace(mfa, form)
  }
  const showOn = () => {
    const form: HTMLFormElement = h('form', {
      id: 'mfa-disable-form',
      novalidate: true,
      'aria-label': 'Turn off two-factor authentication'
    })
    const current = password()
    const now = code()
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      clearErrors(form)
      try {
        await authenticationCall({ action: 'disableMFA', password: current.value, mfaCode: now.value.trim() })
        showOff()
      } catch (error) {
        showErrors(form, error)
      }
    })
    form.append(
      h('h3', {}, 'Two-factor authentication is on'),
      formError(),
      field('Current password', current, 'password'),
      field('Current code', now, 'mfaCode'),
      h('button', { type: 'submit', class: 'secondary danger' }, 'Turn off')
    )
    replace(mfa, form)
  }
  if (account.mfaEnabled) showOn()
  else showOff()

  replace(
    root,
    h('h2', {}, 'My account'),
    h(
      'dl',
      { class: 'totals' },
      h('dt', {}, 'Email'),
      h('dd', {}, account.email ?? ''),
      h('dt', {}, 'Name'),
      h('dd', {}, [account.firstName, account.lastName].filter(Boolean).join(' ')),
      h('dt', {}, 'Account id'),
      h('dd', {}, h('code', {}, account.id), ' ', copyButton(account.id))
    ),
    mfa,
    h(
      'section',
      { class: 'card' },
      h('h3', {}, 'Sessions'),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary danger',
          id: 'logout-everywhere',
          onclick: async () => {
            if (!confirm('End every session of this account, on every device?')) return
            try {
              await authenticationCall({ action: 'logout-everywhere' })
            } finally {
              await client.logout().catch(() => undefined)
            }
          }
        },
        'Sign out everywhere'
      )
    )
  )
  return () => undefined
}
