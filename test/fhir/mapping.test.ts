// The FHIR mapping, driven by records this server really stores: each of the 15 record types (every field filled)
// plus an encounter, an appointment, the patient, the facility and its practitioner are created over HTTP, read
// back, mapped to FHIR, validated against the official FHIR R4 JSON schema, and parsed back to the same create
// body; the parsed bodies are created again and export the same resources (ids aside). Then the import checks:
// invalid resources, unsupported types, references inside a bundle.
import assert from 'node:assert/strict'
import { restClient, signUp, startServer, type SignedUp, type TestServer } from '../helpers/app'
import { addMember } from '../helpers/billing'
import { createSchedule, setupClinic, type ClinicFixture } from '../helpers/appointments'
import { LONG_SESSIONS } from '../helpers/subscriptions'
import { validRecords } from '../fixtures/medical-records'
import { fhirRecordContext, stripIds } from '../helpers/fhir'
import {
  medicalRecordTypes,
  serverOwnedFieldsOf
} from '../../src/services/medical-records/medical-records.schema'
import { fromFhir, supportedTypes, toFhir, validateResource, type FhirResource } from '../../src/fhir/mapping'
import { patientFromFhir } from '../../src/fhir/map/patient'
import { organizationFromFhir } from '../../src/fhir/map/organization'
import { memberFromFhir } from '../../src/fhir/map/practitioner'
import { appointmentFromFhir } from '../../src/fhir/map/appointment'
import { attachmentFileFromFhir } from '../../src/fhir/map/attachment-file'
import { mappingRows } from '../../src/fhir/map/record'
import { recordMappings } from '../../src/fhir/map/records'
import fs from 'node:fs'
import path from 'node:path'

// Friday 5 March 2027, 12:00 UTC: the clinic's schedule has free slots on the Monday after.
const NOW = Date.UTC(2027, 2, 5, 12, 0)
const MONDAY_9 = Date.UTC(2027, 2, 8, 9, 0)
const ctx = fhirRecordContext

const assertValid = (resources: FhirResource[]) => {
  assert.ok(resources.length > 0, 'no resource')
  for (const resource of resources) {
    const outcome = validateResource(resource)
    assert.deepEqual(outcome, { valid: true }, `${resource.resourceType}/${resource.id}`)
    assert.ok(supportedTypes.includes(resource.resourceType), resource.resourceType)
  }
}

