// The embedded engine's sync modes are declared with the settings (base layer), which name them in their schema.
export { STORE_SYNC_MODES, type StoreSync } from '../configuration'
