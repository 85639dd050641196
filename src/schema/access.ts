// The caller's access context as types only (src/access/context.ts loads it): base, because the app's params name
// it and the client-side schemas import the declarations; so this file imports nothing.

export interface Membership {
  id: string
  organization: string
  uid: string
  roles: string[]
  privileges: string[]
  superadmin: boolean
}

export interface AccessContext {
  accountId: string
  admin: boolean
  memberships: Membership[]
}
