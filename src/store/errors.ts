// Engine and driver errors as clients see them: a unique violation is a 409 Conflict naming the key; a driver
// failure is a bare "Datastore error" (never the driver's message, topology or reply); everything else passes.
import { Conflict, GeneralError } from '@feathersjs/errors'
import { logger } from '../logger'

/** What an engine's error may carry: NeDB's `errorType`/`key`, the MongoDB driver's code, key values and data. */
interface EngineError {
  name?: unknown
  message?: unknown
  errorType?: unknown
  code?: unknown
  key?: unknown
  keyValue?: Record<string, unknown>
  writeErrors?: { err?: { keyValue?: Record<string, unknown> } }[]
  data?: {
    name?: unknown
    code?: unknown
    keyValue?: Record<string, unknown>
    writeErrors?: { keyValue?: Record<string, unknown> }[]
  }
}

const asEngineError = (error: unknown): EngineError =>
  error !== null && typeof error === 'object' ? (error as EngineError) : {}

// (@feathersjs/mongodb wraps most driver failures in a GeneralError that still carries the driver's data.)
const isDriverError = (error: EngineError) =>
  (typeof error.name === 'string' && error.name.startsWith('Mongo')) ||
  (error.name === 'GeneralError' &&
    !!error.data &&
    typeof error.data === 'object' &&
    ('errorLabelSet' in error.data ||
      'errorResponse' in error.data ||
      String(error.data.name ?? '').startsWith('Mongo')))

/** Translates engine errors (unique violations, driver failures) into Feathers errors; rethrows the others. */
export const storeError = (thrown: unknown): never => {
  const error = asEngineError(thrown)
  const duplicate = error.errorType === 'uniqueViolated' || error.code === 11000 || error.data?.code === 11000
  if (duplicate) {
    const keyValue =
      error.keyValue ??
      error.data?.keyValue ??
      error.data?.writeErrors?.[0]?.keyValue ??
      error.writeErrors?.[0]?.err?.keyValue ??
      {}
    const key = error.key ?? Object.keys(keyValue).join(',')
    throw new Conflict('A record with the same unique value already exists', key ? { key } : undefined)
  }
  if (isDriverError(error)) {
    logger.error('Datastore error:', error.message ?? thrown)
    throw new GeneralError('Datastore error')
  }
  throw thrown
}
