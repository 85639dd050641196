// The appointments service: create books through src/appointments/book.ts.
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import type { CreatedFields } from '../../hooks/set-created'
import { createAppointment, isStaff } from '../../appointments/book'
import { changeAppointment } from '../../appointments/status'
import { ResourceService } from '../resource'
import type { Appointment } from './appointments.schema'
import {
  appointmentPath,
  type AppointmentData,
  type AppointmentPatch,
  type AppointmentQuery
} from './appointments.shared'

export const getOptions = (): StoreOptions => ({
  name: 'appointments',
  indexes: [
    // The booking race: one appointment per provider and slot start (released keys are unique by id).
    { fields: { slotKey: 1 }, unique: true },
    { fields: { facility: 1, start: 1 } },
    { fields: { provider: 1, start: 1 } },
    { fields: { patient: 1, start: 1 } },
    // The reminder pass: the scheduled appointments starting soon, across facilities; and the appointments
    // changed lately (the recovery of their messages).
    { fields: { status: 1, start: 1 } },
    { fields: { updatedAt: 1 } }
  ]
})

type AppointmentParams = StoreParams<AppointmentQuery>

export class AppointmentService extends ResourceService<
  Stored<Appointment>,
  AppointmentData,
  AppointmentPatch,
  AppointmentQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, appointmentPath, getOptions())
  }

  async create(
    data: AppointmentData & CreatedFields,
    params?: AppointmentParams
  ): Promise<Stored<Appointment>> {
    const asPatient = !isStaff(params?.access, data.facility, data.provider)
    return this.write('create', null, params, () => createAppointment(this.deps, data, asPatient))
  }

  /** One operation per PATCH: a status move ({ status, cancelReason? }) or a reschedule ({ start }). */
  async patch(
    id: NullableId,
    data: AppointmentPatch,
    params: AppointmentParams = {}
  ): Promise<Stored<Appointment>> {
    return this.write(
      'patch',
      id,
      params,
      async () => {
        const existing = await this.loadExisting(id as Id, params)
        const actor = {
          by: params.account?.id ?? null,
          staff: isStaff(params.access, existing.facility, existing.provider)
        }
        return changeAppointment(this.deps, existing, data, actor, params.writeScope)
      },
      data
    )
  }
}
