// The service catalogue: a facility's billable services with their prices. Members read it; the billing
// privilege (or superadmin) manages it. Billing items of type `service` take their price from it.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { billingScope, facilityOwned, facilityScope, requireBilling } from '../../billing/access'
import { checkBillingValues } from '../../hooks/check-billing-values'
import { ServiceCatalogue } from './services.class'
import { serviceDataSchema, servicePatchSchema, serviceQuerySchema } from './services.schema'
import { serviceMethods, servicePath } from './services.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [servicePath]: ServiceCatalogue
  }
}

// Currency and `active` get their defaults.
const prepareService = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  context.data = {
    ...context.data,
    currency: context.data.currency ?? deps.settings.get('billing').currency,
    active: context.data.active ?? true,
    updatedAt: deps.clock.now()
  }
  await next()
}

const touch = (deps: Deps) => async (context: HookContext, next: NextFunction) => {
  context.data = { ...context.data, updatedAt: deps.clock.now() }
  await next()
}

export const facilityServices = (app: Application, deps: Deps) => {
  app.use(servicePath, new ServiceCatalogue(app, deps), { methods: [...serviceMethods], events: [] })
  app.service(servicePath).populatable = true

  defineAccess(app, servicePath, {
    read: (access) => facilityScope(access),
    write: (access) => billingScope(access, deps.settings.get('billing').privilege),
    // Only billing staff of the facility add services.
    create: (access, data) =>
      requireBilling(
        access,
        data.facility,
        deps.settings.get('billing').privilege,
        'Managing the service catalogue'
      ),
    ...facilityOwned
  })

  app.service(servicePath).hooks({
    around: {
      all: [populate, authenticate('jwt')],
      find: [validateQueryWith(serviceQuerySchema), scopeAccess, requireSubscription],
      get: [validateQueryWith(serviceQuerySchema), scopeAccess, requireSubscription],
      create: [
        validateBody({ create: serviceDataSchema }),
        checkBillingValues({ type: 'serviceTypes' }, ['price']),
        scopeAccess,
        requireSubscription,
        prepareService(deps),
        setCreated
      ],
      patch: [
        validateQueryWith(serviceQuerySchema),
        scopeAccess,
        requireSubscription,
        validateBody({ patch: servicePatchSchema }),
        checkBillingValues({ type: 'serviceTypes' }, ['price']),
        touch(deps)
      ],
      remove: [validateQueryWith(serviceQuerySchema), scopeAccess, requireSubscription]
    }
  })
}
