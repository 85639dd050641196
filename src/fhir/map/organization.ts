// A facility (organization) → Organization. Fields FHIR has no element for go into extensions. Import does not
// create organizations: the bundle is imported into the facility the caller names.
import type { Stored } from '../../schema/resolvers'
import type { Organization } from '../../services/organizations/organizations.schema'
import type { FhirContext, FhirResource } from '../types'
import { compact, encodeExtension, fhirId, identifier, metaOf } from './common'

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
