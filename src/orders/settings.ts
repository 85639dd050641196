// Order settings from config `orders` (config/default.json, ORDERS_REQUESTED_FOR_TYPES): the accepted
// `requestedForType` values of request orders (always including "patient"). Checked with the rest of the
// configuration at start-up (src/configuration.ts).
import type { Configuration } from '../declarations'

export type OrderSettings = Configuration['orders']

export const orderSettings = (settings: { get(key: 'orders'): OrderSettings }): OrderSettings =>
  settings.get('orders')
