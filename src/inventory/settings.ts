// Inventory settings from config `inventory` (config/default.json, INVENTORY_* env vars): the privilege that
// manages stock and the crash-recovery timings of stock movements. Checked with the rest of the configuration at
// start-up (src/configuration.ts).
import type { Configuration } from '../declarations'

export type InventorySettings = Configuration['inventory']

export const inventorySettings = (settings: {
  get(key: 'inventory'): InventorySettings
}): InventorySettings => settings.get('inventory')
