// Typings of the modules of @seald-io/nedb 4.1.2 that the embedded engine reaches into and that ship none of their
// own: the document serializer, parser and helpers (lib/model.js) and the cursor class (lib/cursor.js). What the
// engine relies on in them is checked against that version by test/store/nedb-internals.test.ts.
declare module '@seald-io/nedb/lib/model' {
  export function serialize(doc: unknown): string
  export function deserialize(line: string): unknown
  /** The value at a dotted path (through arrays: the values of each element). */
  export function getDotValue(doc: unknown, field: string): unknown
  export function deepCopy<T>(value: T, strictKeys?: boolean): T
}

declare module '@seald-io/nedb/lib/cursor.js' {
  type Doc = Record<string, unknown>
  /** NeDB's cursor: a query, its sort, skip, limit and projection, run by `_execAsync` when awaited. */
  class Cursor {
    constructor(db: object, query?: unknown, mapFn?: (docs: Doc[]) => unknown)
    db: object
    query: Record<string, unknown>
    mapFn?: (docs: Doc[]) => unknown
    _limit?: number
    _skip?: number
    _sort?: Record<string, number>
    _projection?: Record<string, unknown>
    projection(projection: unknown): this
    _project(docs: Doc[]): Doc[]
    _execAsync(): Promise<unknown>
  }
  export = Cursor
}
