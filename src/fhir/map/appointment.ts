// appointments → Appointment. Statuses map one to one (scheduled→booked, checked-in→checked-in,
// in-progress→arrived, completed→fulfilled, cancelled→cancelled, no-show→noshow). Import reads appointments back
// (appointmentFromFhir) but creates none: a booking needs a schedule and a free slot of this server.
import type { Stored } from '../../schema/resolvers'
import type { Appointment } from '../../services/appointments/appointments.schema'
import type { AppointmentData, FhirContext, FhirResource } from '../types'
import {
  compact,
  decodeExtension,
  encodeExtension,
  extensionUrl,
  fhirId,
  getPath,
  identifier,
  isObj,
  isoOf,
  metaOf,
  msOf,
  idOfReference,
  refTo
} from './common'

const statusToFhir: Record<string, string> = {
  scheduled: 'booked',
  'checked-in': 'checked-in',
  'in-progress': 'arrived',
  completed: 'fulfilled',
  cancelled: 'cancelled',
  'no-show': 'noshow'
}

export const appointmentToFhir = (appointment: Stored<Appointment>, ctx: FhirContext): FhirResource =>
  compact({
    resourceType: 'Appointment',
    id: fhirId(appointment.id),
    meta: metaOf(appointment),
    identifier: identifier(ctx, 'appointments', appointment.id),
    status: statusToFhir[appointment.status] ?? 'booked',
    appointmentType: appointment.type ? { text: appointment.type } : undefined,
    description: appointment.reason || undefined,
    cancelationReason: appointment.cancelReason ? { text: appointment.cancelReason } : undefined,
    start: isoOf(appointment.start),
    end: isoOf(appointment.end),
    created: isoOf(appointment.createdAt)?.slice(0, 10),
    participant: [
      { actor: refTo('Patient', appointment.patient), status: 'accepted' },
      { actor: refTo('Practitioner', appointment.provider), status: 'accepted' }
    ],
    extension: [
      ...(appointment.facility
        ? [{ url: extensionUrl('facility'), valueReference: refTo('Organization', appointment.facility) }]
        : []),
      ...encodeExtension('schedule', 'string', appointment.schedule),
      ...encodeExtension('statusHistory', 'json', appointment.statusHistory)
    ]
  })

/** What an Appointment says, in this server's terms (ids as referenced). */
export const appointmentFromFhir = (resource: FhirResource): AppointmentData => {
  const participants = Array.isArray(resource.participant) ? resource.participant.filter(isObj) : []
  const actorOf = (type: string) =>
    idOfReference(
      participants
        .map((participant) => participant.actor)
        .find((actor) => isObj(actor) && String(actor.reference ?? '').startsWith(`${type}/`))
    )
  const status = Object.entries(statusToFhir).find(([, fhir]) => fhir === resource.status)?.[0]
  const facility = Array.isArray(resource.extension)
    ? resource.extension.find(
        (ext) => isObj(ext) && typeof ext.url === 'string' && ext.url.endsWith('/facility')
      )
    : undefined
  return compact({
    facility: isObj(facility) ? idOfReference(facility.valueReference) : undefined,
    provider: actorOf('Practitioner'),
    patient: actorOf('Patient') as string,
    start: msOf(resource.start) as number,
    end: msOf(resource.end),
    reason: typeof resource.description === 'string' ? resource.description : undefined,
    type: getPath(resource, 'appointmentType.text') as string | undefined,
    status,
    cancelReason: getPath(resource, 'cancelationReason.text') as string | undefined,
    schedule: decodeExtension('schedule', 'string', resource.extension) as string | undefined
  })
}
