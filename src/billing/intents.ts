// Payment intents: a payer pays an amount through a gateway (src/providers/gateways/). The rules:
// - `gatewayType` is `<gateway>-<method>`: an unknown gateway or method is a 400 naming it, a known gateway
//   this server does not offer (GATEWAYS) a 400 saying so;
// - the server prices the items: an inventory-variant sku from the facility's variant, a service id from the
//   facility's catalogue, a custom item from its `amountPerItem` (a client price on the first two is a 400 —
//   the schema has no such field); every priced item must be in the intent's currency (400 naming the item);
//   a server-priced item's quantity is a whole number ≥ 1 (400 naming `items.<n>.quantity`);
// - an intent naming an invoice is in the invoice's currency (400 naming `currency`): a payment is recorded in
//   the currency of what it pays; checked again at capture (409 before money moves);
// - netAmount = Σ quantity × unit price (what the payer pays); every line comes to more than 0 once rounded to
//   the currency's decimals (400 naming the item), each line and the total within the exact money range (else a
//   400 naming the item or `items`); receivables = { gross: netAmount, fees: the
//   configured fee of the gateway and method (percent of gross + fixed, at most gross), net: gross − fees };
// - return/cancel URLs are http(s) on an allowed origin (GATEWAY_RETURN_ORIGINS), else a 400 naming the field;
// - states: created → approved → captured; created → cancelled (payer cancelled, or expired after
//   GATEWAY_INTENT_EXPIRES_MS); approved → failed (capture declined). Capturing anything not approved is a 409;
// - a capture takes the intent from approved to `capturing` in one conditional write, so concurrent captures
//   capture once; with an invoice, the payments are recorded (reserving the items' balances: never beyond an
//   item's balance) before the gateway is asked, and voided again if the capture does not happen.
import crypto from 'node:crypto'
import { BadGateway, BadRequest, Conflict, NotFound } from '@feathersjs/errors'
import type { Deps } from '../deps'
import type { GroupSums, Stored } from '../store'
import { within } from '../access/rules'
import { GatewayUnavailable, knownGateways, type GatewaySettings } from '../providers/gateways'
import type { Intent } from '../services/billing-payment-intents/billing-payment-intents.schema'
import type { Item } from '../services/billing-items/billing-items.schema'
import { hasAtMostDecimals, isWholeQuantity, maxAmountMinor, toMajor, toMinor } from '../schema/money'
import { recordPayment, type PaymentInput } from './payments'
import { orNull } from './store-calls'
import { voidPayment } from './void'

export const intentPath = 'billing-payment-intents'

/** How a capture records and voids the billing payments of an invoice (the billing domain's rules). */
export interface InvoiceLedger {
  /** Records a payment on `item`, reserving its balance. */
  record(item: Stored<Item>, input: PaymentInput): Promise<{ id: string }>
  /** Voids a recorded payment. */
  void(paymentId: string, by: string | null, reason: string): Promise<unknown>
}

/** The ledger over the billing domain's payments and voids. */
export const invoiceLedger = (deps: Deps): InvoiceLedger => ({
  record: (item, input) => recordPayment(deps, item, input),
  void: (paymentId, by, reason) => voidPayment(deps, paymentId, by, reason)
})

type StoredIntent = Stored<Intent>

const badField = (field: string, message: string) =>
  new BadRequest(`Invalid data: '${field}' ${message}`, { errors: [{ field, message }] })

/** `<gateway>-<method>` → its parts, or a 400 naming what is unknown or not configured. */
export const parseGatewayType = (settings: GatewaySettings, gatewayType: string) => {
  const dash = gatewayType.indexOf('-')
  const gateway = dash < 0 ? gatewayType : gatewayType.slice(0, dash)
  const method = dash < 0 ? '' : gatewayType.slice(dash + 1)
  // Own keys only: a name such as `constructor` or `toString` is an unknown gateway, not an inherited member.
  const methods = Object.hasOwn(knownGateways, gateway) ? knownGateways[gateway] : undefined
  if (!methods)
    throw badField(
      'gatewayType',
      `names an unknown gateway '${gateway}' (known: ${Object.keys(knownGateways).join(', ')})`
    )
  if (!methods.includes(method))
    throw badField(
      'gatewayType',
      `names an unknown method '${method}' of gateway '${gateway}' (known: ${methods.join(', ')})`
    )
  if (!settings.enabled.includes(gateway))
    throw badField(
      'gatewayType',
      `names gateway '${gateway}', which is not configured on this server (GATEWAYS: ${settings.enabled.join(', ')})`
    )
  return { gateway, method }
}

