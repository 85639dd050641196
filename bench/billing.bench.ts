// Payments per second through POST /billing-payments on the embedded engine (the full app: JWT, validation,
// access check, the atomic reservation on the item, the pending → recorded steps, the invoice totals refresh),
// against ONE item (contended: every payment competes for the same reservation counter and invoice totals)
// and against MANY items on separate invoices (uncontended), next to a plain @feathersjs/memory service's
// create on a bare Feathers Koa app in the same run: ratio = payments/s ÷ memory creates/s.
import { MemoryService } from '@feathersjs/memory'
import { signUp, startServer } from '../test/helpers/app'
import { call, measureLoad, round, startPlainApp } from './lib'

const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ITEMS = Number(process.env.BENCH_ITEMS ?? 200)

// Every payment is a POST of the next body of `bodies`, by `CONNECTIONS` clients for `DURATION` seconds.
const measure = (title: string, url: string, bodies: unknown[], token?: string) =>
  measureLoad(title, url, { method: 'POST', bodies, token, connections: CONNECTIONS, duration: DURATION })

export async function run() {
  const server = await startServer({ mongodb: '' })
  const { app, url: base } = server

  // The cashier: a member of the clinic with the billing privilege.
  const owner = await signUp(base, {
    email: 'owner@billing-bench.test',
    organization: { name: 'Bench clinic', type: 'facility' }
  })
  const cashier = await signUp(base, { email: 'cashier@billing-bench.test' })
  const facility = owner.organization.id
  await call(
    base,
    'POST',
    '/organization-members',
    { organization: facility, uid: cashier.account.id, privileges: ['billing'] },
    owner.token
  )

  const newItem = async () => {
    const invoice = await call(
      base,
      'POST',
      '/billing-invoices',
      { facility, type: 'walk-in', subject: owner.account.id, subjectType: 'patient' },
      cashier.token
    )
    return call(
      base,
      'POST',
      '/billing-items',
      { invoice: invoice.id, type: 'custom', price: 1_000_000_000 },
      cashier.token
    )
  }
  const hot = await newItem()
  const spread: any[] = []
  for (let i = 0; i < ITEMS; i++) spread.push(await newItem())
  const payment = (item: string) => ({ item, type: 'payment', paymentMethod: 'cash', amount: 0.01 })

  // The baseline: a plain memory service on a bare Feathers Koa app, creating the same documents.
  const baseline = await startPlainApp('payments', new MemoryService({ paginate: app.get('paginate') }))

  const memory = await measure('memory create', `${baseline.base}/payments`, [payment(hot.id)])
  const contended = await measure(
    'payments, one item',
    `${base}/billing-payments`,
    [payment(hot.id)],
    cashier.token
  )
  const uncontended = await measure(
    'payments, many items',
    `${base}/billing-payments`,
    spread.map((item) => payment(item.id)),
    cashier.token
  )

  // The books must balance after the load: every recorded payment is counted once on its item and invoice.
  const payments = (await (app.service('billing-payments' as any) as any)._find({
    query: { $select: ['item', 'amount', 'status'] },
    paginate: false
  })) as any[]
  const items = (await (app.service('billing-items' as any) as any)._find({
    query: {},
    paginate: false
  })) as any[]
  const invoices = (await (app.service('billing-invoices' as any) as any)._find({
    query: {},
    paginate: false
  })) as any[]
  const cents = new Map<string, number>()
  for (const p of payments) cents.set(p.item, (cents.get(p.item) ?? 0) + Math.round(p.amount * 100))
  const balanced =
    payments.every((p) => p.status === 'draft') &&
    items.every((item) => item.reserved === (cents.get(item.id) ?? 0) && item.pending.length === 0) &&
    invoices.every(
      (invoice) =>
        Math.round(invoice.paid * 100) ===
        items.filter((i) => i.invoice === invoice.id).reduce((sum, i) => sum + i.reserved, 0)
    )
  if (!balanced) throw new Error('The payments, items and invoice totals do not agree after the load')

  await server.close()
  await baseline.close()

  const ratio = (a: { requestsPerSecond: number }) => round(a.requestsPerSecond / memory.requestsPerSecond, 3)
  return {
    name: 'billing',
    durationSeconds: DURATION,
    connections: CONNECTIONS,
    uncontendedItems: ITEMS,
    note: 'ratio = payments/s (full app, embedded engine) ÷ plain @feathersjs/memory creates/s, same machine, same run; books checked balanced afterwards',
    baselineMemoryCreate: memory,
    paymentsOneItem: { ...contended, ratio: ratio(contended) },
    paymentsManyItems: { ...uncontended, ratio: ratio(uncontended) },
    recordedPayments: payments.length,
    booksBalanced: balanced
  }
}
