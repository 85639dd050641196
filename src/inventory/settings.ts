// Inventory settings from config `inventory` (config/default.json, INVENTORY_* env vars): the privilege that
// manages stock and the crash-recovery timings of stock movements. Checked once at startup so a bad deployment
// value fails loudly.
import type { Application } from '../declarations'

export interface InventorySettings {
  privilege: string
  staleAfterMs: number
  recoveryIntervalMs: number
}

// The parsed settings are cached on the app under a key that is no configuration field (typed loosely by the settings bag).
export const inventorySettings = (app: Application): InventorySettings => {
  const cached = app.get('inventorySettings')
  if (cached) return cached
  const raw = app.get('inventory') ?? {}
  const problems: string[] = []
  if (typeof raw.privilege !== 'string' || !raw.privilege) problems.push('inventory.privilege must be a privilege name')
  for (const key of ['staleAfterMs', 'recoveryIntervalMs']) {
    if (typeof raw[key] !== 'number' || raw[key] < 0) problems.push(`inventory.${key} must be a number of milliseconds`)
  }
  if (problems.length) throw new Error(`Invalid inventory configuration: ${problems.join('; ')}`)
  const settings: InventorySettings = { privilege: raw.privilege, staleAfterMs: raw.staleAfterMs, recoveryIntervalMs: raw.recoveryIntervalMs }
  app.set('inventorySettings', settings)
  return settings
}
