// Notification settings over HTTP and Socket.IO: one document per facility, the defaults of config/ until the
// facility writes (`stored: false`), the upsert (the first POST creates, later ones change the same document, even
// when many arrive at once), who writes (superadmins and the `notifications` privilege; a plain member 403, a
// stranger 404) and who reads (the facility's members), 400 naming the field, and what the server's own
// notification code reads (`notificationSettingsOf`: the stored settings over the defaults).
import assert from 'node:assert/strict'
import {
  refusal,
  restClient,
  waitUntil,
  signUp,
  startServer,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { addMember, fieldsOf, setupFacility, type FacilityFixture } from '../helpers/billing'
import { connect } from '../queues/fixtures'
import { depsSlot } from '../../src/deps'
import { notificationSettingsOf } from '../../src/notifications/settings'

describe('notification settings', function () {
  this.timeout(60000)
  let server: TestServer
  let facility: FacilityFixture
  let manager: SignedUp
  const api = (token?: string) => restClient(server.url, token)

  before(async () => {
    server = await startServer()
    facility = await setupFacility(server.url, 'Settings clinic')
    manager = await signUp(server.url)
    await addMember(server.url, facility.owner, facility.id, manager, { privileges: ['notifications'] })
  })
  after(() => server.close())

  it('answers the defaults of config/ with stored: false until the facility writes', async () => {
    const fresh = await setupFacility(server.url, 'Quiet clinic')
    const res = await api(fresh.owner.token).get(`/notification-settings/${fresh.id}`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(res.body, {
      facility: fresh.id,
      channels: { email: true, sms: false },
      reminderOffsetsMinutes: [1440, 120],
      queueNextPosition: 2,
      senderName: 'Your clinic',
      stored: false
    })
    // Members read them too; a stranger does not learn the facility exists.
    assert.equal((await api(fresh.member.token).get(`/notification-settings/${fresh.id}`)).status, 200)
    assert.equal((await api(fresh.stranger.token).get(`/notification-settings/${fresh.id}`)).status, 404)
    assert.equal((await api().get(`/notification-settings/${fresh.id}`)).status, 401)
    assert.equal((await api(fresh.owner.token).get('/notification-settings')).body.total, 0)
  })

  it('the first POST creates them over the defaults, a later one changes the same document', async () => {
    const first = await api(manager.token).post('/notification-settings', {
      facility: facility.id,
      channels: { sms: true },
      quietHours: { start: '21:00', end: '07:00' },
      replyTo: 'front-desk@settings-clinic.test'
    })
    assert.equal(first.status, 201, JSON.stringify(first.body))
    assert.equal(first.body.stored, true)
    assert.deepEqual(first.body.channels, { email: true, sms: true })
    assert.deepEqual(first.body.reminderOffsetsMinutes, [1440, 120])
    assert.equal(first.body.createdBy, manager.account.id)
    const second = await api(facility.owner.token).post('/notification-settings', {
      facility: facility.id,
      reminderOffsetsMinutes: [2880, 60],
      senderName: 'Settings Clinic',
      replyTo: null
    })
    assert.equal(second.status, 201, JSON.stringify(second.body))
    assert.equal(second.body.id, first.body.id)
    assert.deepEqual(second.body.channels, { email: true, sms: true })
    assert.deepEqual(second.body.reminderOffsetsMinutes, [2880, 60])
    assert.equal(second.body.replyTo, undefined, 'null clears replyTo')
    assert.deepEqual(second.body.quietHours, { start: '21:00', end: '07:00' })
    for (const key of [facility.id, first.body.id]) {
      const read = await api(facility.member.token).get(`/notification-settings/${key}`)
      assert.equal(read.status, 200)
      assert.equal(read.body.id, first.body.id)
      assert.equal(read.body.senderName, 'Settings Clinic')
      assert.equal(read.body.stored, true)
    }
    const patched = await api(manager.token).patch(`/notification-settings/${first.body.id}`, {
      queueNextPosition: 3,
      quietHours: null
    })
    assert.equal(patched.status, 200, JSON.stringify(patched.body))
    assert.equal(patched.body.queueNextPosition, 3)
    assert.equal(patched.body.quietHours, undefined)
    const list = await api(facility.member.token).get(`/notification-settings?facility=${facility.id}`)
    assert.deepEqual(
      list.body.data.map((s: { id: string }) => s.id),
      [first.body.id]
    )
    assert.deepEqual(await notificationSettingsOf(depsSlot.require(server.app), facility.id), {
      channels: { email: true, sms: true },
      reminderOffsetsMinutes: [2880, 60],
      queueNextPosition: 3,
      senderName: 'Settings Clinic'
    })
  })

  it('superadmins and the notifications privilege write; a plain member 403, a stranger 404', async () => {
    const stored = (await api(facility.owner.token).post('/notification-settings', { facility: facility.id }))
      .body
    for (const plain of [facility.member, facility.biller]) {
      const post = await api(plain.token).post('/notification-settings', {
        facility: facility.id,
        queueNextPosition: 9
      })
      assert.equal(post.status, 403, JSON.stringify(post.body))
      assert.equal(
        (await api(plain.token).patch(`/notification-settings/${stored.id}`, { queueNextPosition: 9 }))
          .status,
        403
      )
    }
    assert.equal(
      (await api(facility.stranger.token).post('/notification-settings', { facility: facility.id })).status,
      404
    )
    const strangerPatch = await api(facility.stranger.token).patch(`/notification-settings/${stored.id}`, {
      queueNextPosition: 9
    })
    assert.equal(strangerPatch.status, 404)
    assert.equal((await api(facility.stranger.token).get(`/notification-settings/${stored.id}`)).status, 404)
    assert.equal(
      (await api(facility.stranger.token).get(`/notification-settings?facility=${facility.id}`)).body.total,
      0
    )
    assert.equal((await api().post('/notification-settings', { facility: facility.id })).status, 401)
    assert.notEqual(
      (await api(facility.owner.token).get(`/notification-settings/${facility.id}`)).body.queueNextPosition,
      9
    )
  })

  it('refuses bad values with a 400 naming the field, and server-owned fields', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ reminderOffsetsMinutes: [4] }, 'reminderOffsetsMinutes.0'],
      [{ reminderOffsetsMinutes: [20161] }, 'reminderOffsetsMinutes.0'],
      [{ reminderOffsetsMinutes: [10, 20, 30, 40, 50, 60] }, 'reminderOffsetsMinutes'],
      [{ reminderOffsetsMinutes: [60, 60] }, 'reminderOffsetsMinutes'],
      [{ queueNextPosition: 0 }, 'queueNextPosition'],
      [{ queueNextPosition: 11 }, 'queueNextPosition'],
      [{ senderName: '' }, 'senderName'],
      [{ replyTo: 'not an address' }, 'replyTo'],
      [{ quietHours: { start: '25:00', end: '07:00' } }, 'quietHours.start'],
      [{ quietHours: { start: '22:00' } }, 'quietHours.end'],
      [{ channels: { fax: true } }, 'channels.fax'],
      [{ id: 'x' }, 'id'],
      [{ createdAt: 1 }, 'createdAt']
    ]
    for (const [body, field] of bad) {
      const res = await api(manager.token).post('/notification-settings', { facility: facility.id, ...body })
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`)
      assert.equal(fieldsOf(res.body)[0], field, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`)
    }
    assert.equal((await api(manager.token).post('/notification-settings', {})).status, 400)
  })

  it('stores one document per facility when many first writes arrive at once', async () => {
    const fresh = await setupFacility(server.url, 'Busy clinic')
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api(fresh.owner.token).post('/notification-settings', {
          facility: fresh.id,
          queueNextPosition: (i % 10) + 1
        })
      )
    )
    assert.deepEqual(
      answers.map((a) => a.status),
      answers.map(() => 201)
    )
    assert.equal(new Set(answers.map((a) => a.body.id)).size, 1)
    const stored = await depsSlot.require(server.app).stores.notificationSettings._find({
      query: { facility: fresh.id },
      paginate: false
    })
    assert.equal(stored.length, 1)
  })

  it('works over Socket.IO with the typed client, with realtime events to the facility', async () => {
    const fresh = await setupFacility(server.url, 'Socket clinic')
    const [owner, member, stranger] = await Promise.all([
      connect(server.url, fresh.owner.token),
      connect(server.url, fresh.member.token),
      connect(server.url, fresh.stranger.token)
    ])
    try {
      const seen: Record<string, string[]> = { member: [], stranger: [] }
      member.client
        .service('notification-settings')
        .on('created', (d: { facility: string }) => seen.member.push(d.facility))
      stranger.client
        .service('notification-settings')
        .on('created', (d: { facility: string }) => seen.stranger.push(d.facility))
      const defaults = await owner.client.service('notification-settings').get(fresh.id)
      assert.equal(defaults.stored, false)
      const created = await owner.client
        .service('notification-settings')
        .create({ facility: fresh.id, channels: { sms: true }, reminderOffsetsMinutes: [30] })
      assert.equal(created.stored, true)
      assert.deepEqual(created.reminderOffsetsMinutes, [30])
      const read = await member.client.service('notification-settings').get(fresh.id)
      assert.equal(read.id, created.id)
      const denied = await refusal(
        member.client.service('notification-settings').patch(created.id, { queueNextPosition: 4 })
      )
      assert.equal(denied.code, 403)
      const hidden = await refusal(stranger.client.service('notification-settings').get(fresh.id))
      assert.equal(hidden.code, 404)
      const invalid = await refusal(
        owner.client.service('notification-settings').patch(created.id, { queueNextPosition: 42 })
      )
      assert.equal(invalid.code, 400)
      assert.deepEqual(fieldsOf(invalid), ['queueNextPosition'])
      const changed = await owner.client
        .service('notification-settings')
        .patch(created.id, { queueNextPosition: 4 })
      assert.equal(changed.queueNextPosition, 4)
      await waitUntil(() => seen.member.length > 0, 5000, 'the member to hear of the settings')
      assert.deepEqual(seen, { member: [fresh.id], stranger: [] })
    } finally {
      for (const c of [owner, member, stranger]) c.close()
    }
  })
})