describe('FHIR mapping', function () {
  this.timeout(60000)
  let server: TestServer
  let clinic: ClinicFixture
  let patient: SignedUp
  let encounter: any
  const api = (token: string) => restClient(server.url, token)

  before(async () => {
    server = await startServer({ clock: { now: () => NOW }, sessions: LONG_SESSIONS })
    clinic = await setupClinic(server.url)
    patient = await signUp(server.url, {
      firstName: 'Maria',
      middleName: 'Clara',
      lastName: 'Santos',
      mobileNo: '+15550123'
    })
    await addMember(server.url, clinic.owner, clinic.id, patient, { roles: ['patient'] })
    const created = await api(clinic.owner.token).post('/medical-encounters', {
      facility: clinic.id,
      patient: patient.account.id,
      type: 'outpatient',
      startedAt: NOW - 3600_000,
      endedAt: NOW - 1800_000,
      reason: 'Ear pain',
      notes: 'Walk-in',
      provider: clinic.provider.account.id
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    encounter = created.body
  })
  after(() => server.close())

  describe('each record type round-trips: stored → FHIR → schema-valid → the same create body', () => {
    for (const type of medicalRecordTypes) {
      it(type, async () => {
        const body = {
          ...validRecords[type],
          facility: clinic.id,
          patient: patient.account.id,
          encounter: encounter.id,
          provider: clinic.provider.account.id
        }
        const created = await api(clinic.owner.token).post('/medical-records', body)
        assert.equal(created.status, 200, JSON.stringify(created.body))
        const stored = (await api(clinic.owner.token).get(`/medical-records/${created.body.id}`)).body
        const resources = toFhir({ kind: 'record', doc: stored }, ctx)
        assertValid(resources)
        assert.equal(resources[0].id, stored.id, 'the FHIR id is the record id')
        const identifiers = ([] as unknown[]).concat(resources[0].identifier)
        assert.deepEqual(identifiers, ctx.identifierOf('medical-records', stored.id))

        const parsed = fromFhir(resources, ctx)
        assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues))
        assert.equal(parsed.plan.length, 1)
        const step = parsed.plan[0]
        assert.equal(step.kind, 'record')
        // The create body as stored (permissions normalized, procedure ids generated), server-owned fields aside.
        const expected = { ...stored }
        for (const field of [...serverOwnedFieldsOf(type), 'updatedAt']) delete expected[field]
        // The answer's list of the record's files is no part of it: each file is a DocumentReference of its own.
        delete expected.attachments
        assert.deepEqual(step.data, expected)
        for (const key of Object.keys(body)) assert.ok(key in step.data, `${key} restored`)

        // Imported again (as a client would create it), it exports the same resources, ids aside.
        const again = await api(clinic.owner.token).post('/medical-records', step.data)
        assert.equal(again.status, 200, JSON.stringify(again.body))
        const reExported = toFhir({ kind: 'record', doc: again.body }, ctx)
        assert.deepEqual(stripIds(reExported, again.body.id), stripIds(resources, stored.id))
      })
    }
  })

  it('the patient account → Patient, and back to the account fields', async () => {
    const [resource] = toFhir({ kind: 'patient', doc: patient.account }, ctx)
    assertValid([resource])
    assert.equal(resource.id, patient.account.id)
    assert.deepEqual(patientFromFhir(resource, ctx), {
      name: { firstName: 'Maria', middleName: 'Clara', lastName: 'Santos' },
      email: patient.email,
      phone: '+15550123',
      identifier: patient.account.id
    })
    const parsed = fromFhir([resource], ctx)
    assert.ok(parsed.ok)
    assert.deepEqual(
      parsed.plan.map((step) => [step.kind, step.ref]),
      [['patient', `Patient/${resource.id}`]]
    )
  })

  it('the facility → Organization, and back to its fields', async () => {
    const patch = await api(clinic.owner.token).patch(`/organizations/${clinic.id}`, {
      description: 'Family medicine',
      email: 'desk@clinic.example',
      phone: '+15550100',
      address: '1 Main St, Springfield',
      timeZone: 'UTC',
      coordinates: { lat: 40.7, lng: -74 },
      tags: ['pediatrics', 'ent']
    })
    assert.equal(patch.status, 200, JSON.stringify(patch.body))
    const organization = patch.body
    const resources = toFhir({ kind: 'organization', doc: organization }, ctx)
    assertValid(resources)
    const {
      id: _id,
      createdAt: _c,
      createdBy: _b,
      subscription: _s,
      updatedAt: _u,
      directory: _d,
      ...fields
    } = organization
    assert.deepEqual(organizationFromFhir(resources[0]), fields)
  })

  it('a provider → Practitioner + PractitionerRole with the membership', async () => {
    const members = await api(clinic.owner.token).get(
      `/organization-members?organization=${clinic.id}&uid=${clinic.provider.account.id}`
    )
    const member = members.body.data[0]
    const resources = toFhir({ kind: 'practitioner', doc: clinic.provider.account, member }, ctx)
    assertValid(resources)
    assert.deepEqual(
      resources.map((resource) => `${resource.resourceType}/${resource.id}`),
      [`Practitioner/${clinic.provider.account.id}`, `PractitionerRole/${member.id}`]
    )
    const { organization, uid, roles, privileges, superadmin } = member
    assert.deepEqual(memberFromFhir(resources[1]), { organization, uid, roles, privileges, superadmin })
    assert.ok(fromFhir(resources, ctx).ok, 'accepted on import (creating nothing)')
  })

  it('an encounter → Encounter, imported as an encounter step with its create body', async () => {
    const resources = toFhir({ kind: 'encounter', doc: encounter }, ctx)
    assertValid(resources)
    const parsed = fromFhir(resources, ctx)
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues))
    assert.equal(parsed.plan[0].kind, 'encounter')
    assert.deepEqual(parsed.plan[0].data, {
      facility: clinic.id,
      patient: patient.account.id,
      type: 'outpatient',
      startedAt: NOW - 3600_000,
      endedAt: NOW - 1800_000,
      reason: 'Ear pain',
      notes: 'Walk-in',
      provider: clinic.provider.account.id
    })
  })

  it('an appointment → Appointment, read back to its booking fields', async () => {
    await createSchedule(server.url, clinic)
    const booked = await api(clinic.scheduler.token).post('/appointments', {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: patient.account.id,
      start: MONDAY_9,
      reason: 'Follow-up',
      type: 'consultation'
    })
    assert.equal(booked.status, 201, JSON.stringify(booked.body))
    const cancelled = await api(clinic.scheduler.token).patch(`/appointments/${booked.body.id}`, {
      status: 'cancelled',
      cancelReason: 'Patient travelling'
    })
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body))
    const resources = toFhir({ kind: 'appointment', doc: cancelled.body }, ctx)
    assertValid(resources)
    assert.equal(resources[0].status, 'cancelled')
    const appointment = cancelled.body
    assert.deepEqual(appointmentFromFhir(resources[0]), {
      facility: clinic.id,
      provider: clinic.provider.account.id,
      patient: patient.account.id,
      start: MONDAY_9,
      end: appointment.end,
      reason: 'Follow-up',
      type: 'consultation',
      status: 'cancelled',
      cancelReason: 'Patient travelling',
      schedule: appointment.schedule
    })
    assert.ok(fromFhir(resources, ctx).ok, 'accepted on import (creating nothing)')
  })

  it('an attachment file → DocumentReference linking its bytes, read back to its fields', () => {
    const file = {
      id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      record: 'bbbbbbbbbbbbbbbbbbbbbbbb',
      encounter: encounter.id,
      patient: patient.account.id,
      organization: clinic.id,
      filename: 'audiogram.pdf',
      contentType: 'application/pdf',
      size: 48213,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      title: 'Audiogram, March',
      createdAt: NOW
    }
    const resources = toFhir({ kind: 'attachment', doc: file }, ctx)
    assertValid(resources)
    const { id, createdAt: _c, ...fields } = file
    assert.deepEqual(attachmentFileFromFhir(resources[0]), {
      ...fields,
      url: `${ctx.systemBase}/Binary/${id}`
    })
    assert.ok(fromFhir(resources, ctx).ok, 'accepted on import (creating nothing)')
  })
})

