// The CapabilityStatement of GET /fhir/metadata: exactly what this server supports — the mapped resource types
// (read through `Patient/$everything` and the bulk export, written through a Bundle import), the `$everything`
// and `$export` (on Group: a facility) operations and the transaction import at the base URL. JSON only.
const EVERYTHING = 'http://hl7.org/fhir/OperationDefinition/Patient-everything'
const EXPORT = 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/group-export'

export const capabilityStatement = (options: {
  base: string
  supportedTypes: readonly string[]
  /** Resource types an import Bundle may carry. */
  importTypes: readonly string[]
  date: string
  software: { name: string; version: string }
}) => ({
  resourceType: 'CapabilityStatement',
  status: 'active',
  date: options.date,
  kind: 'instance',
  software: options.software,
  implementation: { description: 'Clinic back end FHIR R4 interface', url: `${options.base}/fhir` },
  fhirVersion: '4.0.1',
  format: ['json'],
  rest: [
    {
      mode: 'server',
      documentation:
        'Bearer token of the server (POST /authentication). Reads apply the same access rules and audit trail as the REST API.',
      security: {
        service: [
          {
            coding: [
              { system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'OAuth' }
            ],
            text: 'Bearer access token'
          }
        ]
      },
      resource: [...new Set([...options.supportedTypes, 'Group'])].sort().map((type) => ({
        type,
        ...(options.importTypes.includes(type) ? { interaction: [{ code: 'create' }] } : {}),
        ...(type === 'Patient'
          ? { operation: [{ name: 'everything', definition: EVERYTHING }] }
          : type === 'Group'
            ? { operation: [{ name: 'export', definition: EXPORT }] }
            : {})
      })),
      interaction: [{ code: 'transaction' }],
      operation: [
        { name: 'everything', definition: EVERYTHING },
        { name: 'export', definition: EXPORT }
      ]
    }
  ]
})
