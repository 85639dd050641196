// The patient's notification settings: which channels they accept (appointment reminders, queue calls, …).
// Sign-in codes are always sent, whatever is chosen here.
import { client, useSession } from '../../lib/api'
import { Field, Form } from '../../components'

export function MyNotifications() {
  const { account } = useSession()
  if (!account) return null
  const current = account.notifications ?? {}
  return (
    <section aria-labelledby="my-notifications-title">
      <h1 id="my-notifications-title">Notifications</h1>
      <Form
        title="How your clinic may reach you"
        submitLabel="Save"
        reset={false}
        success="Saved."
        onSubmit={async (data) => {
          await client.service('accounts').patch(account.id, {
            notifications: { email: data.get('email') === 'on', sms: data.get('sms') === 'on' }
          })
        }}
      >
        <Field
          label="Email me (reminders, queue calls)"
          name="email"
          type="checkbox"
          defaultChecked={current.email !== false}
        />
        <Field label="Text me (SMS)" name="sms" type="checkbox" defaultChecked={current.sms !== false} />
        <p class="hint">Sign-in and confirmation codes are always sent.</p>
      </Form>
    </section>
  )
}
