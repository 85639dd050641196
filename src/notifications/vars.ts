// The variables of a notification's templates, built per event from the stored documents: who (`patient`), where
// (`facility.name`), when (`appointment.start`, written in the facility's time zone and the patient's locale),
// the queue ticket, an invoice's totals, and a `link` into the console. Never a record's clinical contents: the
// builder of `record.finalized` takes no record field at all.
// The documents read (accounts, organizations) are cached per trigger call or per pass (`VarsContext`), so a
// pass over many appointments of one facility reads the facility once.
import type { Deps } from '../deps'
import type { Stored } from '../store'
import { orNull } from '../billing/store-calls'
import { formatLocal } from '../appointments/zone'
import { appSlot } from '../runtime'
import { notificationSettingsOf, type NotificationSettings } from './settings'
import type { Account } from '../services/accounts/accounts.schema'
import type { Organization } from '../services/organizations/organizations.schema'

type VarsDeps = Pick<Deps, 'stores' | 'providers' | 'settings'>

/** Reads shared by the notifications of one trigger call or one pass. */
export interface VarsContext {
  deps: VarsDeps
  account(id: string): Promise<Stored<Account> | null>
  organization(id: string): Promise<Stored<Organization> | null>
  /** The facility's notification settings. */
  settings(facility: string): Promise<NotificationSettings>
}

export const varsContext = (deps: VarsDeps): VarsContext => {
  const accounts = new Map<string, Promise<Stored<Account> | null>>()
  const organizations = new Map<string, Promise<Stored<Organization> | null>>()
  const settings = new Map<string, Promise<NotificationSettings>>()
  const cached = <T>(map: Map<string, Promise<T>>, id: string, read: () => Promise<T>) => {
    let value = map.get(id)
    if (!value) map.set(id, (value = read()))
    return value
  }
  return {
    deps,
    account: (id) => cached(accounts, id, () => orNull(deps.stores.accounts._get(id))),
    organization: (id) => cached(organizations, id, () => orNull(deps.stores.organizations._get(id))),
    settings: (facility) => cached(settings, facility, () => notificationSettingsOf(deps, facility))
  }
}

/** The patient's locale (one for now: every template and date is written in English). */
export const localeOf = (_account: Stored<Account> | null) => 'en'

const nameOf = (account: Stored<Account> | null) =>
  [account?.firstName, account?.lastName].filter((part) => !!part).join(' ')

/** A path of the console (its client-side routes), on this server's public origin. */
export const consoleLink = (deps: Pick<Deps, 'providers'>, path: string) =>
  `${deps.providers.publicOrigin()}/#/${path}`

/** `patient` and `facility`: every event's variables. */
const common = async (context: VarsContext, facility: string, patient: string) => {
  const [account, organization] = await Promise.all([
    context.account(patient),
    context.organization(facility)
  ])
  return {
    patient: { firstName: account?.firstName ?? '', lastName: account?.lastName ?? '' },
    facility: { name: organization?.name ?? '' },
    zone: organization?.timeZone ?? 'UTC',
    locale: localeOf(account)
  }
}

// The starts this app wrote lately, by instant, zone and locale: an appointment's start is written in each of its
// messages (booked, reminders, cancelled), and formatting a date in a zone is most of what building them costs. A
// pure function's results, so nothing to invalidate; bounded (emptied when full).
const startsSlot = appSlot<Map<string, string>>('formatted appointment starts')
const MAX_FORMATTED = 2000

const formattedStart = (deps: VarsDeps, ms: number, zone: string, locale: string) => {
  const formatted = startsSlot.ensure(deps.stores, () => new Map())
  const key = `${ms}|${zone}|${locale}`
  let text = formatted.get(key)
  if (text === undefined) {
    if (formatted.size >= MAX_FORMATTED) formatted.clear()
    text = formatLocal(ms, zone, locale)
    formatted.set(key, text)
  }
  return text
}

/** The variables of the appointment events (booked, rescheduled, cancelled, reminder). */
export const appointmentVars = async (
  context: VarsContext,
  appointment: { id: string; facility: string; patient: string; provider: string; start: number }
) => {
  const [{ patient, facility, zone, locale }, provider] = await Promise.all([
    common(context, appointment.facility, appointment.patient),
    context.account(appointment.provider)
  ])
  return {
    patient,
    facility,
    appointment: {
      start: formattedStart(context.deps, appointment.start, zone, locale),
      provider: nameOf(provider)
    },
    link: consoleLink(context.deps, `appointments/${appointment.id}`)
  }
}

/** The variables of the queue events: the ticket number and, while waiting, the position. */
export const queueVars = async (
  context: VarsContext,
  item: { id: string; facility: string; patient: string; number: number },
  position?: number
) => {
  const { patient, facility } = await common(context, item.facility, item.patient)
  return {
    patient,
    facility,
    queue: { number: item.number, ...(position !== undefined ? { position } : {}) },
    link: consoleLink(context.deps, `queue-items/${item.id}`)
  }
}

/** The variables of `record.finalized`: who and where, and a link — nothing of the record itself. */
export const recordVars = async (
  context: VarsContext,
  record: { id: string; facility: string; patient: string }
) => {
  const { patient, facility } = await common(context, record.facility, record.patient)
  return { patient, facility, link: consoleLink(context.deps, `medical-records/${record.id}`) }
}

/** An amount of `currency` as written to patients (`USD 1,250.00`; plain spaces, which every SMS alphabet has). */
export const formatMoney = (amount: number, currency: string, locale: string, decimals: number) => {
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      currencyDisplay: 'code',
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals
    })
      .format(amount)
      .replace(/[\u00a0\u202f]/g, ' ')
  } catch {
    return `${currency} ${amount.toFixed(decimals)}`
  }
}

/** The variables of `invoice.finalized`: the totals and a link. */
export const invoiceVars = async (
  context: VarsContext,
  invoice: { id: string; facility: string; total: number; balance: number; currency: string },
  patientId: string
) => {
  const { patient, facility, locale } = await common(context, invoice.facility, patientId)
  const decimals = context.deps.settings.get('billing').moneyDecimals
  return {
    patient,
    facility,
    invoice: {
      total: formatMoney(invoice.total, invoice.currency, locale, decimals),
      balance: formatMoney(invoice.balance, invoice.currency, locale, decimals),
      currency: invoice.currency
    },
    link: consoleLink(context.deps, `billing-invoices/${invoice.id}`)
  }
}

/** What a trigger or pass read already, for `queueNotification` (so it reads nothing twice). */
export const knownOf = async (context: VarsContext, facility: string, recipient: string) => {
  const [account, organization, settings] = await Promise.all([
    context.account(recipient),
    context.organization(facility),
    context.settings(facility)
  ])
  return { account, organization, settings }
}
