// The inventory-stockrooms service: a stockroom that ever held a stock is never removed (409).
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { orNull } from '../../billing/store-calls'
import type { CreatedFields } from '../../hooks/set-created'
import { ResourceService } from '../resource'
import type { Stockroom } from './inventory-stockrooms.schema'
import {
  inventoryStockroomPath,
  type InventoryStockroomData,
  type InventoryStockroomPatch,
  type InventoryStockroomQuery
} from './inventory-stockrooms.shared'

export const getOptions = (): StoreOptions => ({
  name: 'inventory-stockrooms',
  indexes: [{ fields: { facility: 1, name: 1 } }]
})

type StockroomParams = StoreParams<InventoryStockroomQuery>

export class InventoryStockroomService extends ResourceService<
  Stored<Stockroom>,
  InventoryStockroomData,
  InventoryStockroomPatch,
  InventoryStockroomQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, inventoryStockroomPath, getOptions())
  }

  async create(data: InventoryStockroomData & CreatedFields, params?: StockroomParams) {
    return this.write('create', null, params, () =>
      this.store._create({ ...data, stocked: false, updatedAt: data.createdAt })
    )
  }

  async patch(id: NullableId, data: InventoryStockroomPatch, params: StockroomParams = {}) {
    return this.write('patch', id, params, () =>
      this.store._patch(
        id as Id,
        { ...data, updatedAt: this.deps.clock.now() },
        { query: within({}, params.writeScope) }
      )
    )
  }

  // One conditional delete: only while no stock was ever created in it.
  async remove(id: NullableId, params: StockroomParams = {}) {
    return this.write('remove', id, params, async () => {
      const removed = await orNull(
        this.store._remove(id as Id, { query: within({ stocked: { $ne: true } }, params.writeScope) })
      )
      if (removed) return removed
      const fresh = await orNull(this.store._get(id as Id, { query: within({}, params.writeScope) }))
      if (!fresh) throw new NotFound(`No inventory stockroom found for id '${id}'`)
      throw new Conflict(`Stockroom ${fresh.id} holds or held stocks and cannot be removed`, {
        stockroom: fresh.id
      })
    })
  }
}
