// The HTTP answers of the bytes' checks that @feathersjs/errors has no class for (413, 415, 416), each naming the
// field at fault like every other 4xx of the API.
import { FeathersError } from '@feathersjs/errors'

const fieldData = (field: string | undefined, message: string) =>
  field ? { errors: [{ field, message }] } : undefined

export class PayloadTooLarge extends FeathersError {
  constructor(message: string, field?: string) {
    super(message, 'PayloadTooLarge', 413, 'payload-too-large', fieldData(field, message))
  }
}

export class UnsupportedMediaType extends FeathersError {
  constructor(message: string, field?: string) {
    super(message, 'UnsupportedMediaType', 415, 'unsupported-media-type', fieldData(field, message))
  }
}

export class RangeNotSatisfiable extends FeathersError {
  constructor(message: string) {
    super(message, 'RangeNotSatisfiable', 416, 'range-not-satisfiable', fieldData('range', message))
  }
}
