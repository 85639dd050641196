// Money arithmetic in integer minor units (cents for 2 decimals), so sums and the payment limit compare
// exactly; the API speaks major units (10.5) rounded to the configured number of decimals.

const factor = (decimals: number) => 10 ** decimals

/** Major units → integer minor units. */
export const toMinor = (value: number, decimals: number) => Math.round(value * factor(decimals))

/** Integer minor units → major units. */
export const toMajor = (minor: number, decimals: number) =>
  Number((minor / factor(decimals)).toFixed(decimals))

/** Does `value` carry at most `decimals` decimal places? */
export const hasAtMostDecimals = (value: number, decimals: number) => {
  const scaled = value * factor(decimals)
  return Math.abs(scaled - Math.round(scaled)) < 1e-6
}

/**
 * A quantity of a server-priced line (an inventory variant, a catalogue service): stock moves and services are
 * sold in whole units, so a whole number of at least 1 — a fraction such as 0.001 would price the line at 0.
 */
export const isWholeQuantity = (quantity: unknown) =>
  typeof quantity === 'number' && Number.isInteger(quantity) && quantity >= 1

/** The payable amount of an item in minor units: price × quantity, rounded half away from zero. */
export const amountMinorOf = (price: number, quantity: number, decimals: number) =>
  Math.round(toMinor(price, decimals) * quantity)

/**
 * The largest payable amount of one item, in minor units: small enough that the sums of ten thousand items
 * stay exact integers (Number.MAX_SAFE_INTEGER / 10,000; about 9 billion in major units at 2 decimals).
 */
export const maxAmountMinor = Math.floor(Number.MAX_SAFE_INTEGER / 10_000)
