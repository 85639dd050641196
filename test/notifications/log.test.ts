// The notifications log as clients read it: a queued notification is read by its patient and the facility's
// notification managers (superadmins, the `notifications` privilege), never by a plain member or a stranger; the
// address is masked and the message itself never leaves the server.
import assert from 'node:assert/strict'
import { restClient, startServer, signUp, type TestServer } from '../helpers/app'
import { addMember, setupFacility } from '../helpers/billing'
import { depsSlot } from '../../src/deps'
import { queueNotification } from '../../src/notifications/queue'

describe('notifications log', function () {
  this.timeout(60000)
  let server: TestServer

  before(async () => {
    server = await startServer()
  })
  after(() => server.close())

  it('is read by the patient and the managers only, masked, without the message', async () => {
    const facility = await setupFacility(server.url, 'Notified clinic')
    const [patient, manager] = await Promise.all([signUp(server.url), signUp(server.url)])
    await addMember(server.url, facility.owner, facility.id, manager, { privileges: ['notifications'] })
    const written = await queueNotification(depsSlot.require(server.app), {
      facility: facility.id,
      event: 'record.finalized',
      recipient: patient.account.id,
      ref: { service: 'medical-records', id: 'r1' },
      subjectKey: 'r1',
      vars: { patient: { firstName: 'Ada' }, facility: { name: 'Notified clinic' }, link: 'http://x' }
    })
    assert.deepEqual(
      written.map((n) => [n.channel, n.status, n.reason]),
      [
        ['email', 'queued', undefined],
        ['sms', 'skipped', 'channel-off']
      ]
    )
    const again = await queueNotification(depsSlot.require(server.app), {
      facility: facility.id,
      event: 'record.finalized',
      recipient: patient.account.id,
      ref: { service: 'medical-records', id: 'r1' },
      subjectKey: 'r1',
      vars: {}
    })
    assert.equal(again.length, 0, 'once per recipient, channel and subject')
    const own = await restClient(server.url, patient.token).get('/notifications')
    assert.equal(own.status, 200, JSON.stringify(own.body))
    assert.equal(own.body.total, 2)
    const email = own.body.data.find((n: { channel: string }) => n.channel === 'email')
    assert.match(email.to, /^.\*\*\*@/)
    for (const hidden of ['body', 'subject', 'dedupeKey', 'leaseUntil', 'leaseHolder'])
      assert.equal(email[hidden], undefined, hidden)
    for (const reader of [facility.owner, manager])
      assert.equal((await restClient(server.url, reader.token).get('/notifications')).body.total, 2)
    for (const outsider of [facility.member, facility.stranger])
      assert.equal((await restClient(server.url, outsider.token).get('/notifications')).body.total, 0)
    assert.equal(
      (await restClient(server.url, facility.stranger.token).get(`/notifications/${email.id}`)).status,
      404
    )
    assert.equal((await restClient(server.url, patient.token).post('/notifications', {})).status, 405)
  })
})
