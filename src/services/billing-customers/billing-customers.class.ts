// The billing customers service: create and patch call src/billing/customers.ts; get adds the processor's cards
// when asked ($populateProcessorCards=true), and only then calls the processor.
import type { Id, NullableId, Paginated, PaginationOptions } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { ResourceService } from '../resource'
import type { CreatedFields } from '../../hooks/set-created'
import { invalid } from '../../schema/validators'
import { changeCustomer, createCustomer, customerCards, type CustomerChange } from '../../billing/customers'
import type { Customer } from './billing-customers.schema'
import {
  billingCustomerPath,
  type BillingCustomerData,
  type BillingCustomerPatch,
  type BillingCustomerQuery
} from './billing-customers.shared'

export const getOptions = (): StoreOptions => ({
  name: 'billing-customers',
  indexes: [
    // One customer per owner (`account:<id>` or `organization:<id>`).
    { fields: { ownerKey: 1 }, unique: true },
    { fields: { 'owner.account': 1 }, sparse: true },
    { fields: { 'owner.organization': 1 }, sparse: true }
  ]
})

type Params = StoreParams<BillingCustomerQuery>

const withoutFlag = (params: Params = {}) => {
  const { $populateProcessorCards, ...query } = (params.query ?? {}) as Record<string, unknown>
  return { flag: $populateProcessorCards === true, params: { ...params, query } as Params }
}

export class BillingCustomerService extends ResourceService<
  Stored<Customer>,
  BillingCustomerData,
  BillingCustomerPatch,
  BillingCustomerQuery
> {
  // `$deleteProcessorCard` / `$setDefaultProcessorCard` in a PATCH body (src/hooks/reject-unsafe-keys.ts hands them over).
  bodyOperators = ['$deleteProcessorCard', '$setDefaultProcessorCard']

  constructor(app: Application, deps: Deps) {
    super(app, deps, billingCustomerPath, getOptions())
  }

  find(params?: Params & { paginate?: PaginationOptions }): Promise<Paginated<Stored<Customer>>>
  find(params?: Params & { paginate: false }): Promise<Stored<Customer>[]>
  find(params?: Params): Promise<Paginated<Stored<Customer>> | Stored<Customer>[]>
  async find(params?: Params) {
    return this.store.find(withoutFlag(params).params)
  }

  async get(id: Id, params?: Params) {
    const { flag, params: rest } = withoutFlag(params)
    const customer = await this.store.get(id, rest)
    if (!flag) return customer
    return { ...customer, processorCustomerCards: { data: await customerCards(this.deps, customer) } }
  }

  async create(data: BillingCustomerData, params?: Params): Promise<Stored<Customer>> {
    return this.write('create', null, params, () =>
      // (setCreated added the creation fields to the body)
      createCustomer(this.deps, data as BillingCustomerData & CreatedFields)
    )
  }

  async patch(id: NullableId, data: BillingCustomerPatch, params: Params = {}): Promise<Stored<Customer>> {
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
    return this.write('patch', id, params, async () => {
      const existing: Stored<Customer> = await this.loadExisting(id as Id, params)
      return changeCustomer(this.deps, existing, change, params.writeScope)
    })
  }
}
