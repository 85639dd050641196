// The payment intents store and its class: create and patch call src/billing/intents.ts.
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import { captureIntent, createIntent, intentAnalytics, type AnalyticsType } from '../../billing/intents'
import { gatewaySettings } from '../../providers/gateways'
import type { Intent } from './billing-payment-intents.schema'
import type {
  BillingPaymentIntentData,
  BillingPaymentIntentPatch,
  BillingPaymentIntentQuery
} from './billing-payment-intents.shared'

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
  const host = (params.headers as Record<string, unknown> | undefined)?.host // transports put request headers on params
  if (typeof host === 'string' && /^[A-Za-z0-9.:[\]-]{1,300}$/.test(host)) return `http://${host}`
  return `http://localhost:${app.get('port')}`
}

const intentMethods = (app: Application) => (Base: any) =>
  class BillingPaymentIntentService extends Base {
    // `$analytics=<type>` answers sums over the selected intents instead of a page of them.
    async find(params: Params = {}) {
      const { $analytics, ...query } = (params.query ?? {}) as Record<string, unknown>
      if ($analytics === undefined) return super.find({ ...params, query })
      return intentAnalytics(
        app,
        this as unknown as StoreService,
        { ...params, query },
        $analytics as AnalyticsType
      )
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

/** The billing-payment-intents service as the app holds it: the store's adapter typed by the schemas. */
export type BillingPaymentIntentService = StoreService<
  Stored<Intent>,
  BillingPaymentIntentData,
  BillingPaymentIntentPatch,
  BillingPaymentIntentQuery
>

export const createIntentService = (app: Application): BillingPaymentIntentService =>
  createStore<Stored<Intent>, BillingPaymentIntentData, BillingPaymentIntentPatch, BillingPaymentIntentQuery>(
    app,
    getOptions(app),
    intentMethods(app)
  )
