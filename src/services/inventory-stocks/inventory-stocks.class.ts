// The inventory-stocks store and its class: create and movements call src/inventory/movements.ts.
import { NotFound } from '@feathersjs/errors'
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { within } from '../../access/rules'
import { orNull } from '../../billing/stores'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import { invalid } from '../../schema/validators'
import { createStock, moveStock, requestedDelta } from '../../inventory/movements'
import type { Stock } from './inventory-stocks.schema'
import type { InventoryStockData, InventoryStockPatch, InventoryStockQuery } from './inventory-stocks.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'inventory-stocks',
  indexes: [
    // One stock per (variant, stockroom, lot) of a facility; `$populateStocks` reads by (facility, variant).
    { fields: { facility: 1, variant: 1, stockroom: 1, lot: 1 }, unique: true },
    { fields: { stockroom: 1 } },
    // Recovery: movements whose bookkeeping did not finish.
    { fields: { 'pending.at': 1 }, sparse: true }
  ]
})

const stockMethods = (app: Application) => (Base: any) =>
  class InventoryStockService extends Base {
    async create(data: any, _params?: Params) {
      return createStock(app, data)
    }

    // A movement (`adjust` + `reason`, or `$inc: { quantity }`), or a change of reorderLevel/expiresAt — never
    // both in one PATCH, so a refused movement changes nothing.
    async patch(id: NullableId, data: any, params: Params = {}) {
      const { adjust: _adjust, reason, ...fields } = data
      const delta = requestedDelta(data, params.operators)
      if (delta === undefined && reason !== undefined)
        throw invalid('data', [{ field: 'reason', message: 'goes with adjust (or $inc)' }])
      const stock = params.existing ?? (await this._get(id as Id))
      if (delta !== undefined) {
        const mixed = Object.keys(fields)
        if (mixed.length)
          throw invalid(
            'data',
            mixed.map((field) => ({ field, message: 'cannot be changed in the same PATCH as a movement' }))
          )
        return moveStock(
          app,
          stock.id,
          {
            delta,
            reason: reason ?? (delta > 0 ? 'stock received' : 'stock withdrawn'),
            by: params.account?.id ?? null
          },
          params.writeScope
        )
      }
      const updated = await orNull(
        this._patch(stock.id, { ...fields, updatedAt: Date.now() }, { query: within({}, params.writeScope) })
      )
      if (!updated) throw new NotFound(`No inventory stock found for id '${stock.id}'`)
      return updated
    }
  }

/** The inventory-stocks service as the app holds it: the store's adapter typed by the schemas. */
export type InventoryStockService = StoreService<
  Stored<Stock>,
  InventoryStockData,
  InventoryStockPatch,
  InventoryStockQuery
>

export const createStockService = (app: Application): InventoryStockService =>
  createStore<Stored<Stock>, InventoryStockData, InventoryStockPatch, InventoryStockQuery>(
    app,
    getOptions(app),
    stockMethods(app)
  )