const isLoopbackHttp = (url: URL) =>
  url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1')

/** A return/cancel URL: http(s), on an allowed origin; anything else would be an open redirect (400). */
export const checkReturnURL = (settings: GatewaySettings, origin: string, field: string, value: string) => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw badField(field, 'must be an absolute http(s) URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badField(field, 'must be an absolute http(s) URL')
  const allowed = settings.returnOrigins.length
    ? settings.returnOrigins.includes(url.origin)
    : url.origin === origin || isLoopbackHttp(url)
  if (!allowed)
    throw badField(field, `has origin ${url.origin}, which is not on the allow-list (GATEWAY_RETURN_ORIGINS)`)
  return url.toString()
}

export interface IntentItemInput {
  type?: 'inventory-variant' | 'service'
  ref?: string
  name?: string
  amountPerItem?: number
  quantity: number
}

/** Each item with its server-side unit price (minor units) and name; a 400 naming the item otherwise. */
const priceItems = async (
  deps: Deps,
  items: IntentItemInput[],
  currency: string,
  facility: string | null,
  decimals: number
) => {
  const priced = []
  for (const [index, item] of items.entries()) {
    const field = `items.${index}`
    let unitMinor: number
    let name: string
    if (item.type === 'inventory-variant' || item.type === 'service') {
      if (!isWholeQuantity(item.quantity))
        throw badField(
          `${field}.quantity`,
          `must be a whole number of at least 1 for ${item.type} items (${item.type === 'service' ? 'services' : 'stock'} are sold in whole units)`
        )
      if (!facility) throw badField(field, `of type ${item.type} needs the intent's facility`)
      let doc: { price?: unknown; currency?: string; name: string }
      if (item.type === 'inventory-variant') {
        const [variant] = await deps.stores.variants._find({
          query: { facility, sku: item.ref },
          paginate: false
        })
        if (!variant || variant.archived)
          throw badField(field, `names no inventory variant with sku '${item.ref}' in the facility`)
        doc = variant
      } else {
        const service = await orNull(deps.stores.services._get(item.ref as string))
        if (!service || service.facility !== facility || service.active === false)
          throw badField(field, `names no service '${item.ref}' of the facility`)
        doc = service
      }
      if (typeof doc.price !== 'number') throw badField(field, `has no price ('${item.ref}' is not priced)`)
      if (doc.currency !== currency)
        throw badField(field, `is priced in ${doc.currency}, not in the intent's currency ${currency}`)
      unitMinor = toMinor(doc.price, decimals)
      name = doc.name
    } else {
      if (!hasAtMostDecimals(item.amountPerItem as number, decimals))
        throw badField(`${field}.amountPerItem`, `has more than ${decimals} decimals`)
      unitMinor = toMinor(item.amountPerItem as number, decimals)
      name = item.name as string
    }
    const amountMinor = Math.round(unitMinor * item.quantity)
    // Money stays exact: one line at most what one billing item may be (about 9 billion at 2 decimals).
    if (amountMinor > maxAmountMinor)
      throw badField(
        `${field}.quantity`,
        `makes quantity × unit price larger than ${toMajor(maxAmountMinor, decimals)}`
      )
    // A line that costs nothing once rounded (0.001 × 2.25, or a price of 0) is no part of a payment.
    if (amountMinor <= 0)
      throw badField(
        field,
        `costs 0 (quantity × unit price rounds to 0 at ${decimals} decimals): every line must come to at least ${toMajor(1, decimals)}`
      )
    priced.push({
      ...(item.type ? { type: item.type, ref: item.ref } : {}),
      name,
      quantity: item.quantity,
      amountPerItem: toMajor(unitMinor, decimals),
      amount: toMajor(amountMinor, decimals),
      amountMinor
    })
  }
  return priced
}

/** The fee of `gatewayType` on `grossMinor`: percent of gross plus the fixed part, never above gross. */
export const feeMinorOf = (
  settings: GatewaySettings,
  gatewayType: string,
  grossMinor: number,
  decimals: number
) => {
  const fee = settings.fees[gatewayType]
  if (!fee || grossMinor === 0) return 0
  return Math.min(grossMinor, Math.round((grossMinor * fee.percent) / 100) + toMinor(fee.fixed, decimals))
}

