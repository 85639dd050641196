// The subscriptions service: create and patch call the rules in src/subscriptions/lifecycle.ts.
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams } from '../../store'
import { ResourceService } from '../resource'
import type { SubscriptionData, SubscriptionPatch, SubscriptionQuery } from './subscriptions.shared'
import { invalid } from '../../schema/validators'
import { changePackage, createSubscription, setStatus, toggleFeatures } from '../../subscriptions/lifecycle'
import type { Subscription, SubscriptionStatus } from './subscriptions.schema'
import { subscriptionPath } from './subscriptions.shared'

export const getOptions = (): StoreOptions => ({
  name: 'subscriptions',
  indexes: [
    // One live subscription per facility: `liveKey` is the facility id while the subscription is not final.
    { fields: { liveKey: 1 }, unique: true },
    { fields: { facility: 1 } },
    { fields: { status: 1 } },
    { fields: { 'checkoutSession.id': 1 }, sparse: true }
  ]
})

type Params = StoreParams<SubscriptionQuery>

export class SubscriptionService extends ResourceService<
  Subscription,
  SubscriptionData,
  SubscriptionPatch,
  SubscriptionQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, subscriptionPath, getOptions())
  }

  async create(data: SubscriptionData, params: Params = {}): Promise<Subscription> {
    return this.write('create', null, params, () =>
      createSubscription(this.deps, data, { by: params.account?.id ?? null, params })
    )
  }

  // One kind of change per PATCH: { status, reason? }, { package }, or feature toggles { <key>: boolean }.
  async patch(id: NullableId, data: SubscriptionPatch, params: Params = {}): Promise<Subscription> {
    return this.write('patch', id, params, () => this.change(id, data, params))
  }

  private async change(id: NullableId, data: SubscriptionPatch, params: Params): Promise<Subscription> {
    const existing: Subscription = await this.loadExisting(id as Id, params)
    const actor = {
      by: params.account?.id ?? null,
      params,
      admin: params.provider ? params.access?.admin === true : true
    }
    const { status, reason, package: packageId, ...toggles } = data as Record<string, unknown>
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
      return setStatus(this.deps, existing, status as SubscriptionStatus, reason as string | undefined, actor)
    if (packageId !== undefined) return changePackage(this.deps, existing, packageId as string, actor)
    return toggleFeatures(this.deps, existing, toggles, actor)
  }
}
