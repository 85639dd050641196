// The subscriptions store and its class: create and patch call the rules in src/subscriptions/lifecycle.ts.
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService } from '../../store'
import type { SubscriptionData, SubscriptionPatch, SubscriptionQuery } from './subscriptions.shared'
import { invalid } from '../../schema/validators'
import { changePackage, createSubscription, setStatus, toggleFeatures } from '../../subscriptions/lifecycle'
import type { Subscription, SubscriptionStatus } from './subscriptions.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'subscriptions',
  indexes: [
    // One live subscription per facility: `liveKey` is the facility id while the subscription is not final.
    { fields: { liveKey: 1 }, unique: true },
    { fields: { facility: 1 } },
    { fields: { status: 1 } },
    { fields: { 'checkoutSession.id': 1 }, sparse: true }
  ]
})

const subscriptionMethods = (app: Application) => (Base: any) =>
  class SubscriptionService extends Base {
    async create(data: any, params: Params = {}) {
      return createSubscription(app, data, { by: params.account?.id ?? null, params })
    }

    // One kind of change per PATCH: { status, reason? }, { package }, or feature toggles { <key>: boolean }.
    async patch(id: NullableId, data: Record<string, unknown>, params: Params = {}) {
      const existing: Subscription = params.existing ?? (await this._get(id as Id))
      const actor = {
        by: params.account?.id ?? null,
        params,
        admin: params.provider ? params.access?.admin === true : true
      }
      const { status, reason, package: packageId, ...toggles } = data
      const kinds = [status !== undefined, packageId !== undefined, Object.keys(toggles).length > 0].filter(
        Boolean
      ).length
      if (kinds !== 1) {
        const field = kinds === 0 ? 'status' : Object.keys(data)[1]
        throw invalid('data', [
          {
            field,
            message:
              'send exactly one change: { status, reason? }, { package }, or feature toggles such as { lis: true }'
          }
        ])
      }
      if (reason !== undefined && status === undefined)
        throw invalid('data', [{ field: 'reason', message: 'goes with a status change only' }])
      if (status !== undefined)
        return setStatus(app, existing, status as SubscriptionStatus, reason as string | undefined, actor)
      if (packageId !== undefined) return changePackage(app, existing, packageId as string, actor)
      return toggleFeatures(app, existing, toggles, actor)
    }
  }

export type SubscriptionService = StoreService<
  Subscription,
  SubscriptionData,
  SubscriptionPatch,
  SubscriptionQuery
>

export const createSubscriptionService = (app: Application): SubscriptionService =>
  createStore<Subscription, SubscriptionData, SubscriptionPatch, SubscriptionQuery>(
    app,
    getOptions(app),
    subscriptionMethods(app)
  )
