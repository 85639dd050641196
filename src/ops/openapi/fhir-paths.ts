// The OpenAPI entries of the /fhir routes (plain HTTP, not services: src/services/fhir/routes.ts), their tag and the
// shapes they answer. FHIR resources are described by the FHIR R4 specification, so their schemas stay open here.
type Json = Record<string, unknown>

const FHIR = 'application/fhir+json'

const resource = (type: string, description: string): Json => ({
  type: 'object',
  description,
  properties: { resourceType: { const: type } },
  required: ['resourceType']
})

export const fhirSchemas: Json = {
  FhirOperationOutcome: {
    type: 'object',
    description:
      'Every /fhir error: the issues, each with severity, code, diagnostics and the element at fault',
    properties: {
      resourceType: { const: 'OperationOutcome' },
      issue: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            severity: { enum: ['fatal', 'error', 'warning', 'information'] },
            code: { type: 'string' },
            diagnostics: { type: 'string' },
            expression: { type: 'array', items: { type: 'string' } }
          },
          required: ['severity', 'code']
        }
      }
    },
    required: ['resourceType', 'issue']
  },
  FhirBundle: resource(
    'Bundle',
    'A FHIR R4 Bundle (searchset, transaction, collection or transaction-response)'
  ),
  FhirCapabilityStatement: resource('CapabilityStatement', 'What this server supports (FHIR R4, JSON)'),
  FhirExportManifest: {
    type: 'object',
    description: 'The Bulk Data manifest of a complete export',
    properties: {
      transactionTime: { type: 'string', format: 'date-time' },
      request: { type: 'string' },
      requiresAccessToken: { const: true },
      output: {
        type: 'array',
        items: {
          type: 'object',
          properties: { type: { type: 'string' }, url: { type: 'string' }, count: { type: 'integer' } }
        }
      },
      error: { type: 'array', items: {} }
    }
  }
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

const outcome = (description: string) => ({
  description,
  content: { [FHIR]: { schema: ref('FhirOperationOutcome') } }
})

const errors = (codes: Record<number, string>) =>
  Object.fromEntries(Object.entries(codes).map(([code, description]) => [code, outcome(description)]))

const id = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description
})

const query = (name: string, description: string) => ({
  name,
  in: 'query',
  schema: { type: 'string' },
  description
})

const tag = ['fhir']

export const fhirTag = {
  name: 'fhir',
  description:
    "FHIR R4 (docs/fhir.md): a patient's record as a Bundle, bulk export of a facility (Bulk Data v2), Bundle import. Errors are OperationOutcome resources."
}

