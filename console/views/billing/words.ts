// Billing words for people: types, methods and statuses as labels (the stored values stay as they are).
export const paymentTypes = ['payment', 'deposit', 'copay', 'discount', 'write-off']
export const paymentMethods = ['cash', 'card', 'check', 'bank-transfer', 'online', 'hmo', 'insurance']
export const encounterTypes = [
  'outpatient',
  'inpatient',
  'emergency',
  'teleconsultation',
  'home-visit',
  'day-surgery'
]
export const serviceTypes = [
  'consultation',
  'procedure',
  'laboratory',
  'imaging',
  'dental',
  'vaccination',
  'therapy',
  'other'
]

const special: Record<string, string> = {
  hmo: 'HMO',
  'write-off': 'Write-off',
  'bank-transfer': 'Bank transfer'
}
/** "home-visit" → "Home visit". */
export const label = (value: string | undefined) =>
  value ? (special[value] ?? value.charAt(0).toUpperCase() + value.slice(1).replace(/-/g, ' ')) : ''

/** A bill's or encounter's status in words. */
export const billStatus = (status: string | undefined) =>
  status === 'finalized' ? 'Finalized' : status === 'draft' ? 'Open (draft)' : label(status)

/** A payment's status in words: recorded payments can still be voided; confirmed ones are frozen. */
export const paymentStatus = (status: string | undefined) =>
  status === 'draft'
    ? 'Recorded'
    : status === 'finalized'
      ? 'Confirmed'
      : status === 'voided'
        ? 'Voided'
        : label(status)
