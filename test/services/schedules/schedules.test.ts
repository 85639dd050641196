// Schedules over HTTP and Socket.IO: who may set a provider's weekly windows, who reads them, and the 400s that
// name the field (overlapping windows, an end not after its start, unknown time zones, providers who are not
// members).
import assert from 'node:assert/strict'
import { refusal, restClient, socketClient, type TestServer } from '../../helpers/app'
import { fieldsOf } from '../../helpers/billing'
import { createSchedule, startClinicServer, weekdays, type ClinicFixture } from '../../helpers/appointments'

describe('schedules', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  const api = (token?: string) => restClient(server.url, token)
  const body = (extra: Record<string, unknown> = {}) => ({
    facility: clinic.id,
    provider: clinic.provider.account.id,
    weekly: weekdays,
    ...extra
  })

  before(async () => {
    ;({ server, clinic } = await startClinicServer())
  })
  after(() => server.close())

  describe('creating', () => {
    it('creates a schedule with the defaults the issue states', async () => {
      const schedule = await createSchedule(server.url, clinic)
      assert.equal(schedule.timeZone, 'UTC')
      assert.deepEqual(
        [
          schedule.slotMinutes,
          schedule.bufferMinutes,
          schedule.horizonDays,
          schedule.minNoticeMinutes,
          schedule.booking,
          schedule.active
        ],
        [15, 0, 60, 0, 'staff', true]
      )
      assert.deepEqual(schedule.exceptions, [])
      assert.equal(schedule.createdBy, clinic.scheduler.account.id)
      assert.equal(typeof schedule.updatedAt, 'number')
    })

    it("defaults the time zone to the facility's, which must be an IANA name (400 naming timeZone)", async () => {
      const owner = api(clinic.owner.token)
      const bad = await owner.patch(`/organizations/${clinic.id}`, { timeZone: 'Mars/Olympus_Mons' })
      assert.equal(bad.status, 400)
      assert.deepEqual(fieldsOf(bad.body), ['timeZone'])
      const set = await owner.patch(`/organizations/${clinic.id}`, { timeZone: 'Asia/Manila' })
      assert.equal(set.status, 200, JSON.stringify(set.body))
      assert.equal(set.body.timeZone, 'Asia/Manila')
      try {
        const schedule = await createSchedule(server.url, clinic)
        assert.equal(schedule.timeZone, 'Asia/Manila')
        const own = await createSchedule(server.url, clinic, { timeZone: 'Europe/Berlin' })
        assert.equal(own.timeZone, 'Europe/Berlin', "a schedule's own zone wins")
      } finally {
        // (the other tests of this file expect the facility without a zone)
        const unset = await api(clinic.owner.token).patch(`/organizations/${clinic.id}`, { timeZone: 'UTC' })
        assert.equal(unset.status, 200)
      }
    })

    it('lets the superadmin, a scheduler and the provider for themself create; a plain member gets 403, a stranger 404', async () => {
      for (const who of [clinic.owner, clinic.scheduler, clinic.provider]) {
        const res = await api(who.token).post('/schedules', body())
        assert.equal(res.status, 201, JSON.stringify(res.body))
      }
      const own = await api(clinic.member.token).post(
        '/schedules',
        body({ provider: clinic.member.account.id })
      )
      assert.equal(own.status, 201, 'a member sets their own schedule')
      assert.equal((await api(clinic.member.token).post('/schedules', body())).status, 403)
      assert.equal(
        (await api(clinic.provider.token).post('/schedules', body({ provider: clinic.member.account.id })))
          .status,
        403
      )
      assert.equal((await api(clinic.stranger.token).post('/schedules', body())).status, 404)
      assert.equal((await api(clinic.patient.token).post('/schedules', body())).status, 404)
      assert.equal((await api().post('/schedules', body())).status, 401)
    })

    it('answers 400 naming the field: overlapping windows, end not after start, unknown zone, provider not a member', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [
          {
            weekly: [
              { day: 1, start: '09:00', end: '12:00' },
              { day: 1, start: '11:30', end: '13:00' }
            ]
          },
          'weekly.1'
        ],
        [{ weekly: [{ day: 2, start: '12:00', end: '12:00' }] }, 'weekly.0.end'],
        [{ weekly: [{ day: 2, start: '13:00', end: '09:00' }] }, 'weekly.0.end'],
        [{ weekly: [{ day: 7, start: '09:00', end: '10:00' }] }, 'weekly.0.day'],
        [{ weekly: [{ day: 1, start: '9:00', end: '10:00' }] }, 'weekly.0.start'],
        [{ timeZone: 'Mars/Olympus_Mons' }, 'timeZone'],
        [{ provider: clinic.patient.account.id }, 'provider'],
        [{ provider: clinic.stranger.account.id }, 'provider'],
        [{ slotMinutes: 4 }, 'slotMinutes'],
        [{ slotMinutes: 241 }, 'slotMinutes'],
        [{ bufferMinutes: 121 }, 'bufferMinutes'],
        [{ horizonDays: 0 }, 'horizonDays'],
        [{ minNoticeMinutes: 10081 }, 'minNoticeMinutes'],
        [{ booking: 'everyone' }, 'booking'],
        [{ exceptions: [{ date: '2026-12-25', start: '10:00', end: '09:00' }] }, 'exceptions.0.end'],
        [{ createdBy: 'x' }, 'createdBy'],
        [{ updatedAt: 1 }, 'updatedAt']
      ]
      for (const [extra, field] of cases) {
        const res = await api(clinic.scheduler.token).post('/schedules', body(extra))
        assert.equal(res.status, 400, `${JSON.stringify(extra)}: ${JSON.stringify(res.body)}`)
        assert.ok(fieldsOf(res.body).includes(field), `${field} in ${JSON.stringify(res.body)}`)
      }
    })

    it('accepts windows that touch, the same hours on different days, an IANA zone and exceptions', async () => {
      const schedule = await createSchedule(server.url, clinic, {
        timeZone: 'America/New_York',
        weekly: [
          { day: 1, start: '09:00', end: '12:00' },
          { day: 1, start: '12:00', end: '13:00' },
          { day: 2, start: '09:00', end: '12:00' }
        ],
        exceptions: [
          { date: '2026-12-25', closed: true },
          { date: '2026-12-24', start: '09:00', end: '11:00' }
        ]
      })
      assert.equal(schedule.timeZone, 'America/New_York')
      assert.equal(schedule.exceptions.length, 2)
    })
  })

  describe('changing', () => {
    it('lets the scheduler and the provider patch; checks the patched schedule; facility and provider never change', async () => {
      const schedule = await createSchedule(server.url, clinic)
      const byProvider = await api(clinic.provider.token).patch(`/schedules/${schedule.id}`, {
        slotMinutes: 30
      })
      assert.equal(byProvider.status, 200, JSON.stringify(byProvider.body))
      assert.equal(byProvider.body.slotMinutes, 30)
      const byScheduler = await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, {
        booking: 'patients'
      })
      assert.equal(byScheduler.body.booking, 'patients')
      const overlap = await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, {
        weekly: [
          { day: 3, start: '09:00', end: '10:00' },
          { day: 3, start: '08:00', end: '09:30' }
        ]
      })
      assert.equal(overlap.status, 400)
      assert.deepEqual(fieldsOf(overlap.body), ['weekly.1'])
      const zone = await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, {
        timeZone: 'Nowhere/Else'
      })
      assert.deepEqual(fieldsOf(zone.body), ['timeZone'])
      for (const field of ['facility', 'provider', 'createdAt', 'id']) {
        const res = await api(clinic.scheduler.token).patch(`/schedules/${schedule.id}`, { [field]: 'x' })
        assert.equal(res.status, 400, field)
        assert.deepEqual(fieldsOf(res.body), [field])
      }
    })

    it('refuses a plain member (403: they read it) and a stranger (404); the scheduler removes', async () => {
      const schedule = await createSchedule(server.url, clinic)
      const member = await api(clinic.member.token).patch(`/schedules/${schedule.id}`, { slotMinutes: 30 })
      assert.equal(member.status, 403)
      assert.equal(
        (await api(clinic.stranger.token).patch(`/schedules/${schedule.id}`, { slotMinutes: 30 })).status,
        404
      )
      assert.equal((await api(clinic.member.token).delete(`/schedules/${schedule.id}`)).status, 403)
      assert.equal((await api(clinic.scheduler.token).delete(`/schedules/${schedule.id}`)).status, 200)
    })
  })

  describe('reading', () => {
    it('members read the facility schedules; patients and strangers read only active patient-booking ones (REST and Socket.IO)', async () => {
      const staffOnly = await createSchedule(server.url, clinic)
      const open = await createSchedule(server.url, clinic, { booking: 'patients' })
      assert.equal((await api(clinic.member.token).get(`/schedules/${staffOnly.id}`)).status, 200)
      assert.equal((await api(clinic.patient.token).get(`/schedules/${staffOnly.id}`)).status, 404)
      assert.equal((await api(clinic.stranger.token).get(`/schedules/${staffOnly.id}`)).status, 404)
      assert.equal((await api(clinic.patient.token).get(`/schedules/${open.id}`)).status, 200)
      const listed = await api(clinic.patient.token).get(`/schedules?facility=${clinic.id}`)
      assert.ok(listed.body.data.length > 0)
      assert.ok(listed.body.data.every((s: any) => s.booking === 'patients' && s.active))
      assert.equal(
        (await api(clinic.patient.token).patch(`/schedules/${open.id}`, { active: false })).status,
        403
      )

      const socket = socketClient(server.url)
      try {
        await socket.client.authenticate({ strategy: 'jwt', accessToken: clinic.patient.token })
        const service = socket.client.service('schedules')
        assert.equal((await service.get(open.id)).id, open.id)
        assert.equal((await refusal(service.get(staffOnly.id))).code, 404)
        const bad = await refusal(
          service.create({ facility: clinic.id, provider: clinic.patient.account.id, weekly: [] })
        )
        assert.equal(bad.code, 404)
      } finally {
        socket.close()
      }

      const staff = socketClient(server.url)
      try {
        await staff.client.authenticate({ strategy: 'jwt', accessToken: clinic.scheduler.token })
        const service = staff.client.service('schedules')
        const err = await refusal(
          service.create({
            facility: clinic.id,
            provider: clinic.provider.account.id,
            weekly: [{ day: 1, start: '10:00', end: '09:00' }]
          })
        )
        assert.equal(err.code, 400)
        assert.deepEqual(fieldsOf(err), ['weekly.0.end'])
        const made = await service.create({
          facility: clinic.id,
          provider: clinic.provider.account.id,
          weekly: weekdays
        })
        assert.equal(made.provider, clinic.provider.account.id)
      } finally {
        staff.close()
      }
    })
  })
})
