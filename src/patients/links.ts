// A facility's patients. Someone is a facility's patient from the first of these on: the facility's staff
// registered them (POST /patients), or a medical record, an encounter or an appointment was created for them
// there. Each such event makes one link `{ facility, patient }` (its key `<facility>:<patient>` is unique), which
// mirrors the account's names, email and phone for the facility's search; a change of the account updates its
// links. Registering matches an existing account by email, else creates an account without a password, which the
// person claims with a mailed code (the `sendClaimCode` action, src/auth/flows.ts), as FHIR-imported ones do.
import { Conflict } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { RecordChange } from '../events'
import type { Stored } from '../schema/resolvers'
import type { Account } from '../services/accounts/accounts.schema'
import type { Patient } from '../services/patients/patients.schema'
import type { PatientData } from '../services/patients/patients.shared'
import { orNull } from '../billing/store-calls'

type Person = Pick<Account, 'firstName' | 'middleName' | 'lastName' | 'email' | 'mobileNo'>
type Source = Patient['source']

const lower = (value: string | undefined) => (value ?? '').trim().toLowerCase().replace(/\s+/g, ' ')

/** The mirrored fields of a link and its search keys: names alone and combined, the email, the phone's digits. */
export const mirrorOf = (person: Person) => {
  const first = lower(person.firstName)
  const middle = lower(person.middleName)
  const last = lower(person.lastName)
  const names = [
    first,
    middle,
    last,
    `${first} ${last}`,
    `${last} ${first}`,
    `${first} ${middle} ${last}`,
    `${last}, ${first}`
  ]
  const nameKeys = [...new Set(names.map((n) => n.replace(/\s+/g, ' ').trim()).filter((n) => n && n !== ','))]
  const digits = (person.mobileNo ?? '').replace(/\D/g, '')
  return {
    ...(person.firstName ? { firstName: person.firstName } : {}),
    ...(person.middleName ? { middleName: person.middleName } : {}),
    ...(person.lastName ? { lastName: person.lastName } : {}),
    ...(person.email ? { email: person.email } : {}),
    ...(person.mobileNo ? { mobileNo: person.mobileNo } : {}),
    nameKeys,
    ...(person.email ? { emailKey: lower(person.email) } : {}),
    ...(digits ? { phoneKey: digits } : {})
  }
}

/** `text` with every regular-expression character escaped (a search is a literal prefix, never a pattern). */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The store conditions of a search: `q` (trimmed, any case) as a prefix of a name key or of the email, and, when
 * it is a phone number, its digits as a prefix of the phone's. Prefixes of lowercased keys use their indexes.
 */
export const searchConditions = (q: string) => {
  const text = lower(q)
  const conditions: Record<string, unknown>[] = [
    { nameKeys: { $regex: `^${escapeRegExp(text)}` } },
    { emailKey: { $regex: `^${escapeRegExp(text)}` } }
  ]
  const digits = text.replace(/[\s()+.-]/g, '')
  if (/^[0-9]+$/.test(digits)) conditions.push({ phoneKey: { $regex: `^${digits}` } })
  return conditions
}

const isConflict = (error: unknown) =>
  error instanceof Conflict || (error as { code?: unknown })?.code === 409

/**
 * The link of `account` to `facility`, made when there is none (`created` says which). A simultaneous second
 * link is refused by the unique link key; the one stored is answered.
 */
export const ensureLink = async (
  deps: Pick<Deps, 'stores' | 'clock'>,
  facility: string,
  account: Stored<Account>,
  source: Source,
  createdBy: string | null
): Promise<{ link: Stored<Patient>; created: boolean }> => {
  const linkKey = `${facility}:${account.id}`
  const find = async () =>
    (await deps.stores.patients._find({ query: { linkKey, $limit: 1 }, paginate: false }))[0]
  const existing = await find()
  if (existing) return { link: existing, created: false }
  const now = deps.clock.now()
  try {
    const link = await deps.stores.patients._create({
      facility,
      patient: account.id,
      source,
      linkKey,
      ...mirrorOf(account),
      createdAt: now,
      createdBy,
      updatedAt: now
    })
    return { link, created: true }
  } catch (error) {
    const stored = isConflict(error) ? await find() : undefined
    if (!stored) throw error
    return { link: stored, created: false }
  }
}

