import assert from 'node:assert/strict'
import { restClient, signUp, startServer, type SignedUp, type TestServer } from '../helpers/app'
import { supportedTypes } from '../../src/fhir/mapping'
import {
  assertOutcome,
  assertValid,
  clinic,
  createRecord,
  fhirCall,
  keysOf,
  resourcesOf,
  type Clinic
} from './helpers'
import { pdf, putBytes } from '../attachments/fixtures'

describe('FHIR endpoints: metadata and Patient/$everything', function () {
  let server: TestServer
  let clinicA: Clinic
  let patient: SignedUp
  let reader: SignedUp
  let stranger: SignedUp
  const records: string[] = []
  let sharedRecord: string

  before(async () => {
    server = await startServer()
    clinicA = await clinic(server)
    patient = await signUp(server.url, { firstName: 'Pat', lastName: 'Patient' })
    reader = await signUp(server.url)
    stranger = await signUp(server.url)
    // Five allergy records about the patient, readable by the facility's members and the patient; one of them
    // also shared with `reader`, who is no member of the facility.
    for (const name of ['Penicillin', 'Peanuts', 'Latex', 'Pollen', 'Dust']) {
      const record = await createRecord(server, clinicA.admin, {
        type: 'allergy',
        name,
        patient: patient.account.id,
        facility: clinicA.facility,
        permissions: [
          { organization: clinicA.facility },
          { uid: patient.account.id },
          ...(name === 'Latex' ? [{ uid: reader.account.id }] : [])
        ]
      })
      records.push(record.id)
      if (name === 'Latex') sharedRecord = record.id
    }
  })
  after(() => server.close())

  const everything = (who: SignedUp | undefined, query = '', id = patient.account.id) =>
    fhirCall(server.url, 'GET', `/fhir/Patient/${id}/$everything${query}`, { token: who?.token })

  it('GET /fhir/metadata answers a CapabilityStatement of FHIR 4.0.1 listing the supported types and operations', async () => {
    const answer = await fhirCall(server.url, 'GET', '/fhir/metadata')
    assert.equal(answer.status, 200)
    assert.match(answer.headers.get('content-type') ?? '', /application\/fhir\+json/)
    const statement = answer.body
    assert.equal(statement.resourceType, 'CapabilityStatement')
    assert.equal(statement.fhirVersion, '4.0.1')
    assert.deepEqual(statement.format, ['json'])
    const types = statement.rest[0].resource.map((resource: any) => resource.type)
    for (const type of supportedTypes) assert.ok(types.includes(type), type)
    const operations = statement.rest[0].operation.map((operation: any) => operation.name).sort()
    assert.deepEqual(operations, ['everything', 'export'])
    assertValid([statement])
  })

  it('answers an unknown /fhir path with a 404 OperationOutcome', async () => {
    assertOutcome(await fhirCall(server.url, 'GET', '/fhir/Nothing/here'), 404, 'not-found')
  })

  it('answers $everything without a token with a 401 OperationOutcome', async () => {
    assertOutcome(await everything(undefined), 401, 'login')
  })

  it('gives the patient their Patient resource and every record shared with them', async () => {
    const answer = await everything(patient)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal(answer.body.resourceType, 'Bundle')
    assert.equal(answer.body.type, 'searchset')
    const resources = resourcesOf(answer.body)
    assertValid(resources)
    assert.ok(keysOf(resources).includes(`Patient/${patient.account.id}`))
    const allergies = resources.filter((r) => r.resourceType === 'AllergyIntolerance')
    assert.equal(allergies.length, records.length)
    assert.ok(!answer.body.link.some((link: any) => link.relation === 'next'))
  })

  it("gives the facility's staff the records, the facility and the author who is a member", async () => {
    const answer = await everything(clinicA.staff)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const resources = resourcesOf(answer.body)
    assertValid(resources)
    const keys = keysOf(resources)
    assert.ok(keys.includes(`Patient/${patient.account.id}`))
    assert.ok(keys.includes(`Organization/${clinicA.facility}`))
    assert.ok(keys.includes(`Practitioner/${clinicA.admin.account.id}`))
    assert.equal(resources.filter((r) => r.resourceType === 'AllergyIntolerance').length, records.length)
  })

  it('gives someone a record was shared with that record only', async () => {
    const answer = await everything(reader)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const allergies = resourcesOf(answer.body).filter((r) => r.resourceType === 'AllergyIntolerance')
    assert.equal(allergies.length, 1)
    assert.ok(JSON.stringify(allergies[0]).includes(sharedRecord))
  })

  it('answers a stranger, and an unknown patient, with a 404 OperationOutcome', async () => {
    assertOutcome(await everything(stranger), 404, 'not-found')
    assertOutcome(await everything(clinicA.staff, '', '0123456789abcdef01234567'), 404, 'not-found')
  })

  it('pages with _count and next links that lead to every record once', async () => {
    const seen: string[] = []
    let url: string | undefined = `/fhir/Patient/${patient.account.id}/$everything?_count=2`
    let pages = 0
    while (url) {
      const answer = await fhirCall(server.url, 'GET', url, { token: clinicA.staff.token })
      assert.equal(answer.status, 200, JSON.stringify(answer.body))
      const resources = resourcesOf(answer.body)
      assertValid(resources)
      const allergies = resources.filter((r) => r.resourceType === 'AllergyIntolerance')
      assert.ok(allergies.length <= 2)
      seen.push(...allergies.map((r) => r.id))
      pages += 1
      const next = answer.body.link.find((link: any) => link.relation === 'next')
      assert.ok(!next || next.url.startsWith(`${server.url}/fhir/`), JSON.stringify(answer.body.link))
      url = next ? next.url.slice(server.url.length) : undefined
    }
    assert.equal(pages, 3)
    assert.equal(new Set(seen).size, records.length)
    assert.equal(seen.length, records.length)
  })

  it('refuses a bad _count or cursor with a 400 OperationOutcome naming it', async () => {
    const zero = await everything(patient, '?_count=0')
    assertOutcome(zero, 400)
    assert.deepEqual(zero.body.issue[0].expression, ['_count'])
    const cursor = await everything(patient, '?_cursor=nonsense')
    assertOutcome(cursor, 400)
    assert.deepEqual(cursor.body.issue[0].expression, ['_cursor'])
    assertOutcome(await everything(patient, '?_since=2020-01-01'), 400, 'not-supported')
  })

  it("records the staff member's read of each record and of the patient in the audit trail", async () => {
    const answer = await everything(clinicA.staff)
    assert.equal(answer.status, 200)
    const api = restClient(server.url, patient.token)
    const recordReads = await api.get(
      `/audit-events?actor=${clinicA.staff.account.id}&service=medical-records&action=read&$limit=100`
    )
    assert.equal(recordReads.status, 200, JSON.stringify(recordReads.body))
    const ids = new Set(recordReads.body.data.flatMap((event: any) => event.ids))
    for (const id of records) assert.ok(ids.has(id), `read of ${id} audited`)
    for (const event of recordReads.body.data) assert.equal(event.via, 'rest')
    const patientReads = await api.get(
      `/audit-events?actor=${clinicA.staff.account.id}&service=accounts&action=read`
    )
    assert.ok(patientReads.body.data.some((event: any) => event.ids.includes(patient.account.id)))
  })
})

