// The patient's place in the waiting room, live: their ticket number and how many are before them (the server
// sends each waiting item its new position as the queue moves), or that their number is being called.
import { useLive, useSession } from '../../lib/api'
import { EmptyState } from '../../components'
import type { QueueItem } from '../../../src/services/queue-items/queue-items.shared'

const ordinal = (n: number) => {
  const rules = new Intl.PluralRules('en', { type: 'ordinal' })
  const suffix: Record<string, string> = { one: 'st', two: 'nd', few: 'rd', other: 'th' }
  return `${n}${suffix[rules.select(n)] ?? 'th'}`
}

export function MyQueue() {
  const { account } = useSession()
  const me = account?.id ?? ''
  const items = useLive<QueueItem>(
    'queue-items',
    me
      ? {
          patient: me,
          status: { $in: ['waiting', 'called', 'serving'] },
          $sort: { createdAt: -1 },
          $limit: 10
        }
      : null
  )
  return (
    <section aria-labelledby="my-queue-title">
      <h1 id="my-queue-title">My place in the queue</h1>
      {items.data.length === 0 ? (
        <EmptyState title={items.loading ? 'Loading…' : 'You are not waiting in any queue.'}>
          When the front desk checks you in, your ticket number appears here.
        </EmptyState>
      ) : (
        <ul class="my-tickets" aria-live="polite">
          {items.data.map((item) => (
            <li key={item.id} class="ticket" data-id={item.id}>
              <p class="board-label">Your number</p>
              <p class="board-number">{item.number}</p>
              <p class="position" data-testid="position">
                {item.status === 'waiting'
                  ? item.position === 1
                    ? 'You are next.'
                    : `You are ${ordinal(item.position ?? 0)} in line.`
                  : item.status === 'called'
                    ? 'Your number is being called: please go to the desk.'
                    : 'You are being seen.'}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
