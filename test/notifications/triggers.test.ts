// The events that notify a patient, driven as clients drive them (REST and Socket.IO): booking, rescheduling and
// cancelling an appointment; a check-in and `$callNext` (queue.called, and queue.next once a patient is within the
// facility's position); a finalized medical record ("results are ready", none of its contents); a finalized
// invoice, directly and through its encounter (the totals). Each is queued once per recipient, channel and subject
// before the write answers (a cancellation's just after), read back through GET /notifications as the patient; the rendered message (server
// only) is read from the store. A patient never sees another's notifications.
import assert from 'node:assert/strict'
import {
  recordEvents,
  restClient,
  signUp,
  socketClient,
  startServer,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { createQueue } from '../queues/fixtures'
import { ADMIN, LONG_SESSIONS } from '../helpers/subscriptions'
import { depsSlot } from '../../src/deps'
import { notificationWorkerOf } from '../../src/ops/jobs'
import { formatLocal } from '../../src/appointments/zone'

const MIN = 60_000
// A Friday noon (UTC); the clinic's schedule opens Monday 09:00.
const NOW = Date.UTC(2027, 2, 5, 12, 0)
const MONDAY_9 = Date.UTC(2027, 2, 8, 9, 0)

interface Seen {
  id: string
  event: string
  channel: string
  status: string
  reason?: string
  recipient: string
  ref: { service: string; id: string }
}

describe('notification triggers', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  const api = (token?: string) => restClient(server.url, token)
  let slot = 0
  const nextSlot = () => MONDAY_9 + 15 * MIN * slot++

  /** The notifications `who` reads about `ref` (oldest first). */
  const notificationsOf = async (who: SignedUp, query: string): Promise<Seen[]> => {
    const res = await api(who.token).get(
      `/notifications?${query}&$limit=100&$sort[createdAt]=1&$sort[channel]=1`
    )
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data
  }
  const summary = (list: Seen[]) => list.map((n) => [n.event, n.channel, n.status, n.reason ?? null])

  /** The rendered message of a notification (server-only fields) from the store. */
  const messageOf = async (refId: string, event: string, channel = 'email') => {
    const [doc] = await depsSlot
      .require(server.app)
      .stores.notifications._find({ query: { 'ref.id': refId, event, channel }, paginate: false })
    assert.ok(doc, `${event} about ${refId}`)
    return { subject: doc.subject ?? '', body: doc.body }
  }

  const patientNamed = (firstName: string) => signUp(server.url, { firstName, lastName: 'Tester' })

  const book = async (patient: SignedUp, start = nextSlot()) => {
    const res = await api(clinic.scheduler.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: patient.account.id,
      start
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body
  }

  before(async () => {
    server = await startServer({
      admin: ADMIN,
      sandboxClock: true,
      clock: { now: () => NOW },
      sessions: LONG_SESSIONS,
      appointments: { jobIntervalMs: 0 },
      notifications: { reminderIntervalMs: 0 }
    })
    // These tests read what is queued: the delivery worker (tested on its own) is stopped, so nothing moves on.
    await notificationWorkerOf(server.app)?.stop()
    clinic = await setupClinic(server.url)
    await createSchedule(server.url, clinic)
  })
  after(() => server.close())

  it('tells the patient of a booking once, by email (SMS off by default), live on their connection', async () => {
    const ada = await patientNamed('Ada')
    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'jwt', accessToken: ada.token })
      const live = recordEvents(socket.client, 'notifications', ['created'])
      const appointment = await book(ada)
      // Queued before the booking answered.
      const told = await notificationsOf(ada, `ref.id=${appointment.id}`)
      assert.deepEqual(summary(told), [
        ['appointment.booked', 'email', 'queued', null],
        ['appointment.booked', 'sms', 'skipped', 'channel-off']
      ])
      assert.ok(told.every((n) => n.recipient === ada.account.id))
      assert.deepEqual(told[0].ref, { service: 'appointments', id: appointment.id })
      await waitUntil(() => live.length === 2, 5000, 'the patient told live')
      assert.deepEqual(live.map((e) => e.data.event).sort(), ['appointment.booked', 'appointment.booked'])
      assert.equal(live[0].data.body, undefined, 'the message never leaves the server')

      const message = await messageOf(appointment.id, 'appointment.booked')
      assert.match(message.subject, /Calendar clinic/)
      assert.ok(message.body.includes('Hello Ada'), message.body)
      assert.ok(message.body.includes(formatLocal(appointment.start, 'UTC', 'en')), message.body)
      assert.ok(message.body.includes(`/#/appointments/${appointment.id}`), message.body)

      // The facility's notification managers read it too; a plain member does not.
      const managed = await notificationsOf(clinic.owner, `ref.id=${appointment.id}`)
      assert.equal(managed.length, 2)
      assert.equal((await notificationsOf(clinic.member, `ref.id=${appointment.id}`)).length, 0)
    } finally {
      socket.close()
    }
  })

  it('tells of each reschedule (the new time) and of a cancellation, once each', async () => {
    const bea = await patientNamed('Bea')
    const appointment = await book(bea)
    const moved = nextSlot()
    const first = await api(clinic.scheduler.token).patch(`/appointments/${appointment.id}`, { start: moved })
    assert.equal(first.status, 200, JSON.stringify(first.body))
    const again = nextSlot()
    const second = await api(clinic.scheduler.token).patch(`/appointments/${appointment.id}`, {
      start: again
    })
    assert.equal(second.status, 200, JSON.stringify(second.body))
    const rescheduled = (await notificationsOf(bea, `ref.id=${appointment.id}&channel=email`)).filter(
      (n) => n.event === 'appointment.rescheduled'
    )
    assert.equal(rescheduled.length, 2, 'one per new start')
    const bodies = (
      await depsSlot.require(server.app).stores.notifications._find({
        query: { 'ref.id': appointment.id, event: 'appointment.rescheduled', channel: 'email' },
        paginate: false
      })
    ).map((n) => n.body)
    for (const start of [moved, again])
      assert.ok(
        bodies.some((body) => body.includes(formatLocal(start, 'UTC', 'en'))),
        `${formatLocal(start, 'UTC', 'en')} in ${bodies.join(' / ')}`
      )

    const cancelled = await api(clinic.scheduler.token).patch(`/appointments/${appointment.id}`, {
      status: 'cancelled',
      cancelReason: 'Provider away'
    })
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body))
    // (a cancellation's message, written with it, is confirmed just after the PATCH answers)
    let all: Seen[] = []
    await waitUntil(
      async () => {
        all = await notificationsOf(bea, `ref.id=${appointment.id}&channel=email`)
        return all.some((n) => n.event === 'appointment.cancelled')
      },
      5000,
      'the cancellation told'
    )
    assert.deepEqual(
      all.map((n) => n.event),
      ['appointment.booked', 'appointment.rescheduled', 'appointment.rescheduled', 'appointment.cancelled']
    )
    assert.ok(all.every((n) => n.status === 'queued'))
    // A refused move changes nothing and tells nothing.
    const refused = await api(clinic.scheduler.token).patch(`/appointments/${appointment.id}`, {
      status: 'checked-in'
    })
    assert.equal(refused.status, 409)
    assert.equal((await notificationsOf(bea, `ref.id=${appointment.id}`)).length, 8)
  })

  it('tells who is called, and who comes within the next positions, once each', async () => {
    await createQueue(server.url, clinic, { default: true })
    const [cy, dee, eve] = await Promise.all([patientNamed('Cy'), patientNamed('Dee'), patientNamed('Eve')])
    const items: Record<string, { id: string; number: number }> = {}
    for (const [name, patient] of Object.entries({ cy, dee, eve })) {
      const appointment = await book(patient)
      const checkedIn = await api(clinic.scheduler.token).patch(`/appointments/${appointment.id}`, {
        status: 'checked-in'
      })
      assert.equal(checkedIn.status, 200, JSON.stringify(checkedIn.body))
      const [item] = (await api(patient.token).get(`/queue-items?appointment=${appointment.id}`)).body.data
      assert.ok(item, `${name}'s queue item`)
      items[name] = item
    }
    const nextOf = async (who: SignedUp) =>
      (await notificationsOf(who, 'event=queue.next&channel=email')).map((n) => n.ref.id)
    // Positions 1 and 2 are told at check-in (the default `queueNextPosition` is 2); Eve, third, is not yet.
    assert.deepEqual(await nextOf(cy), [items.cy.id])
    assert.deepEqual(await nextOf(dee), [items.dee.id])
    assert.deepEqual(await nextOf(eve), [])
    const nextBody = (await messageOf(items.dee.id, 'queue.next')).body
    assert.ok(
      nextBody.includes(`number ${items.dee.number}`) && nextBody.includes('number 2 in line'),
      nextBody
    )

    const socket = socketClient(server.url)
    try {
      await socket.client.authenticate({ strategy: 'jwt', accessToken: cy.token })
      const live = recordEvents(socket.client, 'notifications', ['created'])
      const queue = (await api(cy.token).get(`/queue-items/${items.cy.id}`)).body.queue
      const called = await api(clinic.scheduler.token).patch(`/queues/${queue}`, { $callNext: true })
      assert.equal(called.status, 200, JSON.stringify(called.body))
      assert.equal(called.body.id, items.cy.id)
      assert.deepEqual(summary(await notificationsOf(cy, `event=queue.called`)), [
        ['queue.called', 'email', 'queued', null],
        ['queue.called', 'sms', 'skipped', 'channel-off']
      ])
      await waitUntil(
        () => live.some((e) => e.data.event === 'queue.called'),
        5000,
        'queue.called live to its patient'
      )
      assert.ok((await messageOf(items.cy.id, 'queue.called')).body.includes(`number ${items.cy.number}`))
    } finally {
      socket.close()
    }
    // Eve is now second: told once. Dee, told already, is not told again.
    assert.deepEqual(await nextOf(eve), [items.eve.id])
    assert.deepEqual(await nextOf(dee), [items.dee.id])

    // Dee called by a PATCH of her item: queue.called; Eve, now first, is not told queue.next again.
    const deeCalled = await api(clinic.scheduler.token).patch(`/queue-items/${items.dee.id}`, {
      status: 'called'
    })
    assert.equal(deeCalled.status, 200, JSON.stringify(deeCalled.body))
    assert.equal((await notificationsOf(dee, 'event=queue.called&channel=email')).length, 1)
    assert.deepEqual(await nextOf(eve), [items.eve.id])
    // Serving and done tell nothing more.
    await api(clinic.scheduler.token).patch(`/queue-items/${items.dee.id}`, { status: 'serving' })
    assert.equal((await notificationsOf(dee, '')).filter((n) => n.ref.id === items.dee.id).length, 4)
  })

  it('tells that results are ready when a record is finalized, with none of its contents', async () => {
    const fay = await patientNamed('Fay')
    const contents = {
      name: 'Penicillin',
      subtype: 'drug',
      description: 'Rash after intake',
      supplement: 'Avoid beta-lactams'
    }
    const created = await api(clinic.owner.token).post('/medical-records', {
      type: 'allergy',
      ...contents,
      facility: clinic.id,
      patient: fay.account.id
    })
    assert.ok(created.status < 300, JSON.stringify(created.body))
    const record = created.body
    assert.equal((await notificationsOf(fay, `ref.id=${record.id}`)).length, 0, 'a draft tells nothing')
    const finalized = await api(clinic.owner.token).patch(`/medical-records/${record.id}`, { finalize: true })
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body))
    const told = await notificationsOf(fay, `ref.id=${record.id}`)
    assert.deepEqual(summary(told), [
      ['record.finalized', 'email', 'queued', null],
      ['record.finalized', 'sms', 'skipped', 'channel-off']
    ])
    // (the SMS is skipped, channel off: nothing is rendered for it)
    assert.equal((await messageOf(record.id, 'record.finalized', 'sms')).body, '')
    for (const channel of ['email']) {
      const message = await messageOf(record.id, 'record.finalized', channel)
      const text = `${message.subject}\n${message.body}`
      assert.match(text, /results (from .+ )?are ready/i)
      assert.ok(text.includes(`/#/medical-records/${record.id}`), text)
      for (const value of Object.values(contents)) assert.ok(!text.includes(value), `${value} in ${text}`)
      assert.ok(!text.includes('allergy'), text)
    }
    // A permission change of the finalized record tells nothing more.
    const shared = await api(clinic.owner.token).patch(`/medical-records/${record.id}`, {
      permissions: [{ organization: clinic.id, roles: ['physician'], write: false, share: false }]
    })
    assert.equal(shared.status, 200, JSON.stringify(shared.body))
    assert.equal((await notificationsOf(fay, `ref.id=${record.id}`)).length, 2)
  })

  it('tells the billed patient of a finalized invoice, with its totals, directly and through its encounter', async () => {
    const gus = await patientNamed('Gus')
    const owner = api(clinic.owner.token)
    const invoice = await owner.post('/billing-invoices', {
      facility: clinic.id,
      type: 'walk-in',
      subject: gus.account.id,
      subjectType: 'patient'
    })
    assert.equal(invoice.status, 201, JSON.stringify(invoice.body))
    for (const price of [10, 25.5])
      assert.equal(
        (
          await owner.post('/billing-items', {
            invoice: invoice.body.id,
            type: 'custom',
            name: 'Line',
            price
          })
        ).status,
        201
      )
    const finalized = await owner.patch(`/billing-invoices/${invoice.body.id}`, { finalize: true })
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body))
    assert.deepEqual(summary(await notificationsOf(gus, `ref.id=${invoice.body.id}`)), [
      ['invoice.finalized', 'email', 'queued', null],
      ['invoice.finalized', 'sms', 'skipped', 'channel-off']
    ])
    const message = await messageOf(invoice.body.id, 'invoice.finalized')
    assert.ok(message.body.includes('total USD 35.50, balance due USD 35.50'), message.body)
    assert.ok(message.body.includes(`/#/billing-invoices/${invoice.body.id}`), message.body)

    const encounter = await owner.post('/medical-encounters', {
      facility: clinic.id,
      patient: gus.account.id,
      invoice: true,
      type: 'outpatient'
    })
    assert.equal(encounter.status, 201, JSON.stringify(encounter.body))
    assert.equal(
      (
        await owner.post('/billing-items', {
          invoice: encounter.body.invoice,
          type: 'custom',
          name: 'Visit',
          price: 40,
          quantity: 2
        })
      ).status,
      201
    )
    const closed = await owner.patch(`/medical-encounters/${encounter.body.id}`, { finalize: true })
    assert.equal(closed.status, 200, JSON.stringify(closed.body))
    const viaEncounter = await notificationsOf(gus, `ref.id=${encounter.body.invoice}&channel=email`)
    assert.deepEqual(
      viaEncounter.map((n) => [n.event, n.status]),
      [['invoice.finalized', 'queued']]
    )
    const total = (await owner.get(`/billing-invoices/${encounter.body.invoice}`)).body
    const encounterMessage = await messageOf(encounter.body.invoice, 'invoice.finalized')
    assert.ok(
      encounterMessage.body.includes('total USD 80.00'),
      `${JSON.stringify(total)} ${encounterMessage.body}`
    )
  })

  it('never shows a patient another one’s notifications', async () => {
    const [hal, ivy] = await Promise.all([patientNamed('Hal'), patientNamed('Ivy')])
    const appointment = await book(hal)
    const [halsEmail] = await notificationsOf(hal, `ref.id=${appointment.id}&channel=email`)
    assert.ok(halsEmail)
    const ivys = await api(ivy.token).get('/notifications')
    assert.equal(ivys.status, 200)
    assert.equal(ivys.body.total, 0)
    assert.equal((await api(ivy.token).get(`/notifications/${halsEmail.id}`)).status, 404)
    assert.equal((await notificationsOf(ivy, `recipient=${hal.account.id}`)).length, 0)
    assert.equal((await notificationsOf(clinic.stranger, `ref.id=${appointment.id}`)).length, 0)
    const own = await notificationsOf(hal, '')
    assert.ok(own.length > 0 && own.every((n) => n.recipient === hal.account.id))
  })
})
