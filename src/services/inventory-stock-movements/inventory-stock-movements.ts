// The stock-movement ledger, read-only: every applied movement of a stock (delta, the quantity after it, reason,
// who, when), so the sum of a stock's movements is its quantity. Members of the facility read it; nobody writes
// it through the API. Movements still in flight (status `pending`) are never shown: clients see `status: 'applied'` only.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { MethodNotAllowed } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { validateQueryWith } from '../../schema/validators'
import { facilityOwned, facilityScope } from '../../billing/access'
import { InventoryStockMovementService } from './inventory-stock-movements.class'
import { movementQuerySchema } from './inventory-stock-movements.schema'
import { inventoryStockMovementMethods, inventoryStockMovementPath } from './inventory-stock-movements.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [inventoryStockMovementPath]: InventoryStockMovementService
  }
}

export const inventoryStockMovements = (app: Application, deps: Deps) => {
  const service = new InventoryStockMovementService(app, deps)
  // Clients cannot create movements, but the server does: webhooks may subscribe to `inventory-stock-movements.create`.
  service.eventMethods = ['create']
  app.use(inventoryStockMovementPath, service, { methods: [...inventoryStockMovementMethods], events: [] })

  defineAccess(app, inventoryStockMovementPath, {
    read: (access) => ({ ...facilityScope(access), status: 'applied' }),
    create: () => {
      throw new MethodNotAllowed('Stock movements are made with PATCH /inventory-stocks/:id')
    },
    ...facilityOwned
  })

  app.service(inventoryStockMovementPath).hooks({
    around: {
      all: [populate, authenticate('jwt')],
      find: [validateQueryWith(movementQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(movementQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
