// Per-app state: what start-up builds for one app (its store engine, clients, workers, caches, registries) is kept
// on that app object, under one symbol, in typed slots each module declares for itself. Nothing is kept in a
// module-level map, so two apps built in one process (the multi-instance tests build two) never share state.
// This file imports nothing: a slot's type belongs to the module that declares it.

const STATE = Symbol.for('clinic.appState')

type Holder = { [STATE]?: Map<AppSlot<unknown>, unknown> }

const holderOf = (app: object): Map<AppSlot<unknown>, unknown> => {
  const holder = app as Holder
  return (holder[STATE] ??= new Map())
}

/** One typed piece of an app's state. */
export interface AppSlot<T> {
  readonly name: string
  /** The value, or undefined before it was set. */
  get(app: object): T | undefined
  /** The value; throws (a programming error) when start-up has not set it yet. */
  require(app: object): T
  set(app: object, value: T): T
  /** The value, created by `create` on first use. */
  ensure(app: object, create: () => T): T
}

/** Declares a slot of per-app state named `name` (the name appears in the error of a missing value). */
export const appSlot = <T>(name: string): AppSlot<T> => {
  const slot: AppSlot<T> = {
    name,
    get: (app) => holderOf(app).get(slot) as T | undefined,
    require: (app) => {
      const holder = holderOf(app)
      if (!holder.has(slot)) throw new Error(`The app's ${name} is used before start-up created it`)
      return holder.get(slot) as T
    },
    set: (app, value) => {
      holderOf(app).set(slot, value)
      return value
    },
    ensure: (app, create) => {
      const holder = holderOf(app)
      if (!holder.has(slot)) holder.set(slot, create())
      return holder.get(slot) as T
    }
  }
  return Object.freeze(slot)
}
