// A facility's patients over HTTP and Socket.IO: staff register a patient (a new account without a password, or
// the account with that email; twice is a 409 naming `email`), records, encounters and appointments make someone
// the facility's patient, and the search by name, email or phone prefix (any case, regular-expression characters
// taken literally, `facility` required, paginated) answers only the facility's patients. Every disclosure is in
// the audit trail with its patient; realtime events reach the facility's members only.
import assert from 'node:assert/strict'
import {
  http,
  recordEvents,
  restClient,
  signUp,
  socketClient,
  startServer,
  waitUntil,
  type TestServer
} from '../../helpers/app'
import { fieldsOf } from '../../helpers/billing'
import { setupClinic, type ClinicFixture } from '../../helpers/appointments'
import { LONG_SESSIONS } from '../../helpers/subscriptions'

describe('patients', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  const api = (token?: string) => restClient(server.url, token)
  const register = (token: string, body: Record<string, unknown>) =>
    api(token).post('/patients', { facility: clinic.id, ...body })
  const search = async (q: string, token = clinic.member.token) => {
    const res = await api(token).get(`/patients?facility=${clinic.id}&q=${encodeURIComponent(q)}&$limit=50`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data.map((p: any) => p.email) as string[]
  }

  before(async () => {
    server = await startServer({ sessions: LONG_SESSIONS })
    clinic = await setupClinic(server.url)
  })
  after(() => server.close())

  it('registers a new patient as an account without a password; the list shows them, not the search keys', async () => {
    const res = await register(clinic.scheduler.token, {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'Ada.Lovelace@Example.org',
      mobileNo: '+44 20 7946 0018'
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    assert.equal(res.body.facility, clinic.id)
    assert.equal(res.body.source, 'registered')
    assert.equal(res.body.email, 'ada.lovelace@example.org')
    assert.equal(res.body.createdBy, clinic.scheduler.account.id)
    for (const hidden of ['nameKeys', 'emailKey', 'phoneKey', 'linkKey'])
      assert.equal(res.body[hidden], undefined)
    // The account exists without a password: nobody signs in with one until the person sets it.
    const login = await http(server.url, 'POST', '/authentication', {
      body: { email: 'ada.lovelace@example.org', password: 'correct horse battery' }
    })
    assert.equal(login.status, 401)
    const got = await api(clinic.member.token).get(`/patients/${res.body.id}`)
    assert.equal(got.status, 200, JSON.stringify(got.body))
    assert.equal(got.body.patient, res.body.patient)
  })

  it('refuses a second registration of the same person (409 naming email) and bad bodies (400 naming the field)', async () => {
    const again = await register(clinic.owner.token, { firstName: 'Ada', email: 'ada.lovelace@example.org' })
    assert.equal(again.status, 409, JSON.stringify(again.body))
    assert.deepEqual(fieldsOf(again.body), ['email'])
    const noEmail = await register(clinic.owner.token, { firstName: 'Bo' })
    assert.equal(noEmail.status, 400)
    assert.ok(fieldsOf(noEmail.body).includes('email'), JSON.stringify(noEmail.body))
    const badPhone = await register(clinic.owner.token, {
      firstName: 'Bo',
      email: 'bo@example.org',
      mobileNo: 'x'
    })
    assert.equal(badPhone.status, 400)
    assert.ok(fieldsOf(badPhone.body).includes('mobileNo'), JSON.stringify(badPhone.body))
    const serverOwned = await register(clinic.owner.token, {
      firstName: 'Bo',
      email: 'bo@example.org',
      patient: 'x'
    })
    assert.equal(serverOwned.status, 400)
    assert.equal((await search('bo@')).length, 0, 'nothing half-written')
  })

  it('links an existing account by email, keeping its own name', async () => {
    const res = await register(clinic.owner.token, {
      firstName: 'Someone',
      email: clinic.patient.email.toUpperCase()
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    assert.equal(res.body.patient, clinic.patient.account.id)
  })

  it('finds patients by a prefix of a name, "first last", "last first", email or phone, in any case', async () => {
    await register(clinic.owner.token, {
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@navy.example'
    })
    await register(clinic.owner.token, {
      firstName: 'Alan',
      lastName: 'Turing',
      email: 'alan@bletchley.example'
    })
    assert.deepEqual(await search('ada'), ['ada.lovelace@example.org'])
    assert.deepEqual(await search('LOVE'), ['ada.lovelace@example.org'])
    assert.deepEqual(await search('ada lov'), ['ada.lovelace@example.org'])
    assert.deepEqual(await search('hopper g'), ['grace@navy.example'])
    assert.deepEqual(await search('alan@'), ['alan@bletchley.example'])
    assert.deepEqual(await search('+44 20 79'), ['ada.lovelace@example.org'])
    assert.deepEqual(await search('4420'), ['ada.lovelace@example.org'])
    assert.deepEqual(await search('uring'), [], 'a prefix, not a substring')
    // Regular-expression characters are literal.
    assert.deepEqual(await search('.*'), [])
    assert.deepEqual(await search('a.a'), [])
    assert.deepEqual(await search('(['), [])
    // No search: every patient of the facility, paginated.
    const page = await api(clinic.member.token).get(
      `/patients?facility=${clinic.id}&$limit=2&$sort[lastName]=1`
    )
    assert.equal(page.status, 200, JSON.stringify(page.body))
    assert.equal(page.body.total, 4)
    assert.equal(page.body.data.length, 2)
  })

  it('requires `facility` and refuses unknown query parameters and operators (400 naming them)', async () => {
    const missing = await api(clinic.member.token).get('/patients?q=ada')
    assert.equal(missing.status, 400)
    assert.ok(fieldsOf(missing.body).includes('facility'), JSON.stringify(missing.body))
    const regex = await api(clinic.member.token).get(`/patients?facility=${clinic.id}&email[$regex]=.*`)
    assert.equal(regex.status, 400, JSON.stringify(regex.body))
    const long = await api(clinic.member.token).get(`/patients?facility=${clinic.id}&q=${'a'.repeat(101)}`)
    assert.equal(long.status, 400)
    assert.ok(fieldsOf(long.body).includes('q'), JSON.stringify(long.body))
  })

  it('shows strangers nothing of the facility: an empty search, 404 on a patient, 404 on registering', async () => {
    const res = await api(clinic.stranger.token).get(`/patients?facility=${clinic.id}&q=a`)
    assert.equal(res.status, 200)
    assert.equal(res.body.total, 0)
    const [one] = (await api(clinic.member.token).get(`/patients?facility=${clinic.id}&q=ada`)).body.data
    assert.equal((await api(clinic.stranger.token).get(`/patients/${one.id}`)).status, 404)
    assert.equal((await api(clinic.patient.token).get(`/patients/${one.id}`)).status, 404)
    const created = await register(clinic.stranger.token, { firstName: 'X', email: 'x@example.org' })
    assert.equal(created.status, 404)
    const byMember = await register(clinic.member.token, { firstName: 'X', email: 'x@example.org' })
    assert.equal(byMember.status, 403)
  })

  it('makes the patient of a record or an encounter the facility’s patient, announced to its members', async () => {
    const member = socketClient(server.url)
    const stranger = socketClient(server.url)
    try {
      await member.client.authenticate({ strategy: 'jwt', accessToken: clinic.member.token })
      await stranger.client.authenticate({ strategy: 'jwt', accessToken: clinic.stranger.token })
      const seen = recordEvents(member.client, 'patients')
      const strangerSeen = recordEvents(stranger.client, 'patients')
      const person = await signUp(server.url, { firstName: 'Katherine', lastName: 'Johnson' })
      const encounter = await api(clinic.owner.token).post('/medical-encounters', {
        facility: clinic.id,
        patient: person.account.id
      })
      assert.equal(encounter.status, 201, JSON.stringify(encounter.body))
      await waitUntil(() => seen.some((e) => e.data.patient === person.account.id), 5000, 'the created event')
      const created = seen.find((e) => e.data.patient === person.account.id)!
      assert.equal(created.event, 'created')
      assert.equal(created.data.source, 'medical-encounters')
      assert.equal(created.data.nameKeys, undefined)
      assert.deepEqual(await search('kath'), [person.email])
      // A second encounter links nothing new.
      await api(clinic.owner.token).post('/medical-encounters', {
        facility: clinic.id,
        patient: person.account.id
      })
      const found = await api(clinic.member.token).get(
        `/patients?facility=${clinic.id}&patient=${person.account.id}`
      )
      assert.equal(found.body.total, 1)
      // A record too.
      const other = await signUp(server.url, { firstName: 'Dorothy', lastName: 'Vaughan' })
      const record = await api(clinic.owner.token).post('/medical-records', {
        type: 'allergy',
        name: 'Penicillin',
        facility: clinic.id,
        patient: other.account.id
      })
      assert.equal(record.status, 200, JSON.stringify(record.body))
      assert.deepEqual(await search('vaughan'), [other.email])
      // The person renames themself: the facility's list follows.
      const renamed = await api(person.token).patch(`/accounts/${person.account.id}`, { lastName: 'Goble' })
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
      await waitUntil(async () => (await search('goble')).length === 1, 5000, 'the renamed patient')
      assert.deepEqual(await search('johnson'), [])
      assert.equal(strangerSeen.length, 0, 'nothing reaches another facility')
    } finally {
      member.close()
      stranger.close()
    }
  })

  it('writes every disclosure to the audit trail with its patient and facility', async () => {
    const [link] = (
      await api(clinic.member.token).get(
        `/patients?facility=${clinic.id}&patient=${clinic.patient.account.id}`
      )
    ).body.data
    assert.ok(link)
    await api(clinic.member.token).get(`/patients/${link.id}`)
    const audit = await api(clinic.patient.token).get('/audit-events?service=patients&$limit=100')
    assert.equal(audit.status, 200, JSON.stringify(audit.body))
    const mine = audit.body.data.filter((e: any) => e.patient === clinic.patient.account.id)
    const actions = new Set(mine.map((e: any) => e.action))
    for (const action of ['create', 'read']) assert.ok(actions.has(action), JSON.stringify(mine))
    assert.ok(mine.every((e: any) => e.facility === clinic.id))
    assert.ok(
      mine.some((e: any) => e.actor === clinic.member.account.id),
      JSON.stringify(mine)
    )
  })
})
