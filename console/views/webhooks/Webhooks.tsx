// Webhooks of the current facility (its superadmins) and of the signed-in account: register one (its signing
// secret is shown this once), ping it, activate or deactivate it, and read its delivery log (retry failed ones).
import { useEffect, useState } from 'preact/hooks'
import { client, errorMessage, useFind, useLive, useSession, when } from '../../lib/api'
import { EmptyState, ErrorText, Field, Form, Status, Table } from '../../components'
import type { Webhook } from '../../../src/services/webhooks/webhooks.shared'
import type { Delivery } from '../../../src/services/webhook-events/webhook-events.shared'

const deliveryStatus = (status: string) =>
  ({ pending: 'Waiting', delivered: 'Delivered', failed: 'Failed', retrying: 'Retrying' })[status] ?? status

export function Webhooks(_props: { params: Record<string, string> }) {
  const session = useSession()
  const me = session.account?.id ?? ''
  const facility = session.current
  const manageFacility = !!facility && session.isSuperadmin(facility)
  const mine = useLive<Webhook>('webhooks', me ? { account: me, $limit: 100 } : null)
  const theirs = useLive<Webhook>('webhooks', manageFacility ? { organization: facility, $limit: 100 } : null)
  const hooks = [...theirs.data, ...mine.data]
  const [open, setOpen] = useState('')
  const [secret, setSecret] = useState('')
  const [message, setMessage] = useState('')
  const [error, setError] = useState('')
  const act = async (what: () => Promise<unknown>, done: string) => {
    setError('')
    setMessage('')
    try {
      await what()
      setMessage(done)
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <section>
      <h1>Webhooks</h1>
      <p>A webhook sends each change of the chosen kinds to a URL of yours, signed with its secret.</p>
      <Status>{message}</Status>
      <ErrorText message={error || mine.error || theirs.error} />
      {secret && (
        <div class="notice" id="webhook-secret">
          <p>Signing secret — shown this once; keep it where the receiver can read it:</p>
          <code class="secret">{secret}</code>{' '}
          <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(secret)}>
            Copy secret
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setSecret('')}>
            Done
          </button>
        </div>
      )}
      {hooks.length === 0 ? (
        <EmptyState title="No webhooks yet.">
          <p>Register one below to have changes sent to your system.</p>
        </EmptyState>
      ) : (
        <Table<Webhook>
          id="webhooks"
          caption="Registered webhooks"
          rows={hooks}
          rowKey={(h) => h.id}
          columns={[
            { label: 'URL', cell: (h) => h.url },
            { label: 'Changes sent', cell: (h) => (h.events === '*' ? 'Every change' : h.events) },
            {
              label: 'Of',
              cell: (h) => (h.organization ? session.organizationName(h.organization) : 'My account')
            },
            {
              label: 'State',
              cell: (h) =>
                h.active ? 'Active' : `Inactive${h.deactivatedReason ? ` (${h.deactivatedReason})` : ''}`
            },
            {
              label: 'Actions',
              cell: (h) => (
                <div class="actions">
                  <button
                    type="button"
                    class="secondary"
                    onClick={() =>
                      act(async () => {
                        await client.service('webhook-events').create({ webhook: h.id, event: 'ping' })
                        setOpen(h.id)
                      }, 'Ping sent.')
                    }
                  >
                    Ping
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    aria-expanded={open === h.id}
                    onClick={() => setOpen(open === h.id ? '' : h.id)}
                  >
                    Delivery log
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() =>
                      act(
                        () => client.service('webhooks').patch(h.id, { active: !h.active }),
                        h.active ? 'Deactivated.' : 'Activated.'
                      )
                    }
                  >
                    {h.active ? 'Deactivate' : 'Activate'}
                  </button>
                </div>
              )
            }
          ]}
        />
      )}
      {open && <DeliveryLog webhook={hooks.find((h) => h.id === open)} />}
      <Form
        id="webhook-form"
        title="Register a webhook"
        heading="h2"
        submitLabel="Register"
        onSubmit={async (data) => {
          const owner = String(data.get('owner'))
          const created = await client.service('webhook-events').create({
            ...(owner === 'facility' ? { organization: facility } : { account: me }),
            url: String(data.get('url') ?? '').trim(),
            events: String(data.get('events') ?? '').trim() || '*'
          })
          setSecret(created.secret)
        }}
      >
        <Field label="For" name="owner" as="select">
          {manageFacility && (
            <option value="facility">{session.organizationName(facility)} (the facility)</option>
          )}
          <option value="account">My account</option>
        </Field>
        <Field label="URL" name="url" type="url" required placeholder="https://hooks.example.org/clinic" />
        <Field
          label="Changes to send"
          name="events"
          defaultValue="*"
          hint="* for every change, or a comma-separated list such as medical-records, billing-payments.create."
        />
      </Form>
    </section>
  )
}

function DeliveryLog({ webhook }: { webhook?: Webhook }) {
  const deliveries = useFind<Delivery>(
    'webhook-events',
    webhook ? { webhook: webhook.id, $limit: 50, $sort: { createdAt: -1 } } : null
  )
  const { reload } = deliveries
  // Deliveries change in the background (the delivery worker): read again every two seconds while open.
  useEffect(() => {
    const timer = setInterval(reload, 2000)
    return () => clearInterval(timer)
  }, [reload])
  const [error, setError] = useState('')
  if (!webhook) return null
  return (
    <section aria-live="polite">
      <h2 class="wrap">Deliveries to {webhook.url}</h2>
      <ErrorText message={error || deliveries.error} />
      {deliveries.data.length === 0 ? (
        <EmptyState title="Nothing was sent yet." />
      ) : (
        <Table<Delivery>
          id="delivery-log"
          caption="Newest first"
          rows={deliveries.data}
          rowKey={(d) => d.id}
          rowAttributes={(d) => ({ 'data-status': d.status })}
          columns={[
            { label: 'Change', cell: (d) => d.event },
            { label: 'Status', cell: (d) => deliveryStatus(d.status) },
            { label: 'Attempts', cell: (d) => String(d.attempts) },
            {
              label: 'Last answer',
              cell: (d) =>
                d.lastResponse
                  ? `${d.lastResponse.status ?? ''} ${d.lastResponse.error ?? ''} in ${d.lastResponse.durationMs} ms, ${when(d.lastResponse.at)}`
                  : '—'
            },
            { label: 'Created', cell: (d) => when(d.createdAt) },
            {
              label: 'Retry',
              cell: (d) =>
                d.status === 'failed' ? (
                  <button
                    type="button"
                    class="secondary"
                    onClick={async () => {
                      setError('')
                      try {
                        await client.service('webhook-events').patch(d.id, { retry: true })
                        reload()
                      } catch (e) {
                        setError(errorMessage(e))
                      }
                    }}
                  >
                    Retry
                  </button>
                ) : (
                  ''
                )
            }
          ]}
        />
      )}
    </section>
  )
}
