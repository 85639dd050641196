import assert from 'node:assert/strict'
import { http, signUp, startServer, type SignedUp, type TestServer } from '../helpers/app'
import { assertOutcome, fhirCall } from './helpers'

// Whatever a client sends to /fhir, the answer is an OperationOutcome with a 4xx, never a 5xx.
describe('FHIR endpoints: malformed requests', function () {
  let server: TestServer
  let admin: SignedUp

  before(async () => {
    server = await startServer()
    admin = await signUp(server.url, { organization: { name: 'Malformed clinic', type: 'facility' } })
  })
  after(() => server.close())

  it('answers odd paths, ids and parameters with a 4xx OperationOutcome', async () => {
    const facility = admin.organization.id
    const patient = admin.account.id
    const requests: [string, string, Record<string, string>?][] = [
      ['GET', '/fhir'],
      ['PUT', '/fhir/metadata'],
      ['GET', '/fhir/Patient/%2E%2E%2F%2E%2E/$everything'],
      ['GET', `/fhir/Patient/${patient}/$everything?_count=1&_count=2`],
      ['GET', `/fhir/Patient/${patient}/$everything?_count=99999999999`],
      ['GET', `/fhir/Patient/${patient}/$everything?_cursor[a]=1`],
      [
        'GET',
        `/fhir/Patient/${patient}/$everything?_cursor=${Buffer.from('{"patient":1}').toString('base64url')}`
      ],
      ['DELETE', `/fhir/Patient/${patient}/$everything`],
      ['GET', `/fhir/Group/${'x'.repeat(500)}/$export`, { prefer: 'respond-async' }],
      ['GET', `/fhir/Group/${facility}/$export?_type=Patient&_type=Condition`, { prefer: 'respond-async' }],
      ['GET', `/fhir/Group/${facility}/$export?_type=,`, { prefer: 'respond-async' }],
      ['GET', `/fhir/Group/${facility}/$export?_since=2026-13-45T99:99:99Z`, { prefer: 'respond-async' }],
      ['GET', `/fhir/Group/${facility}/$export?_outputFormat=text/csv`, { prefer: 'respond-async' }],
      ['GET', `/fhir/Group/${facility}/$export?patient=Patient/1`, { prefer: 'respond-async' }],
      ['PATCH', `/fhir/Group/${facility}/$export`],
      ['GET', '/fhir/$export-status/..%2F..%2Fx'],
      ['GET', '/fhir/$export-status/0123456789abcdef01234567'],
      ['GET', '/fhir/$export-files/0123456789abcdef01234567/Patient.ndjson'],
      ['GET', '/fhir/$export-files/0123456789abcdef01234567/..%2F..%2Fconfig.json'],
      ['POST', `/fhir?facility=${facility}&facility=${facility}`],
      ['POST', '/fhir?facility=%24where']
    ]
    for (const [method, path, headers] of requests) {
      const answer = await fhirCall(server.url, method, path, { token: admin.token, headers }).catch(
        (error) => {
          throw new Error(`${method} ${path}: ${error.message}`)
        }
      )
      assert.ok(answer.status >= 400 && answer.status < 500, `${method} ${path}: ${answer.status}`)
      assert.match(answer.headers.get('content-type') ?? '', /fhir/, `${method} ${path}`)
      assertOutcome(answer, answer.status)
    }
  })

  it('answers bad bodies with a 4xx OperationOutcome and imports nothing', async () => {
    const bodies: [string, string][] = [
      ['application/fhir+json', '{"resourceType":"Bundle",'],
      [
        'application/fhir+json',
        '{"__proto__":{"admin":true},"resourceType":"Bundle","type":"collection","entry":[]}'
      ],
      ['application/fhir+json', '[]'],
      ['application/fhir+json', '"Bundle"'],
      ['application/fhir+json', '{"resourceType":"Bundle","type":"collection","entry":[null,1,"x"]}'],
      [
        'application/fhir+json',
        '{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Patient","name":"x"}}]}'
      ],
      ['text/plain', 'hello'],
      [
        'application/fhir+json',
        JSON.stringify({ resourceType: 'Bundle', type: 'collection', entry: 'x'.repeat(2_000_000) })
      ]
    ]
    for (const [type, raw] of bodies) {
      const answer = await http(server.url, 'POST', `/fhir?facility=${admin.organization.id}`, {
        token: admin.token,
        raw,
        headers: { 'content-type': type, accept: 'application/fhir+json' }
      })
      assert.ok(answer.status >= 400 && answer.status < 500, `${raw.slice(0, 60)}: ${answer.status}`)
      assertOutcome(answer, answer.status)
    }
  })
})
