// Order settings from config `orders` (config/default.json, ORDERS_REQUESTED_FOR_TYPES): the accepted
// `requestedForType` values of request orders. Checked once at startup so a bad deployment value fails loudly.
import type { Application } from '../declarations'

export interface OrderSettings {
  requestedForTypes: string[]
}

// The parsed settings are cached on the app under a key that is no configuration field (typed loosely by the settings bag).
export const orderSettings = (app: Application): OrderSettings => {
  const cached = app.get('orderSettings')
  if (cached) return cached
  const raw = app.get('orders') ?? {}
  const types = raw.requestedForTypes
  if (!Array.isArray(types) || types.length === 0 || types.some((v: unknown) => typeof v !== 'string' || v.length === 0 || v.length > 100) || !types.includes('patient')) {
    throw new Error('Invalid orders configuration: orders.requestedForTypes must be a non-empty array of strings including "patient"')
  }
  const settings: OrderSettings = { requestedForTypes: types }
  app.set('orderSettings', settings)
  return settings
}
