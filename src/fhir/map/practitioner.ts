// A member who authors records → Practitioner (the person: their account) + PractitionerRole (the membership: its
// organization and roles). Import does not create staff; records keep their provider's id.
import type { Stored } from '../../schema/resolvers'
import type { Account } from '../../services/accounts/accounts.schema'
import type { Member } from '../../services/organization-members/organization-members.schema'
import type { FhirContext, FhirResource } from '../types'
import {
  compact,
  decodeExtension,
  encodeExtension,
  fhirId,
  identifier,
  isObj,
  idOfReference,
  metaOf,
  refTo
} from './common'

export const practitionerToFhir = (
  account: Stored<Account>,
  member: Stored<Member>,
  ctx: FhirContext
): FhirResource[] => [
  compact({
    resourceType: 'Practitioner',
    id: fhirId(account.id),
    meta: metaOf(account),
    identifier: identifier(ctx, 'accounts', account.id),
    name: [
      {
        family: account.lastName || undefined,
        given: [account.firstName, account.middleName].filter(
          (part) => typeof part === 'string' && part !== ''
        )
      }
    ],
    telecom: [account.email ? { system: 'email', value: account.email } : undefined]
  }),
  compact({
    resourceType: 'PractitionerRole',
    id: fhirId(member.id),
    meta: metaOf(member),
    identifier: identifier(ctx, 'organization-members', member.id),
    active: true,
    practitioner: refTo('Practitioner', member.uid),
    organization: refTo('Organization', member.organization),
    code: (member.roles ?? []).filter((role) => role !== '').map((role) => ({ text: role })),
    extension: [
      ...encodeExtension('privileges', 'strings', member.privileges),
      ...encodeExtension('superadmin', 'boolean', member.superadmin)
    ]
  })
]

/** What a PractitionerRole says about a membership (import creates no staff; for checks). */
export const memberFromFhir = (role: FhirResource) => {
  return {
    organization: idOfReference(role.organization),
    uid: idOfReference(role.practitioner),
    roles: (Array.isArray(role.code) ? role.code : [])
      .map((code) => (isObj(code) ? code.text : undefined))
      .filter((code): code is string => typeof code === 'string'),
    privileges: (decodeExtension('privileges', 'strings', role.extension) as string[] | undefined) ?? [],
    superadmin: (decodeExtension('superadmin', 'boolean', role.extension) as boolean | undefined) ?? false
  }
}