export interface IntentInput {
  gatewayType: string
  currency: string
  items: IntentItemInput[]
  gatewayReturnURL?: string
  gatewayCancelURL?: string
  facility?: string
  invoice?: string
  createdAt: number
  createdBy: string | null
}

/** An intent paying an invoice is in the invoice's currency: a 400 naming `currency` otherwise. */
const checkInvoiceCurrency = async (deps: Deps, invoiceId: string, currency: string) => {
  const invoice = await orNull(deps.stores.invoices._get(invoiceId))
  if (!invoice || invoice.deleting) throw new NotFound(`No billing invoice found for id '${invoiceId}'`)
  if (invoice.currency !== currency)
    throw badField(
      'currency',
      `is ${currency}, but invoice ${invoiceId} is in ${invoice.currency}: an intent paying an invoice must be in the invoice's currency`
    )
}

/**
 * Creates an intent. Steps:
 * 1. gateway and method known and configured; return/cancel URLs allowed; with an invoice, the invoice's
 *    currency (400s);
 * 2. price the items on the server; netAmount and receivables (fees from the schedule);
 * 3. store the intent as `created` (with a random checkout secret), then create the gateway order and store
 *    its id and approval URL (a gateway failure removes the intent again: 502).
 */
export const createIntent = async (deps: Deps, data: IntentInput, origin: string) => {
  const settings = deps.providers.gatewaySettings()
  const { gateway, method } = parseGatewayType(settings, data.gatewayType)
  const returnURL = data.gatewayReturnURL
    ? checkReturnURL(settings, origin, 'gatewayReturnURL', data.gatewayReturnURL)
    : settings.defaultReturnURL || `${origin}/gateways/return`
  const cancelURL = data.gatewayCancelURL
    ? checkReturnURL(settings, origin, 'gatewayCancelURL', data.gatewayCancelURL)
    : settings.defaultCancelURL || `${origin}/gateways/cancel`
  if (data.invoice !== undefined) await checkInvoiceCurrency(deps, data.invoice, data.currency)
  const decimals = deps.settings.get('billing').moneyDecimals
  const facility = data.facility ?? null
  const items = await priceItems(deps, data.items, data.currency, facility, decimals)
  // Every line costs more than 0, so the total does too (gateways refuse a zero order); past the exact range: 400.
  const grossMinor = items.reduce((sum, item) => sum + item.amountMinor, 0)
  if (grossMinor > maxAmountMinor)
    throw badField('items', `add up to more than ${toMajor(maxAmountMinor, decimals)}`)
  const feesMinor = feeMinorOf(settings, data.gatewayType, grossMinor, decimals)
  const now = data.createdAt
  const checkoutSecret = crypto.randomBytes(18).toString('base64url')
  const intent = await deps.stores.intents._create({
    gatewayType: data.gatewayType,
    gateway,
    method,
    currency: data.currency,
    items: items.map(({ amountMinor: _minor, ...item }) => item),
    netAmount: toMajor(grossMinor, decimals),
    receivables: {
      gross: toMajor(grossMinor, decimals),
      fees: toMajor(feesMinor, decimals),
      net: toMajor(grossMinor - feesMinor, decimals)
    },
    // Minor units for exact sums (analytics).
    amounts: { net: grossMinor, gross: grossMinor, fees: feesMinor, receivable: grossMinor - feesMinor },
    facility,
    invoice: data.invoice ?? null,
    account: data.createdBy,
    gatewayReturnURL: returnURL,
    gatewayCancelURL: cancelURL,
    status: 'created',
    statusHistory: [{ status: 'created', at: now }],
    expiresAt: now + settings.expireAfterMs,
    checkoutSecret,
    createdAt: now,
    createdBy: data.createdBy,
    updatedAt: now
  })
  try {
    const order = await deps.providers.gateway(gateway).createOrder({
      intent: intent.id,
      currency: data.currency,
      amount: toMajor(grossMinor, decimals).toFixed(decimals),
      returnURL,
      cancelURL,
      origin,
      checkoutSecret
    })
    return await deps.stores.intents._patch(intent.id, {
      gatewayOrderId: order.orderId,
      checkout: { approvalURL: order.approvalURL }
    })
  } catch (error) {
    await deps.stores.intents._remove(intent.id)
    if (error instanceof GatewayUnavailable) {
      deps.logger.warn(`Payment gateway ${gateway} unavailable: ${error.message}`)
      throw new BadGateway(`The payment gateway ${gateway} is unavailable; no intent was created`)
    }
    throw error
  }
}

