// The billing customers store and its class: create and patch call src/billing/customers.ts; get adds the
// processor's cards when asked ($populateProcessorCards=true), and only then calls the processor.
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import { invalid } from '../../schema/validators'
import { changeCustomer, createCustomer, customerCards, type CustomerChange } from '../../billing/customers'
import type { Customer } from './billing-customers.schema'
import type {
  BillingCustomerData,
  BillingCustomerPatch,
  BillingCustomerQuery
} from './billing-customers.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'billing-customers',
  indexes: [
    // One customer per owner (`account:<id>` or `organization:<id>`).
    { fields: { ownerKey: 1 }, unique: true },
    { fields: { 'owner.account': 1 }, sparse: true },
    { fields: { 'owner.organization': 1 }, sparse: true }
  ]
})

const withoutFlag = (params: Params = {}) => {
  const { $populateProcessorCards, ...query } = (params.query ?? {}) as Record<string, unknown>
  return { flag: $populateProcessorCards === true, params: { ...params, query } }
}

const customerMethods = (app: Application) => (Base: any) =>
  class BillingCustomerService extends Base {
    async find(params?: Params) {
      return super.find(withoutFlag(params).params)
    }

    async get(id: Id, params?: Params) {
      const { flag, params: rest } = withoutFlag(params)
      const customer = await super.get(id, rest)
      if (!flag) return customer
      return { ...customer, processorCustomerCards: { data: await customerCards(app, customer) } }
    }

    async create(data: any, _params?: Params) {
      return createCustomer(app, data)
    }

    async patch(id: NullableId, data: any, params: Params = {}) {
      const operators = params.operators ?? {}
      const given: [string, unknown][] = [...Object.entries(data ?? {}), ...Object.entries(operators)].filter(
        ([, value]) => value !== undefined
      )
      if (given.length !== 1) {
        throw invalid('data', [
          {
            field: given[1]?.[0] ?? 'processorToken',
            message:
              'send exactly one of processorToken, processorEmail, $deleteProcessorCard or $setDefaultProcessorCard'
          }
        ])
      }
      const [field, value] = given[0]
      if (
        (field === '$deleteProcessorCard' || field === '$setDefaultProcessorCard') &&
        (typeof value !== 'string' || value.length === 0 || value.length > 255)
      ) {
        throw invalid('data', [{ field, message: 'must be a saved card id' }])
      }
      const change: CustomerChange =
        field === '$deleteProcessorCard'
          ? { deleteCard: value as string }
          : field === '$setDefaultProcessorCard'
            ? { setDefaultCard: value as string }
            : field === 'processorToken'
              ? { processorToken: value as string }
              : { processorEmail: value as string }
      const existing = params.existing ?? (await this._get(id as Id))
      return changeCustomer(app, existing, change, params.writeScope)
    }
  }

/** The billing-customers service as the app holds it: the store's adapter typed by the schemas. */
export type BillingCustomerService = StoreService<
  Stored<Customer>,
  BillingCustomerData,
  BillingCustomerPatch,
  BillingCustomerQuery
>

export const createCustomerService = (app: Application): BillingCustomerService =>
  createStore<Stored<Customer>, BillingCustomerData, BillingCustomerPatch, BillingCustomerQuery>(
    app,
    getOptions(app),
    customerMethods(app)
  )
