// The request-orders service: create and patch call src/orders/.
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Id, NullableId } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { within } from '../../access/rules'
import { orNull } from '../../billing/store-calls'
import type { CreatedFields } from '../../hooks/set-created'
import { invalid } from '../../schema/validators'
import { createOrder } from '../../orders/create'
import { changeOrderStatus, confirmOrderItem, isFinal } from '../../orders/status'
import { dispatchOrder } from '../../orders/dispatch'
import { ResourceService } from '../resource'
import type { Order } from './request-orders.schema'
import {
  requestOrderPath,
  type RequestOrderData,
  type RequestOrderPatch,
  type RequestOrderQuery
} from './request-orders.shared'

export const getOptions = (): StoreOptions => ({
  name: 'request-orders',
  indexes: [
    { fields: { 'owner.organization': 1, createdAt: -1 } },
    { fields: { requestedFor: 1, createdAt: -1 } },
    // Recovery: dispatches under way.
    { fields: { 'dispatching.at': 1 } }
  ]
})

type OrderParams = StoreParams<RequestOrderQuery>

export class RequestOrderService extends ResourceService<
  Stored<Order>,
  RequestOrderData,
  RequestOrderPatch,
  RequestOrderQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, requestOrderPath, getOptions())
  }

  async create(data: RequestOrderData & CreatedFields, params?: OrderParams): Promise<Stored<Order>> {
    return this.write('create', null, params, () => createOrder(this.deps, data))
  }

  /** One operation per PATCH: a status move (a dispatch with `stockroom`), an item confirmation, or new notes. */
  async patch(id: NullableId, data: RequestOrderPatch, params: OrderParams = {}): Promise<Stored<Order>> {
    return this.write('patch', id, params, () => this.changeOrder(id, data, params))
  }

  private async changeOrder(
    id: NullableId,
    data: RequestOrderPatch,
    params: OrderParams
  ): Promise<Stored<Order>> {
    const { deps } = this
    const operations = (['changeStatus', 'confirmItem', 'notes'] as const).filter(
      (key) => data[key] !== undefined
    )
    if (operations.length !== 1) {
      throw invalid('data', [
        {
          field: operations[1] ?? 'changeStatus',
          message: 'send exactly one of changeStatus, confirmItem or notes'
        }
      ])
    }
    if (data.stockroom !== undefined && data.changeStatus !== 'dispatched') {
      throw invalid('data', [{ field: 'stockroom', message: 'goes only with changeStatus: dispatched' }])
    }
    const existing: Stored<Order> = await this.loadExisting(id as Id, params)
    const by = params.account?.id ?? null
    if (data.stockroom !== undefined)
      return dispatchOrder(deps, existing, data.stockroom, by, params.writeScope)
    if (data.changeStatus !== undefined)
      return changeOrderStatus(deps, existing, data.changeStatus, by, params.writeScope)
    if (data.confirmItem !== undefined)
      return confirmOrderItem(deps, existing, data.confirmItem, by, params.writeScope)
    if (existing.dispatching)
      throw new Conflict(`Order ${existing.id} is being dispatched`, {
        order: existing.id,
        status: existing.status
      })
    if (isFinal(existing.status))
      throw new Conflict(`Order ${existing.id} is ${existing.status} and can no longer be changed`, {
        order: existing.id,
        status: existing.status
      })
    const updated = await orNull(
      this.store._patch(
        existing.id,
        { $set: { notes: data.notes, updatedAt: deps.clock.now() }, $inc: { rev: 1 } },
        { query: within({ status: existing.status, dispatching: null }, params.writeScope) }
      )
    )
    if (!updated) throw new NotFound(`No request order found for id '${existing.id}'`)
    return updated
  }
}
