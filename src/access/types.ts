// The access context's types are base (src/schema/access.ts): the app's params name them.
export type { AccessContext, Membership } from '../schema/access'