export const fhirPaths: Json = {
  '/fhir/metadata': {
    get: {
      tags: tag,
      summary: 'The CapabilityStatement (anonymous)',
      security: [{}],
      responses: {
        200: {
          description: 'CapabilityStatement',
          content: { [FHIR]: { schema: ref('FhirCapabilityStatement') } }
        }
      }
    }
  },
  '/fhir/Patient/{id}/$everything': {
    get: {
      tags: tag,
      summary: 'Everything the caller may read about a patient, as a searchset Bundle (paged by next links)',
      parameters: [
        id('id', "The patient's account id"),
        query('_count', 'Documents per page (default 100, at most 1000)'),
        query('_cursor', 'Opaque: take it from the next link')
      ],
      responses: {
        200: { description: 'searchset Bundle', content: { [FHIR]: { schema: ref('FhirBundle') } } },
        ...errors({
          400: 'Bad _count or _cursor',
          401: 'No valid token',
          404: 'Unknown patient or nothing readable'
        })
      }
    }
  },
  '/fhir/Group/{facility}/$export': {
    get: {
      tags: tag,
      summary: "Kicks off a bulk export of a facility's data (superadmins; needs Prefer: respond-async)",
      parameters: [
        id('facility', 'The facility (organization) id'),
        { name: 'Prefer', in: 'header', required: true, schema: { const: 'respond-async' } },
        query('_type', 'Comma-separated resource types (default: every supported type)'),
        query('_since', 'FHIR instant: only resources changed at or after it'),
        query('_outputFormat', 'application/fhir+ndjson (the only format)')
      ],
      responses: {
        202: {
          description: 'Accepted: poll the Content-Location URL',
          headers: { 'Content-Location': { schema: { type: 'string' } } },
          content: { [FHIR]: { schema: ref('FhirOperationOutcome') } }
        },
        ...errors({
          400: 'No Prefer: respond-async, unknown _type, bad _since or an unsupported parameter',
          401: 'No valid token',
          403: 'A member who is no superadmin',
          404: 'Unknown facility or not a member'
        })
      }
    },
    post: {
      tags: tag,
      summary: 'Kicks off a bulk export (the same as GET; parameters in the query)',
      parameters: [id('facility', 'The facility (organization) id')],
      responses: {
        202: { description: 'Accepted: poll the Content-Location URL' },
        ...errors({ 400: 'As GET', 403: 'As GET' })
      }
    }
  },
  '/fhir/$export-status/{job}': {
    get: {
      tags: tag,
      summary: 'Status of an export: 202 + X-Progress while running, then 200 with the manifest',
      parameters: [id('job', 'The export job id (from Content-Location)')],
      responses: {
        200: {
          description: 'The manifest',
          content: { 'application/json': { schema: ref('FhirExportManifest') } }
        },
        202: { description: 'Still running', headers: { 'X-Progress': { schema: { type: 'string' } } } },
        ...errors({
          401: 'No valid token',
          404: 'Unknown, expired, cancelled, or neither the requester nor a superadmin of the facility',
          500: 'The export failed on the server'
        })
      }
    },
    delete: {
      tags: tag,
      summary: 'Cancels an export and removes its files',
      parameters: [id('job', 'The export job id')],
      responses: { 202: { description: 'Cancelled' }, ...errors({ 401: 'No valid token', 404: 'As GET' }) }
    }
  },
  '/fhir/$export-files/{job}/{file}': {
    get: {
      tags: tag,
      summary:
        'One NDJSON file of a complete export (same bearer; until FHIR_EXPORT_TTL_MS after completion)',
      parameters: [
        id('job', 'The export job id'),
        id('file', '<ResourceType>.ndjson, as the manifest names it')
      ],
      responses: {
        200: {
          description: 'One resource per line',
          content: { 'application/fhir+ndjson': { schema: { type: 'string' } } }
        },
        ...errors({ 401: 'No valid token', 404: 'Unknown file, expired or not yours' })
      }
    }
  },
  '/fhir/Binary/{id}': {
    get: {
      tags: tag,
      summary:
        "An attachment file's bytes (a DocumentReference's content URL), to a bearer who may read its record; audited",
      parameters: [id('id', 'The attachment id')],
      responses: {
        200: {
          description: 'The bytes, with the stored Content-Type',
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }
        },
        206: { description: 'The requested single `Range` of the bytes' },
        ...errors({ 401: 'No valid token', 404: 'No such file, not ready, or not readable by the caller' })
      }
    }
  },
  '/fhir': {
    post: {
      tags: tag,
      summary: 'Imports a transaction or collection Bundle into a facility, all or nothing (superadmins)',
      parameters: [
        query('facility', 'The target facility (default: the one facility the caller administers)')
      ],
      requestBody: { required: true, content: { [FHIR]: { schema: ref('FhirBundle') } } },
      responses: {
        200: {
          description: 'transaction-response Bundle',
          content: { [FHIR]: { schema: ref('FhirBundle') } }
        },
        ...errors({
          400: 'Not a Bundle, an unsupported resource, or no facility given when several or none are administered',
          401: 'No valid token',
          403: 'A member who is no superadmin',
          404: 'Unknown facility or not a member',
          422: 'An invalid resource: Bundle.entry[<i>] and the element'
        })
      }
    }
  }
}
