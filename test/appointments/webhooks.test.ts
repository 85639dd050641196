// Appointments reach the facility's webhooks as appointments.* events (create, then a status patch), as every
// service's writes do, and never another organization's webhook.
import assert from 'node:assert/strict'
import { restClient, startServer, waitUntil, type TestServer } from '../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { startWebhookReceiver, type TestWebhookReceiver } from '../helpers/webhook-receiver'

const DAY = 86_400_000

/** 09:00 UTC of the first Monday at least two days ahead of the real clock. */
const nextMonday9 = () => {
  const day = new Date(Date.now() + 2 * DAY)
  day.setUTCHours(9, 0, 0, 0)
  while (day.getUTCDay() !== 1) day.setUTCDate(day.getUTCDate() + 1)
  return day.getTime()
}

describe('appointments webhooks', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  let ours: TestWebhookReceiver
  let theirs: TestWebhookReceiver

  before(async () => {
    server = await startServer({
      webhooks: {
        allowPrivate: true,
        retryDelaysMs: [],
        timeoutMs: 2000,
        pollIntervalMs: 50,
        leaseMarginMs: 500
      }
    })
    ;[ours, theirs] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()])
    clinic = await setupClinic(server.url)
    await createSchedule(server.url, clinic)
    for (const [token, organization, url] of [
      [clinic.owner.token, clinic.id, ours.url],
      [clinic.stranger.token, clinic.strangerFacility, theirs.url]
    ]) {
      const res = await restClient(server.url, token).post('/webhook-events', {
        organization,
        url,
        events: 'appointments'
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
    }
  })
  after(async () => {
    await server?.close()
    await Promise.all([ours?.close(), theirs?.close()])
  })

  it('delivers the create and the status move to the facility webhook only', async () => {
    const api = restClient(server.url, clinic.scheduler.token)
    const created = await api.post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: clinic.patient.account.id,
      start: nextMonday9()
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const moved = await api.patch(`/appointments/${created.body.id}`, {
      status: 'cancelled',
      cancelReason: 'Rebooked by phone'
    })
    assert.equal(moved.status, 200, JSON.stringify(moved.body))
    await waitUntil(() => ours.received.length >= 2, 10000, 'two deliveries')
    const events = ours.received.map((r) => r.body.event)
    assert.ok(
      events.every((event: string) => event.startsWith('appointments.')),
      events.join(',')
    )
    assert.equal(events.length, 2, events.join(','))
    assert.ok(JSON.stringify(ours.received.map((r) => r.body)).includes(created.body.id))
    assert.ok(!JSON.stringify(ours.received.map((r) => r.body)).includes('slotKey'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(theirs.received.length, 0)
  })
})
