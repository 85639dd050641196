// NeDB's document serializer (the line format of its data files), which has no typings of its own.
declare module '@seald-io/nedb/lib/model' {
  export function serialize(doc: unknown): string
}
