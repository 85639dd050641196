// Realtime events of audited services are disclosures like reads: every event an instance sends to one of its own
// sockets is recorded (`action: 'read'`, `via: 'realtime'`, the connection's account as actor, its address and
// agent, the ids, patient and facility of the stored document), durably, before the event is sent (the channel
// publisher in src/channels.ts waits for it). The deliveries of one event-loop turn are recorded together: one
// audit event per (connection, service, patient, facility). Several instances: each records what it sends to its
// own sockets (every instance publishes each shared event to its own connections only).
import type { RealTimeConnection } from '@feathersjs/feathers'
import type { Application } from '../declarations'
import type { AuditDeclaration } from '../access/rules'
import { appSlot } from '../runtime'
import type { AuditEntry } from './chain'
import { auditLog } from './log'
import { idString, patientAndFacility } from './entries'

interface Group {
  entry: AuditEntry
  ids: Set<string>
}

interface Batch {
  /** Per connection, per (service, patient, facility): the entry being filled. */
  groups: Map<RealTimeConnection, Map<string, Group>>
  /** Settles once the batch's events are durable. */
  recorded: Promise<void>
}

export interface RealtimeAuditState {
  batch: Batch | null
}

const realtimeSlot = appSlot<RealtimeAuditState>('realtime audit batch')
const stateOf = (app: Application): RealtimeAuditState => realtimeSlot.ensure(app, () => ({ batch: null }))

/** The batch of this event-loop turn: appended at its end, in one append. */
const currentBatch = (app: Application): Batch => {
  const state = stateOf(app)
  if (state.batch) return state.batch
  const groups = new Map<RealTimeConnection, Map<string, Group>>()
  const recorded = new Promise<void>((resolve, reject) => {
    setImmediate(() => {
      state.batch = null
      const entries = [...groups.values()].flatMap((byKey) => [...byKey.values()].map((group) => group.entry))
      const log = auditLog(app)
      if (!log || entries.length === 0) return resolve()
      log.append(entries, { events: false }).then(() => resolve(), reject)
    })
  })
  // Each caller awaits it; a failure is handled there.
  recorded.catch(() => undefined)
  state.batch = { groups, recorded }
  return state.batch
}

/**
 * Records that the stored document `doc` of service `path` is being sent to `connections` (this instance's own
 * sockets); resolves once that is durable. Rejects when it cannot be recorded: the event must then not be sent.
 */
export const recordRealtimeDelivery = async (
  app: Application,
  path: string,
  declaration: AuditDeclaration,
  doc: Record<string, unknown>,
  connections: RealTimeConnection[]
) => {
  const log = auditLog(app)
  if (!log || !log.settings.enabled || connections.length === 0) return
  const where = await patientAndFacility(app, declaration, doc)
  const id = idString(doc.id)
  const at = log.now()
  const batch = currentBatch(app)
  const key = JSON.stringify([path, where.patient ?? null, where.facility ?? null])
  for (const connection of connections) {
    let byKey = batch.groups.get(connection)
    if (!byKey) batch.groups.set(connection, (byKey = new Map()))
    let group = byKey.get(key)
    if (!group) {
      const entry: AuditEntry = {
        at,
        actor: idString(connection.account?.id) ?? null,
        action: 'read',
        service: path,
        ids: [],
        ...where,
        outcome: 'allowed',
        status: 200,
        ...(typeof connection.ip === 'string' ? { ip: connection.ip } : {}),
        ...(typeof connection.userAgent === 'string' ? { userAgent: connection.userAgent } : {}),
        via: 'realtime'
      }
      byKey.set(key, (group = { entry, ids: new Set() }))
    }
    if (id && !group.ids.has(id)) {
      group.ids.add(id)
      group.entry.ids.push(id)
    }
  }
  await batch.recorded
}
