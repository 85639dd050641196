// A patient's account → Patient: names, email and mobile number. The account holds no birth date or gender, so
// export leaves them out; import reads them (the plan carries them for a new account).
import type { Stored } from '../../schema/resolvers'
import type { Account } from '../../services/accounts/accounts.schema'
import type { FhirContext, FhirResource, PatientData } from '../types'
import { compact, identifier, isObj, metaOf, fhirId, type Obj } from './common'

export const patientToFhir = (account: Stored<Account>, ctx: FhirContext): FhirResource => {
  const given = [account.firstName, account.middleName].filter(
    (part) => typeof part === 'string' && part !== ''
  )
  // A middle name without a first name would read back as the first name: it is exported as its own name part
  // only when the first is present; otherwise in `name.text`.
  const firstGiven = account.firstName ? given : []
  return compact({
    resourceType: 'Patient',
    id: fhirId(account.id),
    meta: metaOf(account),
    identifier: identifier(ctx, 'accounts', account.id),
    name: [
      {
        use: 'official',
        family: account.lastName || undefined,
        given: firstGiven,
        text: !account.firstName && account.middleName ? account.middleName : undefined
      }
    ],
    telecom: [
      account.email ? { system: 'email', value: account.email } : undefined,
      account.mobileNo ? { system: 'phone', value: account.mobileNo, use: 'mobile' } : undefined
    ]
  })
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export const patientFromFhir = (resource: FhirResource, ctx: FhirContext): PatientData => {
  const names = Array.isArray(resource.name) ? resource.name.filter(isObj) : []
  const name = names.find((candidate) => candidate.use === 'official') ?? names[0]
  const given = name && Array.isArray(name.given) ? name.given : []
  const telecom = Array.isArray(resource.telecom) ? resource.telecom.filter(isObj) : []
  const ids = Array.isArray(resource.identifier) ? resource.identifier.filter(isObj) : []
  const own = ids.find((candidate) => candidate.system === `${ctx.systemBase}/accounts`)
  const parts: Obj = {
    firstName: str(given[0]),
    middleName: str(given[1]) ?? (given.length === 0 && name ? str(name.text) : undefined),
    lastName: name ? str(name.family) : undefined
  }
  return compact({
    name: compact(parts) as PatientData['name'],
    email: str(telecom.find((entry) => entry.system === 'email')?.value),
    phone: str(telecom.find((entry) => entry.system === 'phone')?.value),
    birthDate: str(resource.birthDate),
    gender: str(resource.gender),
    identifier: own ? str(own.value) : undefined
  })
}