/** Moves an intent between states in one conditional write; `null` when it was no longer in `from`. */
const move = async (
  deps: Deps,
  id: string,
  from: string,
  to: string,
  extra: Record<string, unknown> = {},
  scope?: Record<string, unknown>
) => {
  const now = deps.clock.now()
  return orNull(
    deps.stores.intents._patch(
      id,
      {
        $set: { status: to, [`${to}At`]: now, updatedAt: now, ...extra },
        $push: { statusHistory: { status: to, at: now } }
      },
      { query: within({ status: from }, scope) }
    )
  )
}

/** A created intent past its expiry is cancelled (on first touch); resolves to the current document. */
const expireIfDue = async (deps: Deps, intent: StoredIntent): Promise<StoredIntent> => {
  if (intent.status !== 'created' || deps.clock.now() < intent.expiresAt) return intent
  const expired = await move(deps, intent.id, 'created', 'cancelled', { cancelReason: 'expired' })
  if (expired) await deps.announce(intentPath, 'patched', expired)
  return expired ?? (await deps.stores.intents._get(intent.id))
}

/** The sandbox approval page's buttons: created → approved or cancelled (the secret of its URL required). */
export const answerCheckout = async (
  deps: Deps,
  id: string,
  secret: string,
  answer: 'approve' | 'cancel'
) => {
  const found = await orNull(deps.stores.intents._get(id))
  const given = Buffer.from(String(secret))
  const expected = Buffer.from(String(found?.checkoutSecret ?? ''))
  if (
    !found ||
    found.gateway !== 'sandbox' ||
    given.length !== expected.length ||
    !crypto.timingSafeEqual(given, expected)
  )
    throw new NotFound('No checkout found')
  const intent = await expireIfDue(deps, found)
  if (intent.status !== 'created') return { intent, moved: false }
  const moved = await move(
    deps,
    intent.id,
    'created',
    answer === 'approve' ? 'approved' : 'cancelled',
    answer === 'cancel' ? { cancelReason: 'payer' } : {}
  )
  // A change outside a service call: announced as the service would (realtime and webhooks).
  if (moved) await deps.announce(intentPath, 'patched', moved)
  return { intent: moved ?? (await deps.stores.intents._get(id)), moved: Boolean(moved) }
}

export const loadCheckout = async (deps: Deps, id: string, secret: string) => {
  const found = await orNull(deps.stores.intents._get(id))
  if (!found || found.gateway !== 'sandbox' || found.checkoutSecret !== secret)
    throw new NotFound('No checkout found')
  return expireIfDue(deps, found)
}

const notCapturable = (intent: Pick<Intent, 'id' | 'status'>) =>
  new Conflict(
    `Payment intent ${intent.id} is ${intent.status} and cannot be captured (only an approved intent can)`,
    { intent: intent.id, status: intent.status }
  )

/**
 * The invoice's items with balance, in order, taking `amountMinor` from their balances; 409 when it does not fit,
 * or when the invoice or one of its items is in another currency than the intent (an intent written before that
 * rule, or by another writer: its amount would be recorded as a payment in the wrong currency).
 */
/** (A status outside the item schema's list: an item written by another writer or an older version.) */
const isVoided = (status: string) => status === 'voided'

const shares = async (deps: Deps, intent: StoredIntent, amountMinor: number, decimals: number) => {
  const invoice = await orNull(deps.stores.invoices._get(intent.invoice as string))
  const items = await deps.stores.items._find({ query: { invoice: intent.invoice }, paginate: false })
  const open = items
    .filter((item) => !item.deleting && !isVoided(item.status))
    .sort((a, b) => a.createdAt - b.createdAt)
  const foreign =
    invoice?.currency !== undefined && invoice.currency !== intent.currency
      ? invoice.currency
      : open.find((item) => item.currency !== intent.currency)?.currency
  if (foreign !== undefined) {
    throw new Conflict(
      `Payment intent ${intent.id} is in ${intent.currency} but invoice ${intent.invoice} is in ${foreign}: nothing was captured`,
      { intent: intent.id, invoice: intent.invoice, currency: intent.currency, invoiceCurrency: foreign }
    )
  }
  const balance = open.reduce((sum, item) => sum + Math.max(0, item.amountMinor - (item.reserved ?? 0)), 0)
  if (balance < amountMinor) {
    throw new Conflict(
      `Capturing ${toMajor(amountMinor, decimals)} would overpay invoice ${intent.invoice}: its remaining balance is ${toMajor(balance, decimals)}`,
      { intent: intent.id, invoice: intent.invoice, remainingBalance: toMajor(balance, decimals) }
    )
  }
  const result: { item: Stored<Item>; amountMinor: number }[] = []
  let left = amountMinor
  for (const item of open) {
    const room = Math.max(0, item.amountMinor - (item.reserved ?? 0))
    const take = Math.min(room, left)
    if (take > 0) result.push({ item, amountMinor: take })
    left -= take
    if (left === 0) break
  }
  return result
}

