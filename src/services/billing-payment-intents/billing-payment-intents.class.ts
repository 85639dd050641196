// The payment intents store and its class: create and patch call src/billing/intents.ts.
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { createStore, type StoreOptions } from '../../store'
import { captureIntent, createIntent, intentAnalytics, type AnalyticsType } from '../../billing/intents'
import { gatewaySettings } from '../../providers/gateways'
import type { Intent } from './billing-payment-intents.schema'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'billing-payment-intents',
  indexes: [
    { fields: { facility: 1, createdAt: -1 } },
    { fields: { account: 1, createdAt: -1 } },
    { fields: { invoice: 1 } },
    { fields: { status: 1 } }
  ]
})

/** This server's public origin: PUBLIC_URL, else the origin the caller reached it at. */
export const originOf = (app: Application, params: Params = {}) => {
  const configured = gatewaySettings(app).publicURL
  if (configured) return new URL(configured).origin
  const host = (params as any).headers?.host // `any`: transports put request headers on params
  if (typeof host === 'string' && /^[A-Za-z0-9.:[\]-]{1,300}$/.test(host)) return `http://${host}`
  return `http://localhost:${app.get('port')}`
}

const intentMethods = (app: Application) => (Base: any) =>
  class BillingPaymentIntentService extends Base {
    // `$analytics=<type>` answers sums over the selected intents instead of a page of them.
    async find(params: Params = {}) {
      const { $analytics, ...query } = (params.query ?? {}) as Record<string, unknown>
      if ($analytics === undefined) return super.find({ ...params, query })
      return intentAnalytics(app, this as any, { ...params, query }, $analytics as AnalyticsType) // `as any`: this class is the store service
    }

    async get(id: Id, params: Params = {}) {
      const { $analytics: _ignored, ...query } = (params.query ?? {}) as Record<string, unknown>
      return super.get(id, { ...params, query })
    }

    async create(data: any, params?: Params) {
      return createIntent(app, data, originOf(app, params))
    }

    async patch(id: NullableId, _data: any, params: Params = {}) {
      const existing = params.existing ?? (await this._get(id as Id))
      return captureIntent(app, existing, params.account?.id ?? null, params.writeScope)
    }
  }

export const createIntentService = (app: Application) => createStore<Intent>(app, getOptions(app), intentMethods(app))
