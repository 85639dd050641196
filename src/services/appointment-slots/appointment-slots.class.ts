// The appointment-slots service: find computes the free slots (src/appointments/slots.ts) of the schedules the
// caller may read.
import type { Paginated, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { within } from '../../access/rules'
import { invalid } from '../../schema/validators'
import { scheduleReadScope } from '../../appointments/schedules'
import { freeSlots } from '../../appointments/slots'
import { bookedFor } from '../../appointments/book'
import { MAX_SLOT_RANGE_MS, type Slot, type SlotQuery } from './appointment-slots.schema'

export class AppointmentSlotService {
  constructor(
    _app: Application,
    private readonly deps: Deps
  ) {}

  /**
   * Steps: 1. `to` must be after `from` and at most 31 days later (400 naming `to`); 2. the active schedules of
   * the facility (and provider) the caller may read; 3. their free slots, minus the appointments booked (and their
   * buffers); 4. one page of them.
   */
  async find(params: Params<SlotQuery> = {}): Promise<Paginated<Slot>> {
    const { deps } = this
    const query = params.query as SlotQuery
    if (query.to <= query.from) throw invalid('query', [{ field: 'to', message: 'must be after from' }])
    if (query.to - query.from > MAX_SLOT_RANGE_MS)
      throw invalid('query', [{ field: 'to', message: 'must be at most 31 days after from' }])
    const account = params.account
    const scope = account ? scheduleReadScope(await deps.access.load(account)) : null
    const schedules = await deps.stores.schedules._find({
      query: within(
        { facility: query.facility, active: true, ...(query.provider ? { provider: query.provider } : {}) },
        scope
      ),
      paginate: false
    })
    const booked = await bookedFor(deps, schedules, query.from, query.to)
    const slots = freeSlots(schedules, booked, deps.clock.now(), query.from, query.to)
    const page = deps.settings.get('paginate')
    const limit = Math.min(query.$limit ?? page.default, page.max)
    const skip = query.$skip ?? 0
    return { total: slots.length, limit, skip, data: slots.slice(skip, skip + limit) }
  }
}
