// The store: builds every service's store — MongoDB when MONGODB_URL is set, otherwise the embedded NeDB engine
// persisted under DATA_DIR — and creates each service's declared indexes on both engines. This file only gathers
// what the rest of the app uses:
//   contract.ts      the one `Store` interface, the store options, stored documents, `newId`
//   store.ts         the store class (ids, error mapping, timing, journal, afterWrite) over an engine's adapter
//   errors.ts        engine and driver errors as Feathers errors
//   aggregate.ts     sums per group
//   registry.ts      the app's engine, `createStore`, readiness, health and closing
//   engines/         mongodb.ts and nedb/ (the embedded engine and its tuning of NeDB's internals)
export {
  newId,
  type AdapterOptions,
  type ByIdResult,
  type FilteredQuery,
  type GroupSums,
  type IndexSpec,
  type InternalParams,
  type Store,
  type StoreDoc,
  type StoreOptions,
  type StoreParams,
  type StoreService,
  type Stored,
  type UntypedDoc
} from './contract'
export { storeError } from './errors'
export { sumByGroup } from './aggregate'
export { EngineStore, type OperationTimer } from './store'
export { DerivedCache } from './derived'
export {
  closeStore,
  createStore,
  store,
  storeEngineCommits,
  storeHealth,
  storeReady,
  storeSyncOf,
  storeTimerSlot,
  type StoreExtension
} from './registry'
export type { Engine } from './engines/engine'
