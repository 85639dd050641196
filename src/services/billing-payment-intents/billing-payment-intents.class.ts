// The payment intents service: create and patch call src/billing/intents.ts; find answers `$analytics` sums.
import type { Id, NullableId, Paginated, PaginationOptions } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { sumByGroup, type StoreOptions, type StoreParams, type Stored } from '../../store'
import { ResourceService } from '../resource'
import type { CreatedFields } from '../../hooks/set-created'
import {
  captureIntent,
  createIntent,
  intentAnalytics,
  invoiceLedger,
  type AnalyticsType,
  type InvoiceLedger
} from '../../billing/intents'
import { originOf } from '../../providers/registry'
import type { Intent } from './billing-payment-intents.schema'
import {
  billingPaymentIntentPath,
  type BillingPaymentIntentData,
  type BillingPaymentIntentPatch,
  type BillingPaymentIntentQuery
} from './billing-payment-intents.shared'

export const getOptions = (): StoreOptions => ({
  name: 'billing-payment-intents',
  indexes: [
    { fields: { facility: 1, createdAt: -1 } },
    { fields: { account: 1, createdAt: -1 } },
    { fields: { invoice: 1 } },
    { fields: { status: 1 } }
  ]
})

type Params = StoreParams<BillingPaymentIntentQuery>

export class BillingPaymentIntentService extends ResourceService<
  Stored<Intent>,
  BillingPaymentIntentData,
  BillingPaymentIntentPatch,
  BillingPaymentIntentQuery
> {
  private readonly ledger: InvoiceLedger

  constructor(app: Application, deps: Deps) {
    super(app, deps, billingPaymentIntentPath, getOptions())
    this.ledger = invoiceLedger(deps)
  }

  // `$analytics=<type>` answers sums over the selected intents instead of a page of them.
  find(params?: Params & { paginate?: PaginationOptions }): Promise<Paginated<Stored<Intent>>>
  find(params?: Params & { paginate: false }): Promise<Stored<Intent>[]>
  find(params?: Params): Promise<Paginated<Stored<Intent>> | Stored<Intent>[]>
  async find(params: Params = {}) {
    const { $analytics, ...query } = (params.query ?? {}) as Record<string, unknown>
    if ($analytics === undefined) return this.store.find({ ...params, query } as Params)
    return intentAnalytics(
      this.deps,
      (selected, sums) => sumByGroup(this.app, this.store, { ...params, query: selected }, 'currency', sums),
      { query },
      $analytics as AnalyticsType
    )
  }

  async get(id: Id, params: Params = {}) {
    const { $analytics: _ignored, ...query } = (params.query ?? {}) as Record<string, unknown>
    return this.store.get(id, { ...params, query } as Params)
  }

  async create(data: BillingPaymentIntentData, params: Params = {}): Promise<Stored<Intent>> {
    // (setCreated added the creation fields to the body)
    const input = data as BillingPaymentIntentData & CreatedFields
    return this.write('create', null, params, () =>
      createIntent(this.deps, input, originOf(this.deps.settings, params.headers))
    )
  }

  async patch(
    id: NullableId,
    _data: BillingPaymentIntentPatch,
    params: Params = {}
  ): Promise<Stored<Intent>> {
    return this.write('patch', id, params, async () => {
      const existing: Stored<Intent> = await this.loadExisting(id as Id, params)
      return captureIntent(this.deps, this.ledger, existing, params.account?.id ?? null, params.writeScope)
    })
  }
}
