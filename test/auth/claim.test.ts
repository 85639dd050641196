// Claiming an account without a password (registered by a facility's staff, or imported): an unauthenticated
// `sendClaimCode` by email mails a single-use code only to such an account, answering every address alike;
// `applyActionCode` with the code and `payload: { password }` sets its first password, after which the person
// signs in. Over HTTP with a real SMTP server.
import assert from 'node:assert/strict'
import { restClient, signUp, sleep, socketClient, uniqueEmail } from '../helpers/app'
import { auth, mailedCode, startAuthTestbed, type AuthTestbed } from '../helpers/auth'
import { setupClinic, type ClinicFixture } from '../helpers/appointments'

const PASSWORD = 'Claimed horse 42'

describe('authentication: claiming an account without a password', function () {
  this.timeout(60000)
  let bed: AuthTestbed
  let clinic: ClinicFixture

  before(async () => {
    bed = await startAuthTestbed()
    clinic = await setupClinic(bed.url)
  })
  after(() => bed.close())

  const registerPatient = async (email: string) => {
    const res = await restClient(bed.url, clinic.scheduler.token).post('/patients', {
      facility: clinic.id,
      firstName: 'Katherine',
      lastName: 'Johnson',
      email
    })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body.patient as string
  }
  const claimCode = async (email: string) => {
    const seen = bed.smtp.messages.length
    const res = await auth(bed.url, { action: 'sendClaimCode', email })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return { answer: res.body, code: await mailedCode(bed.smtp, email, 'Set Your Password', seen) }
  }

  it('mails a code to a registered patient; the code sets the password once, then the person signs in', async () => {
    const email = uniqueEmail('claim')
    const accountId = await registerPatient(email)
    const { code } = await claimCode(email)
    const weak = await auth(bed.url, { action: 'applyActionCode', code, payload: { password: 'short' } })
    assert.equal(weak.status, 400, JSON.stringify(weak.body))
    assert.deepEqual(
      weak.body.errors.map((e: { field: string }) => e.field),
      ['payload.password']
    )
    const applied = await auth(bed.url, { action: 'applyActionCode', code, payload: { password: PASSWORD } })
    assert.equal(applied.status, 201, JSON.stringify(applied.body))
    assert.equal(applied.body.action, 'claimAccount')
    assert.equal(applied.body.account.id, accountId)
    assert.equal(applied.body.account.password, undefined)
    const login = await auth(bed.url, { email, password: PASSWORD })
    assert.equal(login.status, 201, JSON.stringify(login.body))
    assert.equal(login.body.account.id, accountId)
    // Once only.
    const again = await auth(bed.url, {
      action: 'applyActionCode',
      code,
      payload: { password: 'Other horse 43' }
    })
    assert.equal(again.status, 400)
    assert.equal(again.body.data.reason, 'code-used')
    assert.equal((await auth(bed.url, { email, password: PASSWORD })).status, 201)
  })

  it('refuses a wrong code and mails nothing to an account with a password or to nobody, answering alike', async () => {
    const email = uniqueEmail('claim')
    await registerPatient(email)
    const { answer, code } = await claimCode(email)
    const wrong = code.replace(/.$/, (digit) => String((Number(digit) + 1) % 10))
    const refused = await auth(bed.url, {
      action: 'applyActionCode',
      code: wrong,
      payload: { password: PASSWORD }
    })
    assert.equal(refused.status, 400)
    assert.deepEqual(
      refused.body.errors.map((e: { field: string }) => e.field),
      ['code']
    )
    assert.equal((await auth(bed.url, { email, password: PASSWORD })).status, 401)

    const member = await signUp(bed.url)
    const seen = bed.smtp.messages.length
    const forMember = await auth(bed.url, { action: 'sendClaimCode', email: member.email })
    const forNobody = await auth(bed.url, { action: 'sendClaimCode', email: uniqueEmail('nobody') })
    for (const res of [forMember, forNobody]) {
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.deepEqual({ ...res.body, email: answer.email }, answer)
    }
    // A mail to this patient after the others proves the earlier ones had their turn: none went to them.
    await claimCode(email)
    assert.deepEqual(
      bed.smtp.messages.slice(seen).map((m) => m.to),
      [email]
    )
    // A code of another action does not set a password.
    const changeSeen = bed.smtp.messages.length
    await auth(
      bed.url,
      { action: 'changePassword', password: member.password, newPassword: 'Changed horse 44' },
      member.token
    )
    const changeCode = await mailedCode(bed.smtp, member.email, 'Confirm Password Change', changeSeen)
    const mixed = await auth(bed.url, {
      action: 'applyActionCode',
      code: changeCode,
      payload: { password: PASSWORD }
    })
    assert.equal(mixed.status, 400)
    assert.equal(mixed.body.data.reason, 'code-wrong-action')
    // Bad bodies name the field.
    const bad = await auth(bed.url, { action: 'sendClaimCode', email: 'not an email' })
    assert.equal(bad.status, 400)
    assert.match(JSON.stringify(bad.body), /email/)
  })

  it('works the same over Socket.IO, signed out', async () => {
    const email = uniqueEmail('claim')
    await registerPatient(email)
    const connection = socketClient(bed.url)
    try {
      const seen = bed.smtp.messages.length
      const answer = await connection.client
        .service('authentication')
        .create({ action: 'sendClaimCode', email })
      assert.equal((answer as { action?: string }).action, 'sendClaimCode')
      const code = await mailedCode(bed.smtp, email, 'Set Your Password', seen)
      const applied = await connection.client
        .service('authentication')
        .create({ action: 'applyActionCode', code, payload: { password: PASSWORD } })
      assert.equal((applied as { action?: string }).action, 'claimAccount')
      const login = await connection.client.authenticate({ strategy: 'local', email, password: PASSWORD })
      assert.equal(login.account.email, email)
    } finally {
      connection.close()
    }
  })

  it('refuses an expired code', async () => {
    const short = await startAuthTestbed({ actionCodes: { expiresInMs: 50 } })
    try {
      const owner = await setupClinic(short.url)
      const email = uniqueEmail('claim')
      const res = await restClient(short.url, owner.scheduler.token).post('/patients', {
        facility: owner.id,
        firstName: 'Ada',
        email
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      const seen = short.smtp.messages.length
      assert.equal((await auth(short.url, { action: 'sendClaimCode', email })).status, 201)
      const code = await mailedCode(short.smtp, email, 'Set Your Password', seen)
      await sleep(100)
      const late = await auth(short.url, { action: 'applyActionCode', code, payload: { password: PASSWORD } })
      assert.equal(late.status, 400)
      assert.equal(late.body.data.reason, 'code-expired')
      assert.equal((await auth(short.url, { email, password: PASSWORD })).status, 401)
    } finally {
      await short.close()
    }
  })
})
