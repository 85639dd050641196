// Appointments reach the facility's webhooks as appointments.* events (create, then a status patch), as every
// service's writes do, and never another organization's webhook.
import assert from 'node:assert/strict'
import { restClient, waitUntil, type TestServer } from '../helpers/app'
import {
  createSchedule,
  startWebhookClinic,
  type ClinicFixture,
  type WebhookClinic
} from '../helpers/appointments'
import type { TestWebhookReceiver } from '../helpers/webhook-receiver'

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

  let env: WebhookClinic

  before(async () => {
    env = await startWebhookClinic('appointments')
    ;({ server, clinic, ours, theirs } = env)
    await createSchedule(server.url, clinic)
  })
  after(() => env?.close())

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
