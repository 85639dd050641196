// "Who accessed my record": the audit trail's events about the patient, newest first, in words — who (the actor's
// name, role and facility, as the server resolves them with `$names`), did what, to which of their data, when.
import { useState } from 'preact/hooks'
import { useFind, useSession } from '../../lib/api'
import { EmptyState } from '../../components'
import type { AuditEventDoc } from '../../../src/services/audit-events/audit-events.schema'

const things: Record<string, string> = {
  'medical-records': 'your medical records',
  'medical-encounters': 'your visits',
  'billing-invoices': 'your bills',
  'billing-items': 'the lines of your bills',
  'billing-payments': 'your payments',
  'billing-payment-intents': 'your card payments',
  appointments: 'your appointments',
  'queue-items': 'your place in the waiting room',
  queues: 'the waiting-room queue with your ticket',
  'request-orders': 'orders for you',
  attachments: 'your files',
  notifications: 'the messages sent to you'
}
const verbs: Record<string, string> = {
  read: 'viewed',
  create: 'added to',
  patch: 'changed',
  update: 'replaced',
  remove: 'removed from'
}

/** One event as a sentence. */
export const describeEvent = (event: AuditEventDoc, me: string) => {
  const thing = things[event.service] ?? event.service.replace(/-/g, ' ')
  const who =
    event.actor === me
      ? 'You'
      : event.actorName
        ? `${event.actorName}${event.actorRole ? ` (${event.actorRole}${event.facilityName ? `, ${event.facilityName}` : ''})` : event.facilityName ? ` (${event.facilityName})` : ''}`
        : event.actor
          ? `Someone${event.actorRole ? ` (${event.actorRole})` : ''}${event.facilityName ? ` at ${event.facilityName}` : ''}`
          : event.via === 'webhook'
            ? `A connected system${event.facilityName ? ` of ${event.facilityName}` : ''}`
            : 'Someone not signed in'
  const verb = verbs[event.action] ?? event.action
  const how =
    event.via === 'realtime' ? ' as it changed' : event.via === 'webhook' ? ' (sent automatically)' : ''
  if (event.outcome === 'denied') return `${who} tried to see ${thing} and was refused.`
  return `${who} ${verb} ${thing}${how}.`
}

export function WhoAccessed() {
  const { account } = useSession()
  const me = account?.id ?? ''
  const [mine, setMine] = useState(false)
  // Others' accesses by default: the patient's own reads of their data are many and say little.
  const events = useFind<AuditEventDoc>(
    'audit-events',
    me ? { patient: me, ...(mine ? {} : { actor: { $ne: me } }), $names: true, $limit: 50 } : null
  )
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
  return (
    <section aria-labelledby="who-title">
      <h1 id="who-title">Who accessed my record</h1>
      <p class="hint">
        Every time someone sees or changes your data it is recorded. Newest first; times in your device's time
        zone ({zone}).
      </p>
      <div class="field check">
        <input
          id="who-mine"
          type="checkbox"
          checked={mine}
          onChange={(e) => setMine(e.currentTarget.checked)}
        />
        <label for="who-mine">Include what I did myself</label>
      </div>
      {events.data.length === 0 ? (
        <EmptyState
          title={
            events.loading
              ? 'Loading…'
              : mine
                ? 'No one has accessed your data yet.'
                : 'No one else has accessed your data yet.'
          }
        />
      ) : (
        <ol class="access-log">
          {events.data.map((event) => (
            <li key={event.id}>
              <time dateTime={new Date(event.at).toISOString()}>{format.format(new Date(event.at))}</time>{' '}
              <span>{describeEvent(event, me)}</span>
            </li>
          ))}
        </ol>
      )}
      {events.total > events.data.length && (
        <p class="hint">The 50 most recent of {events.total} are shown.</p>
      )}
    </section>
  )
}
