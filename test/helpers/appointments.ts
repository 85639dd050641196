// Appointment test fixtures, set up over HTTP as clients do: a facility (superadmin owner, a member holding the
// `scheduling` privilege, a provider, a plain member), a patient who belongs to no facility, and a stranger who
// belongs to another facility.
import assert from 'node:assert/strict'
import { restClient, signUp, startServer, type SignedUp, type TestServer } from './app'
import { addMember, setupFacility } from './billing'
import { startWebhookReceiver, type TestWebhookReceiver } from './webhook-receiver'

export interface ClinicFixture {
  id: string
  owner: SignedUp
  scheduler: SignedUp
  provider: SignedUp
  member: SignedUp
  patient: SignedUp
  stranger: SignedUp
  strangerFacility: string
}

export const setupClinic = async (url: string): Promise<ClinicFixture> => {
  const facility = await setupFacility(url, 'Calendar clinic')
  const [scheduler, provider, patient] = await Promise.all([signUp(url), signUp(url), signUp(url)])
  await addMember(url, facility.owner, facility.id, scheduler, { privileges: ['scheduling'] })
  await addMember(url, facility.owner, facility.id, provider, { roles: ['physician'] })
  return {
    id: facility.id,
    owner: facility.owner,
    scheduler,
    provider,
    member: facility.member,
    patient,
    stranger: facility.stranger,
    strangerFacility: facility.strangerFacility
  }
}

export const startClinicServer = async (
  overrides: Parameters<typeof startServer>[0] = {}
): Promise<{ server: TestServer; clinic: ClinicFixture }> => {
  const server = await startServer(overrides)
  return { server, clinic: await setupClinic(server.url) }
}

/** Monday to Friday 09:00–12:00 and 13:00–17:00. */
export const weekdays = [1, 2, 3, 4, 5].flatMap((day) => [
  { day, start: '09:00', end: '12:00' },
  { day, start: '13:00', end: '17:00' }
])

/** A schedule of the clinic's provider, created by the scheduler. */
export const createSchedule = async (
  url: string,
  clinic: ClinicFixture,
  extra: Record<string, unknown> = {}
) => {
  const res = await restClient(url, clinic.scheduler.token).post('/schedules', {
    facility: clinic.id,
    provider: clinic.provider.account.id,
    weekly: weekdays,
    ...extra
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

export interface WebhookClinic {
  server: TestServer
  clinic: ClinicFixture
  /** The clinic's webhook receiver, and another organization's (which must receive nothing of the clinic). */
  ours: TestWebhookReceiver
  theirs: TestWebhookReceiver
  close(): Promise<void>
}

/** A clinic server with a webhook of `events` for the clinic and one for the stranger's organization. */
export const startWebhookClinic = async (events: string): Promise<WebhookClinic> => {
  const server = await startServer({
    webhooks: {
      allowPrivate: true,
      retryDelaysMs: [],
      timeoutMs: 2000,
      pollIntervalMs: 50,
      leaseMarginMs: 500
    }
  })
  const [ours, theirs] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()])
  const clinic = await setupClinic(server.url)
  for (const [token, organization, url] of [
    [clinic.owner.token, clinic.id, ours.url],
    [clinic.stranger.token, clinic.strangerFacility, theirs.url]
  ]) {
    const res = await restClient(server.url, token).post('/webhook-events', { organization, url, events })
    assert.equal(res.status, 201, JSON.stringify(res.body))
  }
  return {
    server,
    clinic,
    ours,
    theirs,
    async close() {
      await server.close()
      await Promise.all([ours.close(), theirs.close()])
    }
  }
}