const normalizeEmail = (email: string) => email.trim().toLowerCase()

/**
 * Staff register a patient: the account with this email (else a new one without a password, with the names and
 * phone given), linked to the facility. Already the facility's patient: 409 naming `email`.
 */
export const registerPatient = async (
  deps: Pick<Deps, 'stores' | 'clock' | 'announce'>,
  data: PatientData & { createdBy: string | null }
): Promise<Stored<Patient>> => {
  const email = normalizeEmail(data.email)
  const byEmail = async () =>
    (await deps.stores.accounts._find({ query: { email, $limit: 1 }, paginate: false }))[0]
  let account = await byEmail()
  let createdAccount = false
  if (!account) {
    try {
      account = await deps.stores.accounts._create({
        email,
        firstName: data.firstName,
        ...(data.middleName ? { middleName: data.middleName } : {}),
        ...(data.lastName ? { lastName: data.lastName } : {}),
        ...(data.mobileNo ? { mobileNo: data.mobileNo } : {}),
        createdAt: deps.clock.now(),
        createdBy: data.createdBy
      })
      createdAccount = true
    } catch (error) {
      const stored = isConflict(error) ? await byEmail() : undefined
      if (!stored) throw error
      account = stored
    }
  }
  // An account without names takes the ones the staff typed for the facility's list.
  const person = {
    ...account,
    firstName: account.firstName ?? data.firstName,
    lastName: account.lastName ?? data.lastName
  }
  const { link, created } = await ensureLink(deps, data.facility, person, 'registered', data.createdBy)
  if (!created)
    throw new Conflict('This person is already a patient of this facility', {
      errors: [{ field: 'email', message: 'is already a patient of this facility' }],
      patient: link.id
    })
  if (createdAccount) await deps.announce('accounts', 'created', account)
  return link
}

const linkSources: Record<string, Source> = {
  'medical-records': 'medical-records',
  'medical-encounters': 'medical-encounters',
  appointments: 'appointments'
}
const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined)

/**
 * Follows the writes of the app (its `record.changed` event): a record, encounter or appointment created for a
 * patient at a facility links them (announced to the facility's members); a changed account updates its links.
 * Never fails the write it follows: a failure is logged (the next such write links them).
 */
export const followPatientLinks =
  (deps: Pick<Deps, 'stores' | 'clock' | 'announce' | 'logger'>) => async (change: RecordChange) => {
    try {
      const source = linkSources[change.path]
      if (source && change.method === 'create') {
        for (const doc of change.docs) {
          const facility = str(doc.facility)
          const patient = str(doc.patient)
          if (!facility || !patient) continue
          const account = await orNull(deps.stores.accounts._get(patient))
          if (!account) continue
          const { link, created } = await ensureLink(
            deps,
            facility,
            account,
            source,
            str(doc.createdBy) ?? null
          )
          if (created) await deps.announce('patients', 'created', link)
        }
      }
      if (change.path === 'accounts' && (change.method === 'patch' || change.method === 'update')) {
        for (const doc of change.docs) {
          const id = str(doc.id)
          if (!id) continue
          const account = await orNull(deps.stores.accounts._get(id))
          if (!account) continue
          const links = await deps.stores.patients._find({ query: { patient: id }, paginate: false })
          if (links.length === 0) continue
          const mirror = mirrorOf(account)
          const unset = (
            ['firstName', 'middleName', 'lastName', 'mobileNo', 'emailKey', 'phoneKey'] as const
          ).filter((field) => !(field in mirror))
          // One link per facility the person is a patient of: each patched by its id.
          const mirrored = ['firstName', 'middleName', 'lastName', 'email', 'mobileNo'] as const
          for (const link of links) {
            // Most account changes (preferences, sessions) leave the mirrored fields alone: nothing to write.
            if (mirrored.every((field) => link[field] === mirror[field])) continue
            const patched = await deps.stores.patients._patch(link.id, {
              ...mirror,
              updatedAt: deps.clock.now(),
              ...(unset.length ? { $unset: Object.fromEntries(unset.map((f) => [f, ''])) } : {})
            })
            await deps.announce('patients', 'patched', patched)
          }
        }
      }
    } catch (error) {
      deps.logger.error(`Keeping the patient list of ${change.path} ${change.method} failed:`, error)
    }
  }