describe('FHIR endpoints: $everything and files of the attachments service', function () {
  let server: TestServer
  let clinicB: Clinic
  let patient: SignedUp
  let reader: SignedUp
  const files: Record<string, string> = {}

  // A record of the patient with one uploaded PDF; `shared` also shares the record with `reader`.
  const recordWithFile = async (name: string, shared: boolean) => {
    const record = await createRecord(server, clinicB.admin, {
      type: 'allergy',
      name,
      patient: patient.account.id,
      facility: clinicB.facility,
      permissions: [
        { organization: clinicB.facility },
        { uid: patient.account.id },
        ...(shared ? [{ uid: reader.account.id }] : [])
      ]
    })
    const bytes = pdf(64)
    const created = await restClient(server.url, clinicB.admin.token).post('/attachments', {
      record: record.id,
      filename: `${name}.pdf`,
      contentType: 'application/pdf',
      size: bytes.length
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const put = await putBytes(created.body.uploadUrl, bytes, 'application/pdf')
    assert.equal(put.status, 200, JSON.stringify(put.body))
    files[name] = created.body.id
  }

  before(async () => {
    server = await startServer()
    clinicB = await clinic(server, 'Files Clinic')
    patient = await signUp(server.url)
    reader = await signUp(server.url)
    await recordWithFile('Shared', true)
    await recordWithFile('Private', false)
  })
  after(() => server.close())

  const documentsOf = async (who: SignedUp) => {
    const answer = await fhirCall(server.url, 'GET', `/fhir/Patient/${patient.account.id}/$everything`, {
      token: who.token
    })
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const resources = resourcesOf(answer.body)
    assertValid(resources)
    return resources.filter((r) => r.resourceType === 'DocumentReference')
  }
  const urlOf = (document: any): string => document.content[0].attachment.url

  it('lists every file the patient may read as a DocumentReference', async () => {
    const documents = (await documentsOf(patient)).map((d) => JSON.stringify(d))
    assert.equal(documents.length, 2)
    for (const id of Object.values(files))
      assert.ok(
        documents.some((d) => d.includes(id)),
        id
      )
  })

  it('links each file to its bytes on this server: GET /fhir/Binary/:id with the bearer, audited', async () => {
    const documents = await documentsOf(patient)
    const shared = documents.find((d) => JSON.stringify(d).includes(files.Shared))
    const url = urlOf(shared)
    assert.ok(url.startsWith(`${server.url}/fhir/Binary/`), url)
    const bytes = await fetch(url, { headers: { authorization: `Bearer ${reader.token}` } })
    assert.equal(bytes.status, 200)
    assert.equal(bytes.headers.get('content-type'), 'application/pdf')
    assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), pdf(64))
    const anonymous = await fhirCall(server.url, 'GET', url.slice(server.url.length))
    assertOutcome(anonymous, 401)
    const reads = await restClient(server.url, patient.token).get(
      `/audit-events?actor=${reader.account.id}&service=attachments&action=read`
    )
    assert.ok(
      reads.body.data.some((event: any) => event.ids.includes(files.Shared)),
      JSON.stringify(reads.body)
    )
  })

  it('answers a file the caller may not read with a 404 OperationOutcome, as an unknown one', async () => {
    const privateUrl = `/fhir/Binary/${files.Private}`
    assertOutcome(await fhirCall(server.url, 'GET', privateUrl, { token: reader.token }), 404, 'not-found')
    assertOutcome(await fhirCall(server.url, 'GET', '/fhir/Binary/nothing', { token: patient.token }), 404)
  })

  it('lists to someone one record was shared with only that record’s file', async () => {
    const documents = (await documentsOf(reader)).map((d) => JSON.stringify(d))
    assert.equal(documents.length, 1)
    assert.ok(documents[0].includes(files.Shared))
    assert.ok(!documents[0].includes(files.Private))
  })
})