/**
 * Captures an approved intent. Steps:
 * 0. an intent of a gateway no longer in GATEWAYS: 409 (a sandbox approval is never money);
 * 1. created intents: expire when due; ask the gateway whether the payer approved (created → approved) or the
 *    gateway voided the order (created → cancelled);
 * 2. approved → capturing in one conditional write (anything else: 409 naming the intent and its state);
 * 3. with an invoice: record its payments (reserving the items' balances; a balance too small, or an invoice
 *    in another currency than the intent: back to approved, 409 — before money moves);
 * 4. capture at the gateway: captured → keep the payments; declined → void them, `failed`; gateway down →
 *    void them, back to approved, 502.
 */
export const captureIntent = async (
  deps: Deps,
  ledger: InvoiceLedger,
  existing: StoredIntent,
  by: string | null,
  scope?: Record<string, unknown>
) => {
  let intent = await expireIfDue(deps, existing)
  // An intent of a gateway this server no longer offers (e.g. approved on the sandbox before production) is never captured.
  const enabled = deps.providers.gatewaySettings().enabled
  if (!enabled.includes(intent.gateway)) {
    throw new Conflict(
      `Payment intent ${intent.id} was made through gateway '${intent.gateway}', which is not configured on this server (GATEWAYS: ${enabled.join(', ') || 'none'}); it cannot be captured`,
      {
        intent: intent.id,
        status: intent.status,
        reason: 'gateway-not-configured'
      }
    )
  }
  const gateway = deps.providers.gateway(intent.gateway)
  if (intent.status === 'created' && intent.gatewayOrderId) {
    const seen = await gateway.orderStatus(intent.gatewayOrderId).catch(() => null)
    if (seen === 'approved')
      intent = (await move(deps, intent.id, 'created', 'approved', {}, scope)) ?? intent
    if (seen === 'cancelled') {
      // The gateway voided the order (e.g. the payer abandoned it there): the intent follows.
      const cancelled = await move(
        deps,
        intent.id,
        'created',
        'cancelled',
        { cancelReason: 'gateway' },
        scope
      )
      if (cancelled) await deps.announce(intentPath, 'patched', cancelled)
      intent = cancelled ?? intent
    }
  }
  if (intent.status !== 'approved') throw notCapturable(intent)
  const capturing = await move(deps, intent.id, 'approved', 'capturing', { capturingBy: by }, scope)
  if (!capturing) throw notCapturable(await deps.stores.intents._get(intent.id))
  const decimals = deps.settings.get('billing').moneyDecimals
  const payments: string[] = []
  const release = async (reason: string) => {
    for (const payment of payments) await ledger.void(payment, by, reason)
  }
  try {
    if (intent.invoice) {
      for (const share of await shares(deps, intent, intent.amounts.net, decimals)) {
        const now = deps.clock.now()
        const payment = await ledger.record(share.item, {
          type: 'payment',
          paymentMethod: intent.method === 'card' ? 'card' : 'online',
          amount: toMajor(share.amountMinor, decimals),
          reference: `payment intent ${intent.id}`,
          createdAt: now,
          createdBy: by
        })
        payments.push(payment.id)
      }
    }
  } catch (error) {
    await release('the payment intent could not be captured')
    await move(deps, intent.id, 'capturing', 'approved')
    throw error
  }
  let outcome: Awaited<ReturnType<typeof gateway.capture>>
  try {
    outcome = await gateway.capture(intent.gatewayOrderId as string, {
      currency: intent.currency,
      amount: toMajor(intent.amounts.net, decimals).toFixed(decimals)
    })
  } catch (error) {
    await release('the payment gateway was unavailable')
    await move(deps, intent.id, 'capturing', 'approved')
    if (error instanceof GatewayUnavailable) {
      deps.logger.warn(`Payment gateway ${intent.gateway} unavailable at capture: ${error.message}`)
      throw new BadGateway(
        `The payment gateway ${intent.gateway} is unavailable; nothing was captured, try again`
      )
    }
    throw error
  }
  if (outcome.status === 'failed') {
    await release('the capture was declined')
    return (
      (await move(deps, intent.id, 'capturing', 'failed', { failureReason: outcome.reason })) ??
      deps.stores.intents._get(intent.id)
    )
  }
  return (
    (await move(deps, intent.id, 'capturing', 'captured', { payments })) ??
    deps.stores.intents._get(intent.id)
  )
}

