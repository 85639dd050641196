// The request-orders store and its class: create and patch call src/orders/.
import { NotFound } from '@feathersjs/errors'
import type { Id, NullableId, Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import { within } from '../../access/rules'
import { orNull } from '../../billing/stores'
import { createStore, type StoreOptions, type StoreService, type Stored } from '../../store'
import { invalid } from '../../schema/validators'
import { createOrder } from '../../orders/create'
import { changeOrderStatus, confirmOrderItem, isFinal } from '../../orders/status'
import { dispatchOrder } from '../../orders/dispatch'
import { Conflict } from '@feathersjs/errors'
import type { Order } from './request-orders.schema'
import type { RequestOrderData, RequestOrderPatch, RequestOrderQuery } from './request-orders.shared'

export const getOptions = (_app: Application): StoreOptions => ({
  name: 'request-orders',
  indexes: [
    { fields: { 'owner.organization': 1, createdAt: -1 } },
    { fields: { requestedFor: 1, createdAt: -1 } },
    // Recovery: dispatches under way.
    { fields: { 'dispatching.at': 1 } }
  ]
})

const orderMethods = (app: Application) => (Base: any) =>
  class RequestOrderService extends Base {
    async create(data: any, _params?: Params) {
      return createOrder(app, data)
    }

    async patch(id: NullableId, data: any, params: Params = {}) {
      const operations = ['changeStatus', 'confirmItem', 'notes'].filter((key) => data[key] !== undefined)
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
      const existing = params.existing ?? (await this._get(id as Id))
      const by = params.account?.id ?? null
      if (data.stockroom !== undefined)
        return dispatchOrder(app, existing, data.stockroom, by, params.writeScope)
      if (data.changeStatus !== undefined)
        return changeOrderStatus(app, existing, data.changeStatus, by, params.writeScope)
      if (data.confirmItem !== undefined)
        return confirmOrderItem(app, existing, data.confirmItem, by, params.writeScope)
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
        this._patch(
          existing.id,
          { $set: { notes: data.notes, updatedAt: Date.now() }, $inc: { rev: 1 } },
          { query: within({ status: existing.status, dispatching: null }, params.writeScope) }
        )
      )
      if (!updated) throw new NotFound(`No request order found for id '${existing.id}'`)
      return updated
    }
  }

/** The request-orders service as the app holds it: the store's adapter typed by the schemas. */
export type RequestOrderService = StoreService<
  Stored<Order>,
  RequestOrderData,
  RequestOrderPatch,
  RequestOrderQuery
>

export const createOrderService = (app: Application): RequestOrderService =>
  createStore<Stored<Order>, RequestOrderData, RequestOrderPatch, RequestOrderQuery>(
    app,
    getOptions(app),
    orderMethods(app)
  )
