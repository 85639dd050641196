// Money as people read it: amounts are kept in minor units (cents; yen have none), shown with
// Intl.NumberFormat in the amount's own currency. The minor-unit exponent is the currency's own
// (resolvedOptions().maximumFractionDigits: USD 2, JPY 0), so USD 4900 → "$49.00" and JPY 4900 → "¥4,900".
import { createElement } from 'preact'

/** The number of minor units in one unit of `currency` (USD 2, JPY 0, BHD 3). */
export const minorUnitDigits = (currency: string): number => {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return 2
  }
}

/** `amountInMinorUnits` of `currency` formatted for `locale` (the reader's by default). */
export const formatMoney = (amountInMinorUnits: number, currency: string, locale?: string): string => {
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency })
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2
    return format.format(amountInMinorUnits / 10 ** digits)
  } catch {
    // An unknown currency code: the amount as stored, with its code.
    return `${amountInMinorUnits} ${currency}`
  }
}

/** Minor units from what a person typed in major units ("49.5" USD → 4950); NaN when it is not a number. */
export const toMinorUnits = (typed: string, currency: string): number => {
  const value = Number(typed.replace(',', '.').trim())
  return typed.trim() === '' || !Number.isFinite(value) ? NaN : Math.round(value * 10 ** minorUnitDigits(currency))
}

/** `<Money amount={4900} currency="USD"/>` → <span class="money">$49.00</span>. */
export function Money({ amount, currency, locale }: { amount: number; currency: string; locale?: string }) {
  return createElement('span', { class: 'money' }, formatMoney(amount, currency, locale))
}
