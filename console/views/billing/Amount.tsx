// Billing amounts are kept in major units (49.5 USD) with the currency of their invoice; shown through formatMoney
// (minor units, the currency's own exponent) so every amount reads "$49.50", never "49.5 USD".
import { formatMoney, minorUnitDigits } from '../../lib/money'

/** Minor units of a major-unit amount of `currency` (49.5 USD → 4950; JPY 4900 → 4900). */
export const minorOf = (amount: number, currency: string) =>
  Math.round((Number(amount) || 0) * 10 ** minorUnitDigits(currency))

/** A major-unit amount as people read it. */
export const formatAmount = (amount: number, currency: string) =>
  formatMoney(minorOf(amount, currency), currency)

export function Amount({ value, currency, id }: { value: number; currency: string; id?: string }) {
  return (
    <span class="money" id={id}>
      {formatAmount(value, currency)}
    </span>
  )
}