export const analyticsTypes = ['net-amount-total', 'receivables-total'] as const
export type AnalyticsType = (typeof analyticsTypes)[number]

/**
 * `$analytics` over the intents a find selects (same filters, same access scope): sums computed in the store
 * (src/store sumByGroup) per currency, in exact minor units, answered in major units. Steps:
 * 1. group the selected intents by currency, summing the minor-unit amounts and counting them;
 * 2. per currency: net-amount-total → value = Σ netAmount; receivables-total → value = { gross, fees, net };
 * 3. the answer lists every currency in `currencies`; when all selected intents share one currency (or none
 *    is selected) `value`, `currency` and `count` are also given at the top.
 */
export const intentAnalytics = async (
  deps: Deps,
  /** Sums the amounts of the intents `query` selects (in the store, within the caller's scope), by currency. */
  sumByCurrency: (query: Record<string, unknown>, sums: Record<string, string>) => Promise<GroupSums[]>,
  params: { query?: Record<string, unknown> },
  type: AnalyticsType
) => {
  const decimals = deps.settings.get('billing').moneyDecimals
  const { $limit: _limit, $skip: _skip, $sort: _sort, $select: _select, ...query } = params.query ?? {}
  const rows = await sumByCurrency(query, {
    net: 'amounts.net',
    gross: 'amounts.gross',
    fees: 'amounts.fees',
    receivable: 'amounts.receivable'
  })
  const valueOf = (sums: Record<string, number>) =>
    type === 'net-amount-total'
      ? toMajor(sums.net, decimals)
      : {
          gross: toMajor(sums.gross, decimals),
          fees: toMajor(sums.fees, decimals),
          net: toMajor(sums.receivable, decimals)
        }
  const currencies = rows.map((row) => ({
    currency: row.group as string,
    value: valueOf(row.sums),
    count: row.count
  }))
  const count = currencies.reduce((sum, row) => sum + row.count, 0)
  if (currencies.length === 0) {
    return {
      type,
      value: valueOf({ net: 0, gross: 0, fees: 0, receivable: 0 }),
      currency: typeof query.currency === 'string' ? query.currency : deps.settings.get('billing').currency,
      count: 0,
      currencies
    }
  }
  if (currencies.length === 1) return { type, ...currencies[0], currencies }
  return { type, count, currencies }
}

/**
 * Finishes captures interrupted by a crash (intents left `capturing` since before `before`). Steps per intent:
 * 1. ask the gateway: an order it reports captured → `captured`, with the intent's recorded payments;
 * 2. otherwise (not captured, or a gateway that keeps no state: the sandbox) → the payments recorded for the
 *    capture are voided and the intent is `approved` again, to be captured anew (PayPal answers a repeated
 *    capture of the same order with its first result, so money is not taken twice).
 * A gateway that cannot be asked leaves the intent for the next pass.
 */
export const recoverCaptures = async (deps: Deps, ledger: InvoiceLedger, before: number) => {
  const stuck = await deps.stores.intents._find({
    query: { status: 'capturing', capturingAt: { $lt: before } },
    paginate: false
  })
  let finished = 0
  for (const intent of stuck) {
    let seen: string | null
    try {
      seen = await deps.providers.gateway(intent.gateway).orderStatus(intent.gatewayOrderId as string)
    } catch {
      continue
    }
    const recorded = (
      await deps.stores.payments._find({
        query: { reference: `payment intent ${intent.id}` },
        paginate: false
      })
    ).filter((payment) => payment.status !== 'voided')
    if (seen === 'captured') {
      if (
        await move(deps, intent.id, 'capturing', 'captured', {
          payments: recorded.map((payment) => payment.id)
        })
      )
        finished++
      continue
    }
    for (const payment of recorded)
      await ledger.void(payment.id, null, 'the capture was interrupted and is undone')
    const back = await move(deps, intent.id, 'capturing', 'approved')
    if (back) {
      await deps.announce(intentPath, 'patched', back)
      finished++
    }
  }
  if (finished) deps.logger.info(`Payment intents: ${finished} interrupted capture(s) finished`)
  return finished
}
