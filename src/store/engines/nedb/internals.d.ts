// NeDB's document serializer and parser (the line format of its data files), which have no typings of their own.
declare module '@seald-io/nedb/lib/model' {
  export function serialize(doc: unknown): string
  export function deserialize(line: string): unknown
}
