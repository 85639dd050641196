// The patient's own appointments: upcoming ones (cancel, with confirmation) and booking a free slot of a provider
// whose facility lets patients book (schedules with `booking: "patients"`). Times in the facility's time zone.
import { useMemo, useState } from 'preact/hooks'
import { client, useFind, useLive, useSession } from '../../lib/api'
import { ConfirmButton, EmptyState, Form, Status, Table } from '../../components'
import type { Appointment } from '../../../src/services/appointments/appointments.shared'
import type { Schedule } from '../../../src/services/schedules/schedules.shared'
import {
  DAY,
  addDays,
  appointmentStatusLabel,
  formatDateTime,
  formatDay,
  formatTime,
  localDate,
  startOfLocalDay,
  zoneLabel
} from '../calendar/time'
import { useSlots, type Slot } from '../calendar/slots'

export function MyAppointments() {
  const { account } = useSession()
  const me = account?.id ?? ''
  const [since] = useState(() => Date.now() - DAY)
  const appointments = useLive<Appointment>(
    'appointments',
    me ? { patient: me, start: { $gte: since }, $sort: { start: 1 }, $limit: 50 } : null
  )
  const [status, setStatus] = useState('')
  return (
    <section aria-labelledby="my-appointments-title">
      <h1 id="my-appointments-title">My appointments</h1>
      <Status>{status}</Status>
      {appointments.data.length === 0 ? (
        <EmptyState
          title={appointments.loading ? 'Loading your appointments…' : 'You have no upcoming appointment.'}
        >
          Book one below when your clinic lets patients book online.
        </EmptyState>
      ) : (
        <Table
          caption="Your upcoming appointments (times in each facility's time zone)"
          rows={appointments.data}
          rowKey={(a) => a.id}
          rowAttributes={(a) => ({ 'data-id': a.id })}
          columns={[
            {
              label: 'When',
              cell: (a) => `${formatDateTime(a.start, a.timeZone ?? 'UTC')} (${a.timeZone ?? 'UTC'})`
            },
            { label: 'With', cell: (a) => a.names?.provider ?? 'Your provider' },
            { label: 'Where', cell: (a) => a.names?.facility ?? '' },
            { label: 'Status', cell: (a) => appointmentStatusLabel[a.status] ?? a.status },
            {
              label: 'Actions',
              cell: (a) =>
                a.status === 'scheduled' ? (
                  <ConfirmButton
                    question={`This cancels your appointment of ${formatDateTime(a.start, a.timeZone ?? 'UTC')} and frees the time for others.`}
                    confirmLabel="Cancel the appointment"
                    onConfirm={async () => {
                      await client
                        .service('appointments')
                        .patch(a.id, { status: 'cancelled', cancelReason: 'Cancelled by the patient' })
                      setStatus('Your appointment is cancelled.')
                    }}
                  >
                    Cancel appointment
                  </ConfirmButton>
                ) : (
                  ''
                )
            }
          ]}
        />
      )}
      <Book
        me={me}
        onBooked={setStatus}
        changes={appointments.data.map((a) => `${a.id}:${a.status}`).join()}
      />
    </section>
  )
}

function Book({
  me,
  onBooked,
  changes
}: {
  me: string
  onBooked: (message: string) => void
  changes: string
}) {
  const schedules = useFind<Schedule>(
    'schedules',
    me ? { booking: 'patients', active: true, $limit: 100 } : null
  )
  const options = useMemo(
    () =>
      schedules.data.map((s) => ({
        key: `${s.facility}:${s.provider}`,
        schedule: s,
        label: `${s.names?.provider ?? 'A provider'} — ${s.names?.facility ?? 'a facility'}`
      })),
    [schedules.data]
  )
  const [chosen, setChosen] = useState('')
  const option = options.find((o) => o.key === chosen) ?? options[0]
  const timeZone = option?.schedule.timeZone ?? 'UTC'
  const [week, setWeek] = useState(0)
  const [now] = useState(() => Date.now())
  const first = addDays(localDate(now, timeZone), week * 7)
  const from = Math.max(now, startOfLocalDay(first, timeZone))
  const to = startOfLocalDay(addDays(first, 7), timeZone)
  const slots = useSlots(
    option ? { facility: option.schedule.facility, provider: option.schedule.provider, from, to } : null,
    changes
  )
  const [slot, setSlot] = useState<Slot | null>(null)
  if (options.length === 0)
    return (
      <section aria-labelledby="book-title">
        <h2 id="book-title">Book an appointment</h2>
        <EmptyState
          title={schedules.loading ? 'Loading…' : 'No clinic lets patients book online with you yet.'}
        >
          Call your clinic to book; a clinic opens online booking in a provider's schedule.
        </EmptyState>
      </section>
    )
  const byDay = new Map<string, Slot[]>()
  for (const s of slots.data) {
    const day = localDate(s.start, timeZone)
    byDay.set(day, [...(byDay.get(day) ?? []), s])
  }
  return (
    <section aria-labelledby="book-title">
      <h2 id="book-title">Book an appointment</h2>
      <div class="field">
        <label for="book-provider">Provider</label>
        <select
          id="book-provider"
          value={option?.key}
          onChange={(e) => {
            setChosen(e.currentTarget.value)
            setSlot(null)
          }}
        >
          {options.map((o) => (
            <option key={o.key} value={o.key}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      <p class="hint">Times in {zoneLabel(timeZone)}, the facility's time zone.</p>
      <div class="buttons">
        <button type="button" class="secondary" disabled={week === 0} onClick={() => setWeek(week - 1)}>
          Previous week
        </button>
        <button type="button" class="secondary" onClick={() => setWeek(week + 1)}>
          Next week
        </button>
      </div>
      {slots.data.length === 0 ? (
        <EmptyState title={slots.loading ? 'Loading free times…' : 'No free time this week.'}>
          Try the next week.
        </EmptyState>
      ) : (
        [...byDay.entries()].map(([day, list]) => (
          <div class="slot-day" key={day} role="group" aria-label={formatDay(day)}>
            <h3>{formatDay(day)}</h3>
            <ul class="slot-list">
              {list.map((s) => (
                <li key={s.start}>
                  <button
                    type="button"
                    class="slot"
                    aria-pressed={slot?.start === s.start}
                    data-start={s.start}
                    onClick={() => setSlot(s)}
                  >
                    {formatTime(s.start, timeZone)}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ))
      )}
      {slot && option && (
        <Form
          title={`Book ${formatDay(localDate(slot.start, timeZone))} at ${formatTime(slot.start, timeZone)} with ${option.label}`}
          heading="h3"
          submitLabel="Book this time"
          onSubmit={async (data) => {
            const reason = String(data.get('reason') ?? '').trim()
            await client.service('appointments').create({
              facility: option.schedule.facility,
              provider: option.schedule.provider,
              patient: me,
              start: slot.start,
              ...(reason ? { reason } : {})
            })
            onBooked(
              `Booked: ${formatDay(localDate(slot.start, timeZone))} at ${formatTime(slot.start, timeZone)}.`
            )
            setSlot(null)
            slots.reload()
          }}
        >
          <div class="field">
            <label for="book-reason">Reason</label>
            <input id="book-reason" name="reason" aria-describedby="book-reason-hint" />
            <small class="hint" id="book-reason-hint">
              Optional: what the visit is for.
            </small>
          </div>
        </Form>
      )}
    </section>
  )
}
