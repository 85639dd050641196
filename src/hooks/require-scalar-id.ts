// Ids are scalars on every transport: Socket.IO lets a client send a JSON value of every kind as the `id` argument
// (`{ $in: [...] }`, `{ $regex: 'a' }`), which the adapters would treat as a query. Every call's id must be a
// string (or null/undefined for the patch/remove forms without id, which each service refuses or scopes
// itself); everything else is a 400 before a hook reads the store.
import { BadRequest } from '@feathersjs/errors'
import type { HookContext, NextFunction } from '../declarations'

const MAX_ID_LENGTH = 200
// Feathers' logout, DELETE /authentication/<id>: the id is the caller's access token, longer than a record id.
const MAX_TOKEN_LENGTH = 4096

export const requireScalarId = async (context: HookContext, next: NextFunction) => {
  const { method, id } = context
  if (['get', 'update', 'patch', 'remove'].includes(method)) {
    const withoutId = id === null || id === undefined
    const allowedWithoutId = method === 'patch' || method === 'remove'
    const max = context.path === 'authentication' && method === 'remove' ? MAX_TOKEN_LENGTH : MAX_ID_LENGTH
    if (withoutId ? !allowedWithoutId : typeof id !== 'string' || id.length === 0 || id.length > max) {
      throw new BadRequest(`The id must be a string of 1 to ${max} characters`, {
        errors: [{ field: 'id', message: 'must be a string' }]
      })
    }
  }
  await next()
}
