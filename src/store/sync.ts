// The embedded engine's sync modes (STORE_SYNC; what each means: src/store/engines/nedb/commit.ts), apart so that the
// configuration's schema can name them without loading the engine.
export type StoreSync = 'always' | 'batch' | 'os'
export const STORE_SYNC_MODES: StoreSync[] = ['always', 'batch', 'os']
