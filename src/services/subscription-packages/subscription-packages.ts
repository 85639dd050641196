// Subscription packages (GET /subscription/packages): what a facility may subscribe to — price per interval,
// trial, the facility kinds it suits (`types`) and its products (features and limits). Everyone reads them,
// signed in or not (`?type=facility&types=clinic` filters: a package matches when its `types` holds the value);
// application admins create and change them (others: 403). Packages are deactivated (`active: false`), never
// removed. The packages in config `subscriptions.packages` are created on first start.
import { authenticate } from '@feathersjs/authentication'
import { populate } from '../../hooks/populate'
import { Forbidden } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess } from '../../access/rules'
import { scopeAccess } from '../../hooks/scope-access'
import { setCreated } from '../../hooks/set-created'
import { validateBody, validateQueryWith } from '../../schema/validators'
import { PackageService } from './subscription-packages.class'
import { packageDataSchema, packagePatchSchema, packageQuerySchema } from './subscription-packages.schema'
import { subscriptionPackageMethods, subscriptionPackagePath } from './subscription-packages.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [subscriptionPackagePath]: PackageService
  }
}

export const subscriptionPackages = (app: Application, deps: Deps) => {
  app.use(subscriptionPackagePath, new PackageService(app, deps), {
    methods: [...subscriptionPackageMethods],
    events: []
  })

  defineAccess(app, subscriptionPackagePath, {
    read: () => null,
    write: (access) => (access.admin ? null : { id: { $in: [] } }),
    create: (access) => {
      if (!access.admin) throw new Forbidden('Only application admins manage subscription packages')
    }
  })

  app.service(subscriptionPackagePath).hooks({
    around: {
      all: [populate],
      // Public: no token needed to read the catalogue.
      find: [validateQueryWith(packageQuerySchema)],
      get: [validateQueryWith(packageQuerySchema)],
      create: [authenticate('jwt'), validateBody({ create: packageDataSchema }), scopeAccess, setCreated],
      patch: [
        authenticate('jwt'),
        validateQueryWith(packageQuerySchema),
        scopeAccess,
        validateBody({ patch: packagePatchSchema })
      ]
    }
  })
}
