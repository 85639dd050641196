// Inventory stocks: how much of a variant (by sku) a stockroom of the facility holds, one stock per (variant,
// stockroom, lot). A quantity changes only by a movement — PATCH { adjust: n, reason } or PATCH { $inc:
// { quantity: n } } — applied as one atomic conditional update that can never take it below zero (409 naming
// what is available), and recorded in /inventory-stock-movements. Stocks are never removed (a variant's
// archiving closes them). Members read; the inventory privilege (or superadmin) creates and moves stock.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { facilityOwned, facilityScope } from '../../billing/access'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { externalView } from '../../schema/external'
import { inventoryScope, requireInventory } from '../../inventory/access'
import { InventoryStockService } from './inventory-stocks.class'
import {
  stockDataSchema,
  stockExternalResolver,
  stockPatchSchema,
  stockQuerySchema
} from './inventory-stocks.schema'
import { inventoryStockMethods, inventoryStockPath } from './inventory-stocks.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [inventoryStockPath]: InventoryStockService
  }
}

export const inventoryStocks = (app: Application, deps: Deps) => {
  app.use(inventoryStockPath, new InventoryStockService(app, deps), {
    methods: [...inventoryStockMethods],
    events: []
  })
  app.service(inventoryStockPath).populatable = true
  const settings = deps.settings.get('inventory')

  defineAccess(app, inventoryStockPath, {
    read: (access) => facilityScope(access),
    write: (access) => inventoryScope(access, settings.privilege),
    create: (access, data) =>
      requireInventory(access, data.facility, settings.privilege, 'Managing inventory'),
    ...facilityOwned
  })

  app.service(inventoryStockPath).hooks({
    around: {
      all: [populate, authenticate('jwt'), externalView(app, inventoryStockPath, stockExternalResolver)],
      find: [validateQueryWith(stockQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(stockQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: stockDataSchema }), scopeAccess, requireSubscription, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(stockQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: stockPatchSchema })
      ]
    }
  })
}
