// Shared by the /fhir tests: FHIR calls as clients make them, and a clinic with staff, patients and records.
import assert from 'node:assert/strict'
import { http, restClient, signUp, type SignedUp, type TestServer } from '../helpers/app'
import { validateResource } from '../../src/fhir/validate'

export const FHIR_JSON = 'application/fhir+json'

/** A /fhir call: FHIR JSON in, the answer parsed (NDJSON and text kept as text). */
export const fhirCall = (
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}
) =>
  http(base, method, path, {
    token: options.token,
    headers: {
      accept: FHIR_JSON,
      ...(options.body !== undefined ? { 'content-type': FHIR_JSON } : {}),
      ...(options.headers ?? {})
    },
    ...(options.body !== undefined ? { raw: JSON.stringify(options.body) } : {})
  })

/** Asserts an OperationOutcome answer with `status` whose issues carry `code` (and each a diagnostics text). */
export const assertOutcome = (
  answer: { status: number; body: any; headers: Headers },
  status: number,
  code?: string
) => {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.match(answer.headers.get('content-type') ?? '', /application\/fhir\+json/)
  assert.equal(answer.body.resourceType, 'OperationOutcome')
  assert.ok(Array.isArray(answer.body.issue) && answer.body.issue.length > 0)
  for (const issue of answer.body.issue) {
    assert.ok(['fatal', 'error', 'warning', 'information'].includes(issue.severity))
    assert.equal(typeof issue.diagnostics, 'string')
    if (code) assert.equal(issue.code, code)
  }
  assert.equal(validateResource(answer.body).valid, true, JSON.stringify(validateResource(answer.body)))
}

/** Asserts every resource passes the FHIR R4 schema. */
export const assertValid = (resources: any[]) => {
  for (const resource of resources) {
    const result = validateResource(resource)
    assert.equal(result.valid, true, `${resource.resourceType}: ${JSON.stringify(result)}`)
  }
}

export interface Clinic {
  admin: SignedUp
  facility: string
  staff: SignedUp
}

/** A facility (its superadmin signs up with it) with one staff member (role doctor). */
export const clinic = async (server: TestServer, name = 'FHIR Clinic'): Promise<Clinic> => {
  const admin = await signUp(server.url, { organization: { name, type: 'facility' } })
  const staff = await signUp(server.url, { firstName: 'Dora', lastName: 'Doctor' })
  const facility = admin.organization.id
  const added = await restClient(server.url, admin.token).post('/organization-members', {
    organization: facility,
    uid: staff.account.id,
    roles: ['doctor']
  })
  assert.equal(added.status, 201, JSON.stringify(added.body))
  return { admin, facility, staff }
}

/** Creates a medical record as `by` (200 expected); answers it. */
export const createRecord = async (server: TestServer, by: SignedUp, body: Record<string, unknown>) => {
  const created = await restClient(server.url, by.token).post('/medical-records', body)
  assert.equal(created.status, 200, JSON.stringify(created.body))
  return created.body
}

/** The resources of a Bundle's entries. */
export const resourcesOf = (bundle: any): any[] => (bundle.entry ?? []).map((entry: any) => entry.resource)

/** `Type/id` of each resource. */
export const keysOf = (resources: any[]) => resources.map((r) => `${r.resourceType}/${r.id}`).sort()
