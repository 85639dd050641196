// The audit-events store: append-only through src/audit/log.ts (never through the API), with the indexes of
// the documented filters, each usable for a newest-first page.
import { NotAuthenticated } from '@feathersjs/errors'
import type { Id, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { createStore, type StoreOptions, type StoreService } from '../../store'
import type { AuditEvent } from '../../audit/chain'
import { unwatchAudit, watchAudit } from '../../audit/watchers'
import { loadAccessContext } from '../../access/context'
import type { AuditSubscription } from './audit-events.schema'

/** The collection (on the embedded engine: `DATA_DIR/audit-events.db`). */
export const auditCollection = 'audit-events'

export const getOptions = (_app: Application): StoreOptions => ({
  name: auditCollection,
  indexes: [
    // One writer order: two writers can never both append after the same predecessor (src/audit/log.ts).
    // Also the newest-first order of every list (`seq` follows `at`); an index on `at` itself would cost every
    // append on the embedded engine (about 5% of a create) for admin-only time-range scans.
    { fields: { seq: 1 }, unique: true },
    { fields: { actor: 1, seq: -1 } },
    { fields: { patient: 1, seq: -1 } },
    { fields: { facility: 1, seq: -1 } },
    // The subject account of privilege and configuration events (only they have one).
    { fields: { account: 1, seq: -1 }, sparse: true }
  ],
  // The read rule is an `$or` (actor, patient, account, facility); internal retention removes many at once.
  operators: ['$or'],
  multi: true,
  // Appended on every audited request: on the embedded engine an append is one line in the data file, indexed
  // at the next read (src/store/nedb-journal.ts).
  journal: true
})

/** The page size (default and maximum) of a CSV answer. */
export const CSV_PAGE = 10000

/**
 * Read-only: find (newest first unless `$sort` says otherwise) and get; writes happen through the audit log only.
 * `subscribe`/`unsubscribe`: an application admin's Socket.IO connection starts/stops receiving audit events
 * (src/audit/watchers.ts).
 */
export class AuditEventsService {
  readonly events: StoreService<AuditEvent>

  constructor(
    readonly app: Application,
    readonly deps: Deps
  ) {
    this.events = createStore<AuditEvent>(app, getOptions(app))
  }

  async subscribe(_data: unknown, params: Params = {}): Promise<AuditSubscription> {
    if (!params.account) throw new NotAuthenticated('Not authenticated')
    return watchAudit(this.app, params.connection, await loadAccessContext(this.app, params.account))
  }

  async unsubscribe(_data: unknown, params: Params = {}): Promise<AuditSubscription> {
    return unwatchAudit(this.app, params.connection)
  }

  /**
   * Newest first unless `$sort` says otherwise (a recorded field; equal values newest first). A CSV answer
   * (`params.csv`, set by the REST layer for `Accept: text/csv`) has pages of up to CSV_PAGE events.
   */
  async find(params: Params & { csv?: boolean } = {}) {
    const query = { ...(params.query ?? {}) }
    // Newest first: `seq` is the chain order, which is the order of `at`, and has its own (unique) index.
    const sort = (query.$sort ?? {}) as Record<string, number>
    query.$sort = 'seq' in sort ? sort : { ...sort, seq: -1 }
    const paginate = params.csv ? { default: CSV_PAGE, max: CSV_PAGE } : undefined
    return this.events.find({ ...params, query, ...(paginate ? { paginate } : {}) })
  }

  async get(id: Id, params: Params = {}) {
    return this.events._get(id, params)
  }

  // For scopeAccess (reads the existing document without hooks).
  async _get(id: Id, params: Params = {}) {
    return this.events._get(id, params)
  }
}
