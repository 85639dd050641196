// The facility's calendar: a provider's day or week of appointments and free slots, in the schedule's time zone.
// Book a free slot for a patient picked by name; check in; reschedule by dragging an appointment onto a free slot
// or, from the keyboard, with its "Move" form. Live: the server's appointment events refetch the view.
import { useMemo, useState } from 'preact/hooks'
import { client, errorMessage, useLive, useSession } from '../../lib/api'
import { EmptyState, Field, Form, Status } from '../../components'
import type { Appointment } from '../../../src/services/appointments/appointments.shared'
import type { Schedule } from '../../../src/services/schedules/schedules.shared'
import { PatientPicker } from './PatientPicker'
import { useSlots, type Slot } from './slots'
import {
  DAY,
  addDays,
  appointmentStatusLabel,
  formatDay,
  formatTime,
  localDate,
  mondayOf,
  startOfLocalDay,
  zoneLabel
} from './time'

type Entry =
  { at: number; kind: 'slot'; slot: Slot } | { at: number; kind: 'appointment'; appointment: Appointment }

/** Appointments that hold their time (the others are listed, not placed). */
const holdsTime = (a: Appointment) => a.status !== 'cancelled' && a.status !== 'no-show'

export function Calendar() {
  const session = useSession()
  const facility = session.current
  const schedules = useLive<Schedule>('schedules', facility ? { facility, active: true, $limit: 100 } : null)
  const providers = useMemo(() => {
    const seen = new Map<string, { id: string; name: string; timeZone: string }>()
    for (const s of schedules.data)
      if (!seen.has(s.provider))
        seen.set(s.provider, {
          id: s.provider,
          name: s.names?.provider ?? 'Unnamed provider',
          timeZone: s.timeZone
        })
    return [...seen.values()]
  }, [schedules.data])
  const [chosenProvider, setProvider] = useState('')
  const provider = providers.find((p) => p.id === chosenProvider) ?? providers[0]
  const timeZone = provider?.timeZone ?? 'UTC'
  const [mode, setMode] = useState<'day' | 'week'>('day')
  const [date, setDate] = useState(() => localDate(Date.now(), timeZone))
  const first = mode === 'week' ? mondayOf(date) : date
  const days = Array.from({ length: mode === 'week' ? 7 : 1 }, (_, i) => addDays(first, i))
  const from = startOfLocalDay(first, timeZone)
  const to = startOfLocalDay(addDays(first, days.length), timeZone)

  const appointments = useLive<Appointment>(
    'appointments',
    provider
      ? { facility, provider: provider.id, start: { $gte: from, $lt: to }, $sort: { start: 1 }, $limit: 100 }
      : null
  )
  const changes = appointments.data.map((a) => `${a.id}:${a.start}:${a.status}`).join()
  const slots = useSlots(provider ? { facility, provider: provider.id, from, to } : null, changes)
  const [booking, setBooking] = useState<Slot | null>(null)
  const [moving, setMoving] = useState<string>('')
  const [status, setStatus] = useState('')
  const [problem, setProblem] = useState('')

  const act = async (what: () => Promise<string>) => {
    setProblem('')
    setStatus('')
    try {
      setStatus(await what())
    } catch (error) {
      setProblem(errorMessage(error))
    }
  }
  const reschedule = (id: string, start: number) =>
    act(async () => {
      await client.service('appointments').patch(id, { start })
      setMoving('')
      return `Moved to ${formatTime(start, timeZone)} on ${formatDay(localDate(start, timeZone))}.`
    })
  const checkIn = (a: Appointment) =>
    act(async () => {
      await client.service('appointments').patch(a.id, { status: 'checked-in' })
      return `${a.names?.patient ?? 'The patient'} is checked in.`
    })

  if (!facility)
    return <EmptyState title="Choose a facility first.">Your facilities are in the header.</EmptyState>
  return (
    <section class="calendar" aria-labelledby="calendar-title">
      <h1 id="calendar-title">Calendar</h1>
      {providers.length === 0 ? (
        <EmptyState title={schedules.loading ? 'Loading schedules…' : 'No provider has a schedule here yet.'}>
          Free slots come from providers' weekly schedules; someone with the scheduling privilege creates
          them.
        </EmptyState>
      ) : (
        <>
          <div class="toolbar" role="group" aria-label="What the calendar shows">
            <div class="field">
              <label for="calendar-provider">Provider</label>
              <select
                id="calendar-provider"
                value={provider?.id}
                onChange={(event) => setProvider(event.currentTarget.value)}
              >
                {providers.map((p) => (
                  <option value={p.id} key={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="calendar-date">Date</label>
              <input
                id="calendar-date"
                type="date"
                value={date}
                onChange={(event) => event.currentTarget.value && setDate(event.currentTarget.value)}
              />
            </div>
            <div class="buttons">
              <button
                type="button"
                class="secondary"
                onClick={() => setDate(addDays(date, mode === 'week' ? -7 : -1))}
              >
                Previous {mode}
              </button>
              <button
                type="button"
                class="secondary"
                onClick={() => setDate(localDate(Date.now(), timeZone))}
              >
                Today
              </button>
              <button
                type="button"
                class="secondary"
                onClick={() => setDate(addDays(date, mode === 'week' ? 7 : 1))}
              >
                Next {mode}
              </button>
              <button
                type="button"
                aria-pressed={mode === 'week'}
                class="secondary"
                onClick={() => setMode(mode === 'week' ? 'day' : 'week')}
              >
                {mode === 'week' ? 'Show one day' : 'Show the week'}
              </button>
            </div>
          </div>
          <p class="hint">Times in {zoneLabel(timeZone)}, the schedule's time zone.</p>
          <Status>{status}</Status>
          <p class="form-error" role="alert">
            {problem || appointments.error || slots.error}
          </p>
          {booking && provider && (
            <BookForm
              facility={facility}
              provider={provider}
              slot={booking}
              timeZone={timeZone}
              onDone={(message) => {
                setBooking(null)
                setStatus(message)
              }}
              onCancel={() => setBooking(null)}
            />
          )}
          <div class={`days days-${days.length}`}>
            {days.map((day) => {
              const start = startOfLocalDay(day, timeZone)
              const end = start + DAY + 2 * 3_600_000
              const inDay = (t: number) => localDate(t, timeZone) === day && t >= start && t < end
              const dayAppointments = appointments.data.filter((a) => inDay(a.start))
              const daySlots = slots.data.filter((s) => inDay(s.start))
              const entries: Entry[] = [
                ...dayAppointments.map((a): Entry => ({ at: a.start, kind: 'appointment', appointment: a })),
                ...daySlots.map((slot): Entry => ({ at: slot.start, kind: 'slot', slot }))
              ].sort((x, y) => x.at - y.at)
              return (
                <section class="day" aria-labelledby={`day-${day}`} key={day}>
                  <h2 id={`day-${day}`}>{formatDay(day)}</h2>
                  {entries.length === 0 ? (
                    <p class="empty-day">No appointments and no free slots on this day.</p>
                  ) : (
                    <ul class="day-list">
                      {entries.map((entry) => {
                        if (entry.kind === 'slot') {
                          const slot = entry.slot
                          return (
                            <li key={`s${slot.start}`} class="slot-entry">
                              <button
                                type="button"
                                class="slot"
                                data-start={slot.start}
                                onClick={() => setBooking(slot)}
                                onDragOver={(event) => event.preventDefault()}
                                onDrop={(event) => {
                                  event.preventDefault()
                                  const id = event.dataTransfer?.getData('text/plain')
                                  if (id) void reschedule(id, slot.start)
                                }}
                              >
                                <span class="time">{formatTime(slot.start, timeZone)}</span> Free — book
                              </button>
                            </li>
                          )
                        }
                        const a = entry.appointment
                        return (
                          <AppointmentCard
                            key={a.id}
                            appointment={a}
                            timeZone={timeZone}
                            moving={moving === a.id}
                            slots={slots.data}
                            onMove={() => setMoving(moving === a.id ? '' : a.id)}
                            onMoveTo={(start) => reschedule(a.id, start)}
                            onCheckIn={() => checkIn(a)}
                          />
                        )
                      })}
                    </ul>
                  )}
                </section>
              )
            })}
          </div>
        </>
      )}
    </section>
  )
}

function AppointmentCard(props: {
  appointment: Appointment
  timeZone: string
  moving: boolean
  slots: Slot[]
  onMove: () => void
  onMoveTo: (start: number) => Promise<void>
  onCheckIn: () => Promise<void>
}) {
  const { appointment: a, timeZone } = props
  const scheduled = a.status === 'scheduled'
  const who = a.names?.patient ?? 'Unnamed patient'
  return (
    <li
      class={['appointment', `status-${a.status}`, holdsTime(a) ? '' : 'released'].filter(Boolean).join(' ')}
      data-id={a.id}
      draggable={scheduled}
      onDragStart={(event) => event.dataTransfer?.setData('text/plain', a.id)}
    >
      <p class="what">
        <span class="time">
          {formatTime(a.start, timeZone)}–{formatTime(a.end, timeZone)}
        </span>{' '}
        <strong>{who}</strong> <span class="badge">{appointmentStatusLabel[a.status] ?? a.status}</span>
      </p>
      {a.reason && <p class="reason">{a.reason}</p>}
      {scheduled && (
        <div class="buttons">
          <button type="button" onClick={() => void props.onCheckIn()}>
            Check in {who}
          </button>
          <button type="button" class="secondary" aria-expanded={props.moving} onClick={props.onMove}>
            Move {who}
          </button>
        </div>
      )}
      {scheduled && props.moving && (
        <Form
          title={`Move ${who}'s appointment`}
          submitLabel="Move"
          onSubmit={async (data) => {
            const start = Number(data.get('start'))
            if (!start)
              throw Object.assign(new Error('Choose a free time.'), {
                errors: [{ field: 'start', message: 'is required' }]
              })
            await props.onMoveTo(start)
          }}
        >
          <Field label="New time" name="start" as="select" required>
            <option value="">Choose a free time</option>
            {props.slots.map((s) => (
              <option value={String(s.start)} key={s.start}>
                {formatDay(localDate(s.start, timeZone))}, {formatTime(s.start, timeZone)}
              </option>
            ))}
          </Field>
        </Form>
      )}
    </li>
  )
}

function BookForm(props: {
  facility: string
  provider: { id: string; name: string }
  slot: Slot
  timeZone: string
  onDone: (message: string) => void
  onCancel: () => void
}) {
  const when = `${formatDay(localDate(props.slot.start, props.timeZone))}, ${formatTime(props.slot.start, props.timeZone)}`
  return (
    <div class="panel booking">
      <Form
        title={`Book ${when} with ${props.provider.name}`}
        heading="h2"
        submitLabel="Book"
        onSubmit={async (data) => {
          const patient = String(data.get('patient') ?? '')
          if (!patient)
            throw Object.assign(new Error('Choose the patient from the search results.'), {
              errors: [{ field: 'patient', message: 'is required: search by name and choose' }]
            })
          const reason = String(data.get('reason') ?? '').trim()
          const created = await client.service('appointments').create({
            facility: props.facility,
            provider: props.provider.id,
            patient,
            start: props.slot.start,
            ...(reason ? { reason } : {})
          })
          props.onDone(`Booked ${created.names?.patient ?? 'the patient'} at ${when}.`)
        }}
        actions={
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        }
      >
        <PatientPicker facility={props.facility} />
        <Field label="Reason" name="reason" hint="Optional: what the visit is for." />
      </Form>
    </div>
  )
}
