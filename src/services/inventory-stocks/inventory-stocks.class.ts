// The inventory-stocks service: create and movements call src/inventory/movements.ts.
import { NotFound } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { orNull } from '../../billing/store-calls'
import type { CreatedFields } from '../../hooks/set-created'
import { invalid } from '../../schema/validators'
import { createStock, moveStock, requestedDelta } from '../../inventory/movements'
import { ResourceService } from '../resource'
import type { Static } from '@feathersjs/typebox'
import type { Stock, stockPatchSchema } from './inventory-stocks.schema'
import {
  inventoryStockPath,
  type InventoryStockData,
  type InventoryStockPatch,
  type InventoryStockQuery
} from './inventory-stocks.shared'

export const getOptions = (): StoreOptions => ({
  name: 'inventory-stocks',
  indexes: [
    // One stock per (variant, stockroom, lot) of a facility; `$populateStocks` reads by (facility, variant).
    { fields: { facility: 1, variant: 1, stockroom: 1, lot: 1 }, unique: true },
    { fields: { stockroom: 1 } },
    // Recovery: movements whose bookkeeping did not finish.
    { fields: { 'pending.at': 1 }, sparse: true }
  ]
})

type StockParams = StoreParams<InventoryStockQuery>
/** A PATCH body as the class receives it: a `$inc` operator was moved to `params.operators` by the app's hooks. */
type StockPatchBody = Static<typeof stockPatchSchema>

export class InventoryStockService extends ResourceService<
  Stored<Stock>,
  InventoryStockData,
  InventoryStockPatch,
  InventoryStockQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, inventoryStockPath, getOptions())
    // `$inc: { quantity: n }` in a PATCH body is a movement (src/hooks/reject-unsafe-keys.ts hands it over).
    this.bodyOperators = ['$inc']
  }

  async create(data: InventoryStockData & CreatedFields, params?: StockParams): Promise<Stored<Stock>> {
    return this.write('create', null, params, () => createStock(this.deps, data))
  }

  // A movement (`adjust` + `reason`, or `$inc: { quantity }`), or a change of reorderLevel/expiresAt — never
  // both in one PATCH, so a refused movement changes nothing.
  async patch(id: NullableId, data: InventoryStockPatch, params: StockParams = {}): Promise<Stored<Stock>> {
    return this.write('patch', id, params, async () => {
      const body = data as StockPatchBody
      const { adjust: _adjust, reason, ...fields } = body
      const delta = requestedDelta(body, params.operators)
      if (delta === undefined && reason !== undefined)
        throw invalid('data', [{ field: 'reason', message: 'goes with adjust (or $inc)' }])
      const stock: Stored<Stock> = await this.loadExisting(id as Id, params)
      if (delta !== undefined) {
        const mixed = Object.keys(fields)
        if (mixed.length)
          throw invalid(
            'data',
            mixed.map((field) => ({ field, message: 'cannot be changed in the same PATCH as a movement' }))
          )
        return moveStock(
          this.deps,
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
        this.store._patch(
          stock.id,
          { ...fields, updatedAt: this.deps.clock.now() },
          { query: within({}, params.writeScope) }
        )
      )
      if (!updated) throw new NotFound(`No inventory stock found for id '${stock.id}'`)
      return updated
    })
  }
}
