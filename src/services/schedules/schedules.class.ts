// The schedules service: create and patch call src/appointments/schedules.ts.
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import type { CreatedFields } from '../../hooks/set-created'
import { changeSchedule, createSchedule } from '../../appointments/schedules'
import { ResourceService } from '../resource'
import type { Schedule } from './schedules.schema'
import { schedulePath, type ScheduleData, type SchedulePatch, type ScheduleQuery } from './schedules.shared'

export const getOptions = (): StoreOptions => ({
  name: 'schedules',
  indexes: [{ fields: { facility: 1, provider: 1 } }, { fields: { provider: 1 } }]
})

type ScheduleParams = StoreParams<ScheduleQuery>

export class ScheduleService extends ResourceService<
  Stored<Schedule>,
  ScheduleData,
  SchedulePatch,
  ScheduleQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, schedulePath, getOptions())
  }

  async create(data: ScheduleData & CreatedFields, params?: ScheduleParams): Promise<Stored<Schedule>> {
    return this.write('create', null, params, () => createSchedule(this.deps, data))
  }

  async patch(id: NullableId, data: SchedulePatch, params: ScheduleParams = {}): Promise<Stored<Schedule>> {
    return this.write('patch', id, params, async () =>
      changeSchedule(this.deps, await this.loadExisting(id as Id, params), data, params.writeScope)
    )
  }
}
