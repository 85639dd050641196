// Who may read, change and share a medical record (docs/medical-records.md), stated once as store queries (access
// layer, so that the files on a record are judged by the same rules): the same
// query scopes find/get/patch/remove in the datastore, decides write and share rights on one loaded record
// (evaluated in memory with the same Mongo-style semantics) and filters realtime events.
import type { Query } from '@feathersjs/feathers'
import { NotFound } from '@feathersjs/errors'
import { isMemberWith, type AccessContext } from './context'
import { matches } from './rules'
import type { Permission } from '../services/medical-records/medical-records.schema'

export type Grant = 'read' | 'write' | 'share'

/** A permissions element as stored: a selector plus normalised grant lists and flags. */
export interface StoredPermission {
  uid?: string
  organization?: string
  roles: string[]
  privileges: string[]
  write: boolean
  share: boolean
}

const unique = (values: string[] | undefined) => [...new Set(values ?? [])]

/**
 * Stores every element in one shape (`roles`/`privileges` arrays, `write`/`share` booleans), so that
 * "an organization element with neither list" is the indexable `{ roles: { $size: 0 }, privileges: { $size: 0 } }`.
 */
export const normalizePermissions = (permissions: Permission[] | undefined): StoredPermission[] =>
  (permissions ?? []).map((element) => ({
    ...(element.uid ? { uid: element.uid } : {}),
    ...(element.organization ? { organization: element.organization } : {}),
    roles: unique(element.roles),
    privileges: unique(element.privileges),
    write: element.write === true,
    share: element.share === true
  }))

/**
 * The records `access` holds `grant` on: the creator always; otherwise an element naming the account's uid,
 * or an element of one of its organizations that lists none of roles/privileges or one the member holds —
 * with `write: true` / `share: true` on the element for those grants. One `$or` branch per indexable shape
 * (createdBy, permissions.uid, permissions.organization), so MongoDB answers each from an index.
 */
export const recordQuery = (access: AccessContext, grant: Grant): Query => {
  const flag = grant === 'read' ? {} : { [grant]: true }
  const branches: Query[] = [
    { createdBy: access.accountId },
    { permissions: { $elemMatch: { uid: access.accountId, ...flag } } }
  ]
  const organizations = unique(access.memberships.map((m) => m.organization))
  if (organizations.length > 0) {
    branches.push({
      permissions: {
        $elemMatch: {
          organization: { $in: organizations },
          roles: { $size: 0 },
          privileges: { $size: 0 },
          ...flag
        }
      }
    })
  }
  for (const membership of access.memberships) {
    if (membership.roles.length > 0) {
      branches.push({
        permissions: {
          $elemMatch: { organization: membership.organization, roles: { $in: membership.roles }, ...flag }
        }
      })
    }
    if (membership.privileges.length > 0) {
      branches.push({
        permissions: {
          $elemMatch: {
            organization: membership.organization,
            privileges: { $in: membership.privileges },
            ...flag
          }
        }
      })
    }
  }
  return { $or: branches }
}

/** Does `access` hold `grant` on this (loaded) record? */
export const holds = (access: AccessContext, grant: Grant, record: unknown) =>
  matches(recordQuery(access, grant), record)

/** Channels whose connections might read an event about `record` (each connection is then checked with the read query). */
export const recordAudience = (record: { createdBy?: unknown; permissions?: unknown }): string[] => {
  const names = new Set<string>()
  if (record.createdBy) names.add(`accounts/${String(record.createdBy)}`)
  const elements: unknown[] = Array.isArray(record.permissions) ? record.permissions : []
  for (const element of elements as ({ uid?: unknown; organization?: unknown } | null)[]) {
    if (element?.uid) names.add(`accounts/${String(element.uid)}`)
    if (element?.organization) names.add(`organizations/${String(element.organization)}`)
  }
  return [...names]
}

/** A record filed under a facility needs a membership of that facility; an organization the caller is not a member
 *  of cannot be read by them, so it is a 404 naming the field. */
export const requireFacilityMembership = (access: AccessContext, facility: string) => {
  if (!isMemberWith(access, facility)) {
    throw new NotFound('Only members of the facility may file records under it', {
      errors: [{ field: 'facility', message: 'is not a facility you are a member of' }]
    })
  }
}
