// Small helpers for the domain's internal store calls (the `_` methods of `deps.stores.*`: no hooks, no events).

/** Params for an internal call that touches every matching document (never reachable from a client). */
export const multi = (query: Record<string, unknown>) => ({
  query,
  paginate: false as const,
  adapter: { multi: true }
})

/** The numeric `code` of a Feathers error (404, 409…), or undefined for something else. */
export const errorCode = (error: unknown): number | undefined => {
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined
  return typeof code === 'number' ? code : undefined
}

/** The message of an error, or the value itself, for a log line. */
export const messageOf = (error: unknown): unknown => (error instanceof Error ? error.message : error)

/** Runs a store call, turning NotFound into `null`. */
export const orNull = async <T>(call: Promise<T>): Promise<T | null> => {
  try {
    return await call
  } catch (error) {
    if (errorCode(error) === 404) return null
    throw error
  }
}

/** A payment or stock movement whose recording never finished: `status: 'pending'`, a state of the stored document
 *  that its external schema does not know (it is never shown to clients). */
export const isPending = (doc: { status?: string }) => doc.status === 'pending'
