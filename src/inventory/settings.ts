// Inventory and order settings from config `inventory` and `orders` (config/default.json, INVENTORY_* and
// ORDERS_* env vars): the privilege that manages stock, the crash-recovery timings of stock movements, and the
// accepted `requestedForType` values of orders. Checked once at startup so a bad deployment value fails loudly.
import type { Application } from '../declarations'

export interface InventorySettings {
  privilege: string
  staleAfterMs: number
  recoveryIntervalMs: number
}

export interface OrderSettings {
  requestedForTypes: string[]
}

// `as any` below: the parsed settings are cached on the app under a key that is no configuration field.
export const inventorySettings = (app: Application): InventorySettings => {
  const cached = app.get('inventorySettings' as any)
  if (cached) return cached
  const raw = app.get('inventory') ?? {}
  const problems: string[] = []
  if (typeof raw.privilege !== 'string' || !raw.privilege) problems.push('inventory.privilege must be a privilege name')
  for (const key of ['staleAfterMs', 'recoveryIntervalMs']) {
    if (typeof raw[key] !== 'number' || raw[key] < 0) problems.push(`inventory.${key} must be a number of milliseconds`)
  }
  if (problems.length) throw new Error(`Invalid inventory configuration: ${problems.join('; ')}`)
  const settings: InventorySettings = { privilege: raw.privilege, staleAfterMs: raw.staleAfterMs, recoveryIntervalMs: raw.recoveryIntervalMs }
  app.set('inventorySettings' as any, settings)
  return settings
}

// `as any` below: as in inventorySettings.
export const orderSettings = (app: Application): OrderSettings => {
  const cached = app.get('orderSettings' as any)
  if (cached) return cached
  const raw = app.get('orders') ?? {}
  const types = raw.requestedForTypes
  if (!Array.isArray(types) || types.length === 0 || types.some((v: unknown) => typeof v !== 'string' || v.length === 0 || v.length > 100) || !types.includes('patient')) {
    throw new Error('Invalid orders configuration: orders.requestedForTypes must be a non-empty array of strings including "patient"')
  }
  const settings: OrderSettings = { requestedForTypes: types }
  app.set('orderSettings' as any, settings)
  return settings
}
