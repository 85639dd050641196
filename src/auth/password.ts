// The minimum strength of a new password (config `passwordPolicy`): a length range and a number of character
// classes (lower case, upper case, digits, anything else), and never the account's email.
import { BadRequest } from '@feathersjs/errors'
import type { AuthSettings } from './settings'

const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/]

/** What is wrong with `value` under the policy (the one source of these messages), or undefined. */
export const passwordProblem = (
  policy: AuthSettings['passwordPolicy'],
  value: unknown,
  email?: string
): string | undefined => {
  if (value === undefined || value === null || value === '') return 'is required'
  if (typeof value !== 'string') return 'must be a string'
  if (value.length < policy.minLength) return `must be at least ${policy.minLength} characters`
  if (value.length > policy.maxLength) return `must be at most ${policy.maxLength} characters`
  const used = classes.filter((pattern) => pattern.test(value)).length
  if (used < policy.minCharacterClasses) {
    return `must mix at least ${policy.minCharacterClasses} of: lower-case letters, upper-case letters, digits, other characters`
  }
  if (typeof email === 'string' && value.trim().toLowerCase() === email.trim().toLowerCase())
    return 'must not be the account email'
  return undefined
}

/** Throws a 400 naming `field` when `value` is not strong enough. */
export const checkPasswordStrength = (
  policy: AuthSettings['passwordPolicy'],
  value: unknown,
  field: string,
  email?: string
) => {
  const message = passwordProblem(policy, value, email)
  if (message) throw new BadRequest(`Invalid '${field}': ${message}`, { errors: [{ field, message }] })
}
