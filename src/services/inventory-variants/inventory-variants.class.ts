// The inventory-variants store and its class: create, patch and remove call the domain functions of
// src/inventory/variants.ts; find and get are the adapter's (scoped by the hooks).
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import { archiveVariant, createVariant, removeVariant } from '../../inventory/variants'
import type { Variant } from './inventory-variants.schema'
import type {
  InventoryVariantData,
  InventoryVariantPatch,
  InventoryVariantQuery
} from './inventory-variants.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'inventory-variants',
  // One sku per facility; lists by facility (and name).
  indexes: [{ fields: { facility: 1, sku: 1 }, unique: true }, { fields: { facility: 1, name: 1 } }]
})

const variantMethods = (app: Application) => (Base: any) =>
  class InventoryVariantService extends Base {
    async create(data: any, _params?: Params) {
      return createVariant(app, data)
    }

    async patch(id: NullableId, data: any, params: Params = {}) {
      const { archive, ...fields } = data
      let existing = params.existing ?? (await this._get(id as Id))
      const touched = Object.keys(fields).length > 0
      if (touched)
        existing = await this._patch(
          existing.id,
          { ...fields, updatedAt: Date.now() },
          { query: params.writeScope ?? {} }
        )
      if (archive !== undefined)
        existing = await archiveVariant(app, existing, archive, params.account?.id ?? null, params.writeScope)
      return existing
    }

    async remove(id: NullableId, params: Params = {}) {
      return removeVariant(app, id as string, params.writeScope)
    }
  }

/** The inventory-variants service as the app holds it: the store's adapter typed by the schemas. */
export type InventoryVariantService = StoreService<
  Stored<Variant>,
  InventoryVariantData,
  InventoryVariantPatch,
  InventoryVariantQuery
>

export const createVariantService = (app: Application): InventoryVariantService =>
  createStore<Stored<Variant>, InventoryVariantData, InventoryVariantPatch, InventoryVariantQuery>(
    app,
    getOptions(app),
    variantMethods(app)
  )