describe('FHIR import checks', () => {
  const ctx = fhirRecordContext
  const allergy = (extra: Record<string, unknown> = {}): FhirResource => ({
    resourceType: 'AllergyIntolerance',
    patient: { reference: 'Patient/abc' },
    code: { text: 'Peanuts' },
    ...extra
  })

  it('names the index and element path of a schema-invalid resource', () => {
    const result = fromFhir([allergy(), allergy(), allergy({ code: { text: 42 } }), allergy()], ctx)
    assert.equal(result.ok, false)
    assert.deepEqual(!result.ok && result.issues, [
      { index: 2, path: 'AllergyIntolerance.code.text', message: 'must be string', code: 'invalid' }
    ])
  })

  it('names what the record schema requires, at its FHIR element', () => {
    const result = fromFhir([allergy({ code: undefined }), allergy({ patient: undefined })], ctx)
    assert.equal(result.ok, false)
    const issues = !result.ok ? result.issues : []
    assert.ok(
      issues.some(
        (issue) =>
          issue.index === 0 && issue.path === 'AllergyIntolerance.code.text' && issue.code === 'required'
      ),
      JSON.stringify(issues)
    )
    assert.ok(
      issues.some(
        (issue) =>
          issue.index === 1 && issue.path === 'AllergyIntolerance.patient' && issue.code === 'required'
      ),
      JSON.stringify(issues)
    )
  })

  it("answers 'not-supported' with the index of an unsupported resource type", () => {
    const result = fromFhir([allergy(), { resourceType: 'MedicationRequest', id: 'm1' }], ctx)
    assert.equal(result.ok, false)
    const issues = !result.ok ? result.issues : []
    assert.deepEqual(
      issues.map((issue) => [issue.index, issue.path, issue.code]),
      [[1, 'MedicationRequest', 'not-supported']]
    )
  })

  it("answers 'not-supported' for a part of a record that belongs to none (an orphan ServiceRequest)", () => {
    const result = fromFhir(
      [
        {
          resourceType: 'ServiceRequest',
          status: 'active',
          intent: 'order',
          subject: { reference: 'Patient/abc' }
        }
      ],
      ctx
    )
    assert.deepEqual(!result.ok && result.issues.map((issue) => [issue.index, issue.code]), [
      [0, 'not-supported']
    ])
  })

  it('reports every problem of the input at once, each with its index (nothing is planned)', () => {
    const result = fromFhir(
      [
        allergy(),
        allergy({ onsetDateTime: 'yesterday' }),
        allergy(),
        { resourceType: 'Observation', status: 'final', code: { text: 'Blood pressure' } },
        allergy({ code: { coding: [{ code: 'peanut' }] } })
      ],
      ctx
    )
    assert.equal(result.ok, false)
    assert.deepEqual(!result.ok && result.issues.map((issue) => [issue.index, issue.path, issue.code]), [
      [1, 'AllergyIntolerance.onsetDateTime', 'invalid'],
      [3, 'Observation.meta.tag', 'not-supported'],
      [4, 'AllergyIntolerance.code.text', 'required']
    ])
  })

  it('keeps ids FHIR cannot spell: hashed resource ids, the original in the reference identifier', () => {
    const record = {
      ...validRecords.assessment,
      type: 'assessment' as const,
      subtype: 'diagnosis' as const,
      id: 'rec:0001/a',
      createdAt: Date.UTC(2026, 0, 5),
      createdBy: 'owner',
      patient: 'patient@clinic',
      encounter: 'encounter 7',
      provider: 'dr_who',
      recommendedProcedures: [{ id: 'proc#1', ref: 'procedure-1', text: 'Tympanometry' }]
    }
    const resources = toFhir({ kind: 'record', doc: record }, ctx)
    assertValid(resources)
    assert.match(String(resources[0].id), /^[0-9a-f]{64}$/)
    assert.equal(toFhir({ kind: 'record', doc: record }, ctx)[0].id, resources[0].id, 'stable')
    const parsed = fromFhir(resources, ctx)
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues))
    const { id: _id, createdAt: _at, createdBy: _by, ...body } = record
    assert.deepEqual(parsed.plan[0].data, body)
  })

  it('resolves urn:uuid references inside the input and orders the plan patients → encounters → records', () => {
    const result = fromFhir(
      [
        allergy({ patient: { reference: 'urn:uuid:4f6a' }, encounter: { reference: 'urn:uuid:9c1b' } }),
        {
          resourceType: 'Encounter',
          status: 'finished',
          class: { code: 'AMB' },
          subject: { reference: 'urn:uuid:4f6a' }
        },
        {
          resourceType: 'Patient',
          name: [{ given: ['Ana'], family: 'Reyes' }],
          telecom: [{ system: 'email', value: 'ana@example.test' }]
        }
      ],
      ctx,
      { fullUrls: ['urn:uuid:a11e', 'urn:uuid:9c1b', 'urn:uuid:4f6a'] }
    )
    assert.ok(result.ok, JSON.stringify(!result.ok && result.issues))
    assert.deepEqual(
      result.plan.map((step) => [step.kind, step.ref, step.index]),
      [
        ['patient', 'urn:uuid:4f6a', 2],
        ['encounter', 'urn:uuid:9c1b', 1],
        ['record', 'urn:uuid:a11e', 0]
      ]
    )
    const record = result.plan[2]
    assert.equal(record.kind === 'record' && record.data.patient, 'urn:uuid:4f6a')
    assert.equal(record.kind === 'record' && record.data.encounter, 'urn:uuid:9c1b')
    assert.deepEqual(result.plan[0].data, {
      name: { firstName: 'Ana', lastName: 'Reyes' },
      email: 'ana@example.test'
    })
  })

  it('refuses a urn:uuid reference that names nothing in the input, and a patient reference to another type', () => {
    const result = fromFhir(
      [
        allergy({ patient: { reference: 'urn:uuid:missing' } }),
        allergy({ patient: { reference: 'Organization/x' } })
      ],
      ctx
    )
    assert.equal(result.ok, false)
    const issues = !result.ok ? result.issues : []
    assert.deepEqual(
      issues.map((issue) => [issue.index, issue.path, issue.code]),
      [
        [0, 'AllergyIntolerance.patient.reference', 'invalid'],
        [1, 'AllergyIntolerance.patient.reference', 'invalid']
      ]
    )
  })

  it('reads a record of another system without this server’s tags (an untagged Condition with ICD-10)', () => {
    const result = fromFhir(
      [
        {
          resourceType: 'Condition',
          subject: { reference: 'Patient/p1' },
          code: { coding: [{ system: 'http://hl7.org/fhir/sid/icd-10', code: 'J45' }], text: 'Asthma' }
        }
      ],
      ctx
    )
    assert.ok(result.ok, JSON.stringify(!result.ok && result.issues))
    assert.deepEqual(result.plan[0].data, {
      type: 'assessment',
      patient: 'p1',
      subtype: 'diagnosis',
      text: 'Asthma',
      icd10: 'J45'
    })
  })
})

describe('docs/fhir.md', () => {
  it("has each record type's table: every field with the element the mapping puts it in", () => {
    const docs = fs.readFileSync(path.join(__dirname, '../../docs/fhir.md'), 'utf8')
    for (const type of medicalRecordTypes) {
      const mapping = recordMappings[type]
      const heading = `### \`${type}\` → ${[mapping.resourceType, ...(mapping.secondary ?? [])].join(' + ')}`
      assert.ok(docs.includes(`\n${heading}\n`), heading)
      const section = docs.slice(docs.indexOf(heading), docs.indexOf('\n### ', docs.indexOf(heading) + 1))
      for (const row of mappingRows(mapping))
        assert.ok(
          section.includes(`| \`${row.field}\` | ${row.element.replace(/\|/g, '\\|')} |`),
          `${type}: ${row.field}`
        )
    }
  })
})
