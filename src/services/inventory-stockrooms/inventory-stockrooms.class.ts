// The inventory-stockrooms store and its class: a stockroom that ever held a stock is never removed (409).
import { Conflict, NotFound } from '@feathersjs/errors'
import type { NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { within } from '../../access/rules'
import { orNull } from '../../billing/stores'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import type { Stockroom } from './inventory-stockrooms.schema'
import type {
  InventoryStockroomData,
  InventoryStockroomPatch,
  InventoryStockroomQuery
} from './inventory-stockrooms.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'inventory-stockrooms',
  indexes: [{ fields: { facility: 1, name: 1 } }]
})

const stockroomMethods = (Base: any) =>
  class InventoryStockroomService extends Base {
    async create(data: any, _params?: Params) {
      return this._create({ ...data, stocked: false, updatedAt: data.createdAt })
    }

    async patch(id: NullableId, data: any, params: Params = {}) {
      return this._patch(id, { ...data, updatedAt: Date.now() }, { query: within({}, params.writeScope) })
    }

    // One conditional delete: only while no stock was ever created in it.
    async remove(id: NullableId, params: Params = {}) {
      const removed = await orNull(
        this._remove(id, { query: within({ stocked: { $ne: true } }, params.writeScope) })
      )
      if (removed) return removed
      const fresh: any = await orNull(this._get(id, { query: within({}, params.writeScope) }))
      if (!fresh) throw new NotFound(`No inventory stockroom found for id '${id}'`)
      throw new Conflict(`Stockroom ${fresh.id} holds or held stocks and cannot be removed`, {
        stockroom: fresh.id
      })
    }
  }

/** The inventory-stockrooms service as the app holds it: the store's adapter typed by the schemas. */
export type InventoryStockroomService = StoreService<
  Stored<Stockroom>,
  InventoryStockroomData,
  InventoryStockroomPatch,
  InventoryStockroomQuery
>

export const createStockroomService = (app: Application): InventoryStockroomService =>
  createStore<Stored<Stockroom>, InventoryStockroomData, InventoryStockroomPatch, InventoryStockroomQuery>(
    app,
    getOptions(app),
    stockroomMethods
  )
