// A facility (organization) → Organization. Fields FHIR has no element for go into extensions. Import does not
// create organizations: the bundle is imported into the facility the caller names.
import type { Stored } from '../../schema/resolvers'
import type { Organization } from '../../services/organizations/organizations.schema'
import type { FhirContext, FhirResource } from '../types'
import {
  compact,
  decodeExtension,
  encodeExtension,
  fhirId,
  getPath,
  identifier,
  isObj,
  metaOf
} from './common'

export const organizationToFhir = (organization: Stored<Organization>, ctx: FhirContext): FhirResource =>
  compact({
    resourceType: 'Organization',
    id: fhirId(organization.id),
    meta: metaOf(organization),
    identifier: identifier(ctx, 'organizations', organization.id),
    active: true,
    name: organization.name || undefined,
    type: [organization.type, ...(organization.types ?? [])]
      .filter((value) => typeof value === 'string' && value !== '')
      .map((value) => ({ text: value })),
    telecom: [
      organization.email ? { system: 'email', value: organization.email } : undefined,
      organization.phone ? { system: 'phone', value: organization.phone } : undefined
    ],
    address: organization.address ? [{ text: organization.address }] : undefined,
    extension: [
      ...encodeExtension('description', 'string', organization.description),
      ...encodeExtension('timeZone', 'string', organization.timeZone),
      ...encodeExtension('coordinates', 'json', organization.coordinates ?? undefined),
      ...encodeExtension('tags', 'strings', organization.tags)
    ]
  })

/** What an Organization says, in this server's organization fields (import creates no organization; for checks
 *  and for callers matching a facility). */
export const organizationFromFhir = (resource: FhirResource): Partial<Organization> => {
  const types = (Array.isArray(resource.type) ? resource.type : [])
    .map((type) => (isObj(type) && typeof type.text === 'string' ? type.text : undefined))
    .filter((type): type is string => type !== undefined)
  const telecom = Array.isArray(resource.telecom) ? resource.telecom.filter(isObj) : []
  const address = getPath(resource, 'address[].text')
  return compact({
    name: typeof resource.name === 'string' ? resource.name : undefined,
    type: types[0],
    types: types.length > 1 ? types.slice(1) : undefined,
    description: decodeExtension('description', 'string', resource.extension) as string | undefined,
    email: telecom.find((entry) => entry.system === 'email')?.value as string | undefined,
    phone: telecom.find((entry) => entry.system === 'phone')?.value as string | undefined,
    address: typeof address === 'string' ? address : undefined,
    timeZone: decodeExtension('timeZone', 'string', resource.extension) as string | undefined,
    coordinates: decodeExtension('coordinates', 'json', resource.extension) as Organization['coordinates'],
    tags: decodeExtension('tags', 'strings', resource.extension) as string[] | undefined
  })
}
