// Inventory stockrooms: named storage places of a facility. Members of the facility read; the inventory
// privilege (or superadmin) creates, renames and removes them (a stockroom that held stocks is kept: 409).
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
import { inventoryScope, requireInventory } from '../../inventory/access'
import { InventoryStockroomService } from './inventory-stockrooms.class'
import {
  stockroomDataSchema,
  stockroomPatchSchema,
  stockroomQuerySchema
} from './inventory-stockrooms.schema'
import { inventoryStockroomMethods, inventoryStockroomPath } from './inventory-stockrooms.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [inventoryStockroomPath]: InventoryStockroomService
  }
}

export const inventoryStockrooms = (app: Application, deps: Deps) => {
  app.use(inventoryStockroomPath, new InventoryStockroomService(app, deps), {
    methods: [...inventoryStockroomMethods],
    events: []
  })
  app.service(inventoryStockroomPath).populatable = true
  const { privilege } = deps.settings.get('inventory')

  defineAccess(app, inventoryStockroomPath, {
    read: (access) => facilityScope(access),
    write: (access) => inventoryScope(access, privilege),
    create: (access, data) => requireInventory(access, data.facility, privilege, 'Managing inventory'),
    ...facilityOwned
  })

  app.service(inventoryStockroomPath).hooks({
    around: {
      all: [populate, authenticate('jwt')],
      find: [validateQueryWith(stockroomQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(stockroomQuerySchema), scopeAccess, requireSubscription],
      create: [validateBody({ create: stockroomDataSchema }), scopeAccess, requireSubscription, setCreated],
      patch: [
        oneAtATime,
        validateQueryWith(stockroomQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: stockroomPatchSchema })
      ],
      remove: [oneAtATime, validateQueryWith(stockroomQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
