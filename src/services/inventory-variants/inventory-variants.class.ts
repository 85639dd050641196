// The inventory-variants service: create, patch and remove call the domain functions of src/inventory/variants.ts;
// find and get are the store's (scoped by the hooks).
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import type { CreatedFields } from '../../hooks/set-created'
import { presentExternal } from '../../schema/external'
import { archiveVariant, createVariant, removeVariant } from '../../inventory/variants'
import { inventoryStockPath } from '../inventory-stocks/inventory-stocks.shared'
import { ResourceService } from '../resource'
import type { Variant } from './inventory-variants.schema'
import {
  inventoryVariantPath,
  type InventoryVariantData,
  type InventoryVariantPatch,
  type InventoryVariantQuery
} from './inventory-variants.shared'

export const getOptions = (): StoreOptions => ({
  name: 'inventory-variants',
  // One sku per facility; lists by facility (and name).
  indexes: [{ fields: { facility: 1, sku: 1 }, unique: true }, { fields: { facility: 1, name: 1 } }]
})

type VariantParams = StoreParams<InventoryVariantQuery>

export class InventoryVariantService extends ResourceService<
  Stored<Variant>,
  InventoryVariantData,
  InventoryVariantPatch,
  InventoryVariantQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, inventoryVariantPath, getOptions())
  }

  /** The variant, with `$stocks` holding its first stock (in the stocks' client view) when one was created. */
  async create(data: InventoryVariantData & CreatedFields, params?: VariantParams): Promise<Stored<Variant>> {
    return this.write('create', null, params, async () => {
      const { variant, stock } = await createVariant(this.deps, data)
      if (!stock) return variant
      return { ...variant, $stocks: [await presentExternal(this.app, inventoryStockPath, stock)] }
    })
  }

  async patch(
    id: NullableId,
    data: InventoryVariantPatch,
    params: VariantParams = {}
  ): Promise<Stored<Variant>> {
    return this.write('patch', id, params, async () => {
      const { archive, ...fields } = data
      let existing: Stored<Variant> = await this.loadExisting(id as Id, params)
      const touched = Object.keys(fields).length > 0
      if (touched)
        existing = await this.store._patch(
          existing.id,
          { ...fields, updatedAt: this.deps.clock.now() },
          { query: within({}, params.writeScope) }
        )
      if (archive !== undefined)
        existing = await archiveVariant(
          this.deps,
          existing,
          archive,
          params.account?.id ?? null,
          params.writeScope
        )
      return existing
    })
  }

  async remove(id: NullableId, params: VariantParams = {}): Promise<Stored<Variant>> {
    return this.write('remove', id, params, () => removeVariant(this.deps, id as string, params.writeScope))
  }
}
