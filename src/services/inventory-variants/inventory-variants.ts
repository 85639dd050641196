// Inventory variants: a facility's sellable or usable item variants, one sku per facility (409 on a duplicate).
// Creating one may carry `initialStock` and `stockroom`, which creates its first stock in the same request.
// A variant that was stocked or ordered is archived (PATCH { archive: true }: hidden from lists unless
// `archived=true` is asked for, its stocks closed to movements) rather than removed; DELETE removes only a
// variant that was never stocked nor ordered (409 otherwise). `$populateStocks=true` (or
// `$populateStocks[stockroom]=<id>`) on find and get gives each variant `$stocks`, loaded with one store query
// for the whole page. Members of the facility read; the inventory privilege (or superadmin) creates, changes
// and removes.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { facilityOwned, facilityScope } from '../../billing/access'
import { oneAtATime } from '../../hooks/refuse-multi-writes'
import { checkBillingValues } from '../../hooks/check-billing-values'
import { inventoryScope, requireInventory } from '../../inventory/access'
import {
  attachStocks,
  parsePopulateStocks,
  type StockLookup,
  type StocksFilter
} from '../../inventory/variants'
import type { Stored } from '../../store'
import type { Variant } from './inventory-variants.schema'
import type { Paginated } from '@feathersjs/feathers'
import { InventoryVariantService } from './inventory-variants.class'
import { presentExternal } from '../../schema/external'
import { inventoryStockPath } from '../inventory-stocks/inventory-stocks.shared'
import { variantDataSchema, variantPatchSchema, variantQuerySchema } from './inventory-variants.schema'
import { inventoryVariantMethods, inventoryVariantPath } from './inventory-variants.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [inventoryVariantPath]: InventoryVariantService
  }
}

// The currency defaults to the billing currency (variants are priced like the service catalogue).
const prepareVariant = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  context.data = { ...context.data, currency: context.data.currency ?? deps.settings.get('billing').currency }
  await next()
}

// Lists leave archived variants out unless the query names `archived`.
const hideArchived = async (context: HookContext, next: NextFunction) => {
  const query = context.params.query ?? {}
  if (!('archived' in query)) context.params = { ...context.params, query: { ...query, archived: false } }
  await next()
}

// `$populateStocks`: taken out of the query before it is validated, applied to the result page (or document).
const populateStocks = async (context: HookContext, next: NextFunction) => {
  const { $populateStocks: raw, ...query } = (context.params.query ?? {}) as Record<string, unknown>
  const filter: StocksFilter | null = parsePopulateStocks(raw)
  if (!filter) {
    if (raw !== undefined) context.params = { ...context.params, query }
    return next()
  }
  // The stocks are matched by (facility, sku): a `$select` without them still gets them for the lookup.
  const select = Array.isArray(query.$select) ? (query.$select as string[]) : undefined
  const added = select ? ['facility', 'sku'].filter((field) => !select.includes(field)) : []
  context.params = { ...context.params, query: select ? { ...query, $select: [...select, ...added] } : query }
  await next()
  const hide = (doc: object) => {
    const copy: Record<string, unknown> = { ...doc }
    for (const field of added) delete copy[field]
    return copy
  }
  // The stocks service's own `find` is called so its hooks run.
  const stocks: StockLookup = {
    find: (stockQuery) =>
      context.app.service(inventoryStockPath).find({ query: stockQuery, paginate: false }),
    present: (stock) => presentExternal(context.app, inventoryStockPath, stock)
  }
  const result = context.result as Stored<Variant> | Stored<Variant>[] | Paginated<Stored<Variant>>
  if (context.method === 'get') {
    context.result = hide((await attachStocks([result as Stored<Variant>], filter, stocks))[0])
  } else if (Array.isArray(result)) {
    context.result = (await attachStocks(result, filter, stocks)).map(hide)
  } else {
    const page = result as Paginated<Stored<Variant>>
    context.result = { ...page, data: (await attachStocks(page.data, filter, stocks)).map(hide) }
  }
}

export const inventoryVariants = (app: Application, deps: Deps) => {
  app.use(inventoryVariantPath, new InventoryVariantService(app, deps), {
    methods: [...inventoryVariantMethods],
    events: []
  })
  app.service(inventoryVariantPath).populatable = true
  const { privilege } = deps.settings.get('inventory')

  defineAccess(app, inventoryVariantPath, {
    read: (access) => facilityScope(access),
    write: (access) => inventoryScope(access, privilege),
    create: (access, data) => requireInventory(access, data.facility, privilege, 'Managing inventory'),
    ...facilityOwned
  })

  const money = checkBillingValues({}, ['price', 'unitCost'])
  app.service(inventoryVariantPath).hooks({
    around: {
      all: [populate, authenticate('jwt')],
      find: [
        populateStocks,
        validateQueryWith(variantQuerySchema),
        hideArchived,
        scopeAccess,
        requireSubscription
      ],
      get: [populateStocks, validateQueryWith(variantQuerySchema), scopeAccess, requireSubscription],
      create: [
        validateBody({ create: variantDataSchema }),
        money,
        scopeAccess,
        requireSubscription,
        setCreated,
        prepareVariant(deps)
      ],
      patch: [
        oneAtATime,
        validateQueryWith(variantQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: variantPatchSchema }),
        money
      ],
      remove: [oneAtATime, validateQueryWith(variantQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
