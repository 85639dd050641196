// The waiting room. `Queues` (staff): the facility's queues, the board of the chosen one and the "Call next"
// button. `QueueScreen`: the board alone, for a screen in the waiting room (signed in as staff) — numbers called
// in large type, announced through a live region; no names, ever: queue items carry none (a patient is an account
// id), and the board shows only ticket numbers and counts.
import { useState } from 'preact/hooks'
import { client, errorMessage, useLive, useSession } from '../../lib/api'
import { Link } from '../../lib/router'
import { EmptyState, Field, Form, Status } from '../../components'
import type { Queue } from '../../../src/services/queues/queues.shared'
import type { QueueItem } from '../../../src/services/queue-items/queue-items.shared'
import { localDate } from '../calendar/time'

const zoneOf = (organizations: { id: string; timeZone?: string }[], facility: string) =>
  organizations.find((o) => o.id === facility)?.timeZone ?? 'UTC'

/** Today's items of `queue` (the facility's local day), live. */
const useToday = (queue: string, timeZone: string) =>
  useLive<QueueItem>(
    'queue-items',
    queue ? { queue, day: localDate(Date.now(), timeZone), $sort: { number: 1 }, $limit: 100 } : null
  )

function Board({ items, name }: { items: QueueItem[]; name: string }) {
  const called = items
    .filter((i) => i.status === 'called' || i.status === 'serving')
    .sort((a, b) => (b.calledAt ?? 0) - (a.calledAt ?? 0))
  const waiting = items.filter((i) => i.status === 'waiting')
  const [current, ...earlier] = called
  return (
    <div class="board" role="region" aria-label={`${name}: numbers called`}>
      <div class="now-calling" aria-live="polite" aria-atomic="true">
        <p class="board-label">Now calling</p>
        {current ? (
          <p class="board-number" data-testid="now-calling">
            {current.number}
          </p>
        ) : (
          <p class="board-idle" data-testid="now-calling">
            No number called yet
          </p>
        )}
      </div>
      <div class="board-side">
        <p class="board-label">Called before</p>
        <p class="board-earlier">
          {earlier.length
            ? earlier
                .slice(0, 5)
                .map((i) => i.number)
                .join(', ')
            : 'None yet'}
        </p>
        <p class="board-label">Waiting</p>
        <p class="board-waiting" data-testid="waiting-count">
          {waiting.length === 1 ? '1 person' : `${waiting.length} people`}
        </p>
      </div>
    </div>
  )
}

export function Queues() {
  const session = useSession()
  const facility = session.current
  const timeZone = zoneOf(session.organizations, facility)
  const queues = useLive<Queue>('queues', facility ? { facility, $limit: 50 } : null)
  const active = queues.data.filter((q) => q.active)
  const [chosen, setChosen] = useState('')
  const queue = active.find((q) => q.id === chosen) ?? active.find((q) => q.default) ?? active[0]
  const items = useToday(queue?.id ?? '', timeZone)
  const [status, setStatus] = useState('')
  const [problem, setProblem] = useState('')
  const staff = session.hasPrivilege(facility, 'scheduling')
  if (!facility)
    return <EmptyState title="Choose a facility first.">Your facilities are in the header.</EmptyState>
  return (
    <section aria-labelledby="queues-title">
      <h1 id="queues-title">Waiting room</h1>
      {active.length === 0 ? (
        <>
          <EmptyState
            title={queues.loading ? 'Loading queues…' : 'This facility has no waiting-room queue yet.'}
          >
            Create one: checked-in patients then get a ticket number in it.
          </EmptyState>
          {staff && (
            <Form
              title="Create the waiting-room queue"
              heading="h2"
              submitLabel="Create queue"
              success="Queue created."
              onSubmit={async (data) => {
                await client
                  .service('queues')
                  .create({ facility, name: String(data.get('name') ?? '').trim(), default: true })
              }}
            >
              <Field label="Name" name="name" required defaultValue="Front desk" />
            </Form>
          )}
        </>
      ) : (
        <>
          {active.length > 1 && (
            <div class="field">
              <label for="queue-choice">Queue</label>
              <select id="queue-choice" value={queue?.id} onChange={(e) => setChosen(e.currentTarget.value)}>
                {active.map((q) => (
                  <option value={q.id} key={q.id}>
                    {q.name}
                  </option>
                ))}
              </select>
            </div>
          )}
          {queue && (
            <>
              <h2>{queue.name}</h2>
              <Board items={items.data} name={queue.name} />
              <div class="buttons">
                {staff && (
                  <button
                    type="button"
                    class="call-next"
                    onClick={async () => {
                      setProblem('')
                      setStatus('')
                      try {
                        const item = await client.service('queues').patch(queue.id, { $callNext: true })
                        setStatus(`Called number ${item.number}.`)
                      } catch (error) {
                        setProblem(errorMessage(error))
                      }
                    }}
                  >
                    Call next
                  </button>
                )}
                <Link href={`/queues/${queue.id}/board`} class="button secondary">
                  Open the waiting-room screen
                </Link>
              </div>
              <Status>{status}</Status>
              <p class="form-error" role="alert">
                {problem}
              </p>
            </>
          )}
        </>
      )}
    </section>
  )
}

/** The board alone, for the waiting room's screen. */
export function QueueScreen({ params }: { params: Record<string, string> }) {
  const session = useSession()
  const queues = useLive<Queue>('queues', { id: params.id, $limit: 1 })
  const queue = queues.data[0]
  const items = useToday(queue ? queue.id : '', queue ? zoneOf(session.organizations, queue.facility) : 'UTC')
  if (!queue)
    return <EmptyState title={queues.loading ? 'Loading…' : 'This queue is not one of your facility’s.'} />
  return (
    <section class="screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{queue.name}</h1>
      <Board items={items.data} name={queue.name} />
      <p class="hint">Listen for your number. Numbers only are shown here.</p>
    </section>
  )
}
