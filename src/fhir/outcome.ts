// FHIR errors: every failure under /fhir is answered as an OperationOutcome with the HTTP status of what went wrong
// (a client's mistake is a 4xx naming the element, never a 5xx). Feathers errors thrown by the services called as
// the caller keep their status: a record the caller may not read stays a 404, a right they lack a 403.
import { FeathersError } from '@feathersjs/errors'

export type IssueSeverity = 'fatal' | 'error' | 'warning' | 'information'

/** One issue of an OperationOutcome (`code` from the FHIR IssueType value set). */
export interface OutcomeIssue {
  severity: IssueSeverity
  code: string
  diagnostics: string
  expression?: string[]
}

export interface OperationOutcome {
  resourceType: 'OperationOutcome'
  issue: OutcomeIssue[]
}

export const operationOutcome = (issue: OutcomeIssue[]): OperationOutcome => ({
  resourceType: 'OperationOutcome',
  issue
})

/** A failure with its HTTP status and the issues that explain it. */
export class FhirError extends Error {
  constructor(
    readonly status: number,
    readonly issues: OutcomeIssue[]
  ) {
    super(issues.map((issue) => issue.diagnostics).join('; '))
  }

  static of(status: number, code: string, diagnostics: string, expression?: string) {
    return new FhirError(status, [
      { severity: 'error', code, diagnostics, ...(expression ? { expression: [expression] } : {}) }
    ])
  }
}

export const badRequest = (diagnostics: string, expression?: string) =>
  FhirError.of(400, 'invalid', diagnostics, expression)
export const notFound = (diagnostics: string) => FhirError.of(404, 'not-found', diagnostics)
export const forbidden = (diagnostics: string) => FhirError.of(403, 'forbidden', diagnostics)

// The IssueType of each HTTP status a Feathers error carries.
const CODES: Record<number, string> = {
  400: 'invalid',
  401: 'login',
  402: 'business-rule',
  403: 'forbidden',
  404: 'not-found',
  405: 'not-supported',
  409: 'conflict',
  410: 'deleted',
  413: 'too-long',
  415: 'not-supported',
  422: 'processing',
  429: 'throttled'
}

interface FieldError {
  field?: unknown
  message?: unknown
}

/** The status and OperationOutcome of any error: a FhirError as is, a Feathers error by its code (field errors
 *  become one issue each, `prefix` naming where the body came from), anything else a 500 without details. */
export const outcomeOf = (
  error: unknown,
  prefix = ''
): { status: number; outcome: OperationOutcome; unexpected: boolean } => {
  if (error instanceof FhirError)
    return { status: error.status, outcome: operationOutcome(error.issues), unexpected: false }
  if (error instanceof FeathersError && error.code >= 400 && error.code < 500) {
    const code = CODES[error.code] ?? 'processing'
    const data = error.data as { errors?: unknown } | undefined
    const fields: FieldError[] = Array.isArray(error.errors)
      ? (error.errors as FieldError[])
      : Array.isArray(data?.errors)
        ? (data.errors as FieldError[])
        : []
    const issues: OutcomeIssue[] = fields.length
      ? fields.map((field) => ({
          severity: 'error' as const,
          code,
          diagnostics: `${String(field.field ?? '')} ${String(field.message ?? error.message)}`.trim(),
          ...(field.field !== undefined ? { expression: [`${prefix}${String(field.field)}`] } : {})
        }))
      : [{ severity: 'error', code, diagnostics: error.message }]
    return { status: error.code, outcome: operationOutcome(issues), unexpected: false }
  }
  return {
    status: 500,
    outcome: operationOutcome([{ severity: 'fatal', code: 'exception', diagnostics: 'Internal error' }]),
    unexpected: true
  }
}
