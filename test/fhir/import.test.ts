import assert from 'node:assert/strict'
import {
  restClient,
  signUp,
  startServer,
  uniqueEmail,
  waitUntil,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { assertOutcome, assertValid, clinic, fhirCall, type Clinic } from './helpers'
import { mappedTypes, seedRecords } from './seed'

/** A transaction Bundle of `resources`, each with a urn:uuid fullUrl (`refs` names them). */
const bundle = (entries: { fullUrl?: string; resource: any }[], type = 'transaction') => ({
  resourceType: 'Bundle',
  type,
  entry: entries.map((entry) => ({
    ...entry,
    ...(type === 'transaction' ? { request: { method: 'POST', url: entry.resource.resourceType } } : {})
  }))
})

const patientResource = (email?: string, family = 'Imported') => ({
  resourceType: 'Patient',
  name: [{ family, given: ['Ivy'] }],
  ...(email ? { telecom: [{ system: 'email', value: email }] } : {})
})

const allergyResource = (patientRef: string, text: string | undefined) => ({
  resourceType: 'AllergyIntolerance',
  patient: { reference: patientRef },
  ...(text !== undefined ? { code: { text } } : {})
})

describe('FHIR import (POST /fhir)', function () {
  this.timeout(60_000)
  let server: TestServer
  let clinicA: Clinic
  let stranger: SignedUp

  const post = (who: SignedUp | undefined, body: unknown, query = '') =>
    fhirCall(server.url, 'POST', `/fhir${query}`, { token: who?.token, body })

  /** The records of the facility, as its superadmin lists them. */
  const recordsOf = async (who: SignedUp, facility: string) => {
    const page = await restClient(server.url, who.token).get(
      `/medical-records?facility=${facility}&$limit=200`
    )
    assert.equal(page.status, 200, JSON.stringify(page.body))
    return page.body.data as any[]
  }

  /** Accounts with `email` (an application-internal look: the accounts service shows each account only its own). */
  const accountsWith = async (email: string) =>
    server.app.service('accounts')._find({ query: { email }, paginate: false })

  before(async () => {
    server = await startServer()
    clinicA = await clinic(server, 'Import clinic')
    stranger = await signUp(server.url, { organization: { name: 'Elsewhere', type: 'facility' } })
  })
  after(() => server.close())

  it('imports a transaction Bundle: a new patient account and their record, answered 201 with locations', async () => {
    const email = uniqueEmail('imported')
    const answer = await post(
      clinicA.admin,
      bundle([
        { fullUrl: 'urn:uuid:6f1c4d52-0000-4000-8000-000000000001', resource: patientResource(email) },
        {
          fullUrl: 'urn:uuid:6f1c4d52-0000-4000-8000-000000000002',
          resource: allergyResource('urn:uuid:6f1c4d52-0000-4000-8000-000000000001', 'Penicillin')
        }
      ]),
      `?facility=${clinicA.facility}`
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal(answer.body.resourceType, 'Bundle')
    assert.equal(answer.body.type, 'transaction-response')
    assertValid([answer.body])
    const [patientEntry, allergyEntry] = answer.body.entry
    assert.equal(patientEntry.response.status, '201 Created')
    assert.match(patientEntry.response.location, /^Patient\/[0-9a-f]+$/)
    assert.equal(allergyEntry.response.status, '201 Created')
    const recordId = allergyEntry.response.location.split('/')[1]
    const accounts = await accountsWith(email)
    assert.equal(accounts.length, 1)
    const record = (await recordsOf(clinicA.admin, clinicA.facility)).find((r) => r.id === recordId)
    assert.ok(record, 'the record is stored in the facility')
    assert.equal(record.patient, accounts[0].id)
    assert.equal(record.name, 'Penicillin')
    assert.equal(record.createdBy, clinicA.admin.account.id)
  })

  it('matches a patient to the existing account with the same email (200 OK, no new account)', async () => {
    const existing = await signUp(server.url)
    const answer = await post(
      clinicA.admin,
      bundle([{ resource: patientResource(existing.email) }], 'collection')
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal(answer.body.entry[0].response.status, '200 OK')
    assert.equal(answer.body.entry[0].response.location, `Patient/${existing.account.id}`)
    assert.equal((await accountsWith(existing.email)).length, 1)
  })

  it('creates nothing when an entry in the middle is invalid: 422 naming Bundle.entry[1] and the element', async () => {
    const email = uniqueEmail('never')
    const before = (await recordsOf(clinicA.admin, clinicA.facility)).length
    const answer = await post(
      clinicA.admin,
      bundle([
        { fullUrl: 'urn:uuid:6f1c4d52-0000-4000-8000-000000000011', resource: patientResource(email) },
        {
          fullUrl: 'urn:uuid:6f1c4d52-0000-4000-8000-000000000012',
          resource: allergyResource('urn:uuid:6f1c4d52-0000-4000-8000-000000000011', undefined)
        },
        {
          fullUrl: 'urn:uuid:6f1c4d52-0000-4000-8000-000000000013',
          resource: allergyResource('urn:uuid:6f1c4d52-0000-4000-8000-000000000011', 'Latex')
        }
      ])
    )
    assert.ok([400, 422].includes(answer.status), JSON.stringify(answer.body))
    assertOutcome(answer, answer.status)
    const expressions = answer.body.issue.flatMap((issue: any) => issue.expression ?? [])
    assert.ok(
      expressions.some((expression: string) => expression.startsWith('Bundle.entry[1]')),
      JSON.stringify(expressions)
    )
    assert.equal((await recordsOf(clinicA.admin, clinicA.facility)).length, before)
    assert.equal((await accountsWith(email)).length, 0)
  })

  it('refuses an unsupported resource with a 400 naming its entry', async () => {
    const answer = await post(
      clinicA.admin,
      bundle([{ resource: patientResource(uniqueEmail()) }, { resource: { resourceType: 'Spaceship' } }])
    )
    assertOutcome(answer, 400)
    assert.ok(JSON.stringify(answer.body.issue).includes('Bundle.entry[1]'))
  })

  it('undoes what it created when a later create fails (a new patient without email), naming the entry', async () => {
    const email = uniqueEmail('undone')
    const answer = await post(
      clinicA.admin,
      bundle([{ resource: patientResource(email) }, { resource: patientResource(undefined, 'Nomail') }])
    )
    assertOutcome(answer, 422)
    assert.ok(JSON.stringify(answer.body.issue).includes('Bundle.entry[1]'))
    assert.equal((await accountsWith(email)).length, 0, 'the first patient was removed again')
  })

  it('needs a superadmin of the facility: 403 for a member, 404 for a stranger, 401 without a token', async () => {
    const body = bundle([{ resource: patientResource(uniqueEmail()) }])
    assertOutcome(await post(clinicA.staff, body, `?facility=${clinicA.facility}`), 403, 'forbidden')
    assertOutcome(await post(stranger, body, `?facility=${clinicA.facility}`), 404, 'not-found')
    assertOutcome(await post(undefined, body, `?facility=${clinicA.facility}`), 401)
  })

  it('answers 400 naming facility when the caller administers no facility or several', async () => {
    const body = bundle([{ resource: patientResource(uniqueEmail()) }])
    const none = await post(clinicA.staff, body)
    assertOutcome(none, 400)
    assert.deepEqual(none.body.issue[0].expression, ['facility'])
    const second = await restClient(server.url, clinicA.admin.token).post('/organizations', {
      name: 'Second site',
      type: 'facility'
    })
    assert.equal(second.status, 201, JSON.stringify(second.body))
    await waitUntil(async () => {
      const several = await post(clinicA.admin, body)
      return several.status === 400
    })
    const several = await post(clinicA.admin, body)
    assertOutcome(several, 400)
    assert.deepEqual(several.body.issue[0].expression, ['facility'])
  })

  it('refuses a body that is no Bundle, or a Bundle of another type, with a 400', async () => {
    const query = `?facility=${clinicA.facility}`
    assertOutcome(await post(clinicA.admin, { resourceType: 'Patient' }, query), 400)
    assertOutcome(
      await post(clinicA.admin, { resourceType: 'Bundle', type: 'searchset', entry: [] }, query),
      400
    )
    const notJson = await fhirCall(server.url, 'POST', `/fhir${query}`, {
      token: clinicA.admin.token,
      headers: { 'content-type': 'application/fhir+json' },
      body: undefined
    })
    assertOutcome(notJson, 400)
  })

  describe('round trip', () => {
    it(`export → import into an empty facility → export gives the same resources (ids aside): ${mappedTypes().join(', ')}`, async () => {
      const patients = [await signUp(server.url), await signUp(server.url)]
      const source = await clinic(server, 'Round trip source')
      await seedRecords(
        server,
        source.admin,
        source.facility,
        patients.map((p) => p.account.id)
      )
      const target = await signUp(server.url, {
        organization: { name: 'Round trip target', type: 'facility' }
      })
      const first = await exportAll(server, source.admin, source.facility)
      const resources = Object.values(first).flat()
      assertValid(resources)
      const imported = await post(
        target,
        bundle(
          resources.map((resource) => ({ fullUrl: `${resource.resourceType}/${resource.id}`, resource })),
          'collection'
        ),
        `?facility=${target.organization.id}`
      )
      assert.equal(imported.status, 200, JSON.stringify(imported.body))
      const second = await exportAll(server, target, target.organization.id)
      const recordTypes = Object.keys(first).filter(
        (type) => !['Patient', 'Organization', 'Practitioner', 'PractitionerRole'].includes(type)
      )
      assert.ok(recordTypes.length > 0)
      const differing = recordTypes.filter(
        (type) => JSON.stringify(comparable(second[type] ?? [])) !== JSON.stringify(comparable(first[type]))
      )
      for (const type of differing)
        assert.deepEqual(
          comparable(second[type] ?? []),
          comparable(first[type]),
          `${type} after the round trip (of ${differing.join(', ')})`
        )
      // The patients were matched to their accounts: the same Patient resources.
      assert.deepEqual(comparable(second.Patient), comparable(first.Patient))
    })
  })
})

/** Every resource of a facility's bulk export, by type. */
const exportAll = async (server: TestServer, who: SignedUp, facility: string) => {
  const started = await fhirCall(server.url, 'GET', `/fhir/Group/${facility}/$export`, {
    token: who.token,
    headers: { prefer: 'respond-async' }
  })
  assert.equal(started.status, 202, JSON.stringify(started.body))
  const statusPath = (started.headers.get('content-location') ?? '').slice(server.url.length)
  let manifest: any
  await waitUntil(
    async () => {
      const answer = await fhirCall(server.url, 'GET', statusPath, { token: who.token })
      manifest = answer.body
      return answer.status === 200
    },
    30_000,
    'the export'
  )
  const byType: Record<string, any[]> = {}
  for (const output of manifest.output) {
    const response = await fetch(output.url, { headers: { authorization: `Bearer ${who.token}` } })
    byType[output.type] = (await response.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  }
  return byType
}

// Elements the mapping fills from the server-owned creation time (a copy is created at import time).
const CREATION_TIME: Record<string, string[]> = { Composition: ['date'], DocumentReference: ['date'] }

/**
 * A resource without what differs by nature between two facilities' copies: its id and meta, this server's
 * identifiers, the creation time, and the references to the facility, its staff and the record's own resources
 * (new ids); sorted.
 */
const comparable = (resources: any[]) =>
  resources
    .map((resource) => {
      const copy = { ...resource }
      for (const element of CREATION_TIME[resource.resourceType] ?? []) delete copy[element]
      return JSON.stringify(strip(copy))
    })
    .sort()
    .map((text) => JSON.parse(text))

const strip = (value: any): any => {
  if (Array.isArray(value)) return value.map(strip)
  if (!value || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'id' || key === 'meta' || key === 'identifier') continue
    if (key === 'reference' && typeof inner === 'string' && !inner.startsWith('Patient/')) {
      out[key] = inner.replace(/\/[^/]+$/, '/*')
      continue
    }
    out[key] = strip(inner)
  }
  return out
}
