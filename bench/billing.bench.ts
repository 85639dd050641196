// Payments per second through POST /billing-payments on the embedded engine (the full app: JWT, validation,
// access check, the atomic reservation on the item, the pending → recorded steps, the invoice totals refresh),
// against ONE item (contended: every payment competes for the same reservation counter and invoice totals)
// and against MANY items on separate invoices (uncontended), next to a plain @feathersjs/memory service's
// create on a bare Feathers Koa app in the same run: ratio = payments/s ÷ memory creates/s.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Server } from 'node:http'
import { execFile } from 'node:child_process'
import { feathers } from '@feathersjs/feathers'
import { koa, rest, bodyParser, errorHandler } from '@feathersjs/koa'
import { MemoryService } from '@feathersjs/memory'
import { createApp } from '../src/app'

const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ITEMS = Number(process.env.BENCH_ITEMS ?? 200)
const PASSWORD = 'correct horse battery'

const call = async (base: string, method: string, url: string, body?: unknown, token?: string) => {
  const response = await fetch(base + url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const json: any = await response.json()
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

const signUp = async (base: string, email: string, extra: Record<string, unknown> = {}) => {
  const created = await call(base, 'POST', '/accounts', { email, password: PASSWORD, ...extra })
  const login = await call(base, 'POST', '/authentication', { email, password: PASSWORD })
  return { id: login.account.id as string, token: login.accessToken as string, organization: created.organization }
}

// autocannon runs in its own process so the load generator does not share the server's event loop; each
// request takes the next body of the list (one body: every request alike).
const loadScript = `
const autocannon = require(process.argv[1])
const o = JSON.parse(process.argv[2])
let next = 0
autocannon({
  url: o.url, connections: o.connections, duration: o.duration,
  requests: [{ method: 'POST', headers: o.headers, setupRequest: (req) => { req.body = JSON.stringify(o.bodies[next++ % o.bodies.length]); return req } }]
}, (error, result) => { if (error) { console.error(error); process.exit(1) } process.stdout.write(JSON.stringify(result)) })
`

const measure = async (title: string, url: string, bodies: unknown[], token?: string) => {
  const options = {
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    bodies,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }
  }
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['-e', loadScript, require.resolve('autocannon'), JSON.stringify(options)], { maxBuffer: 64 * 1024 * 1024 }, (error, out) =>
      error ? reject(error) : resolve(out)
    )
  )
  const result = JSON.parse(stdout)
  const ok = result['2xx']
  if (result.non2xx > 0 || result.errors > 0 || ok === 0) throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${ok} ok`)
  await drain(url)
  return {
    requestsPerSecond: Math.round((ok / (result.duration || DURATION)) * 10) / 10,
    latencyP50ms: result.latency.p50,
    latencyP99ms: result.latency.p99,
    requests: ok
  }
}

// Requests still queued when the load stops are finished before anything is checked or measured next.
const drain = async (url: string) => {
  await new Promise((resolve) => setTimeout(resolve, 300))
  await fetch(new URL('/bench-drain-probe', url)).then((response) => response.text())
}

const listen = async (app: any): Promise<{ server: Server; base: string }> => {
  const server: Server = await app.listen(0, '127.0.0.1')
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
  const address = server.address()
  return { server, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }
}

export async function run() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clinic-bench-billing-'))
  const app = createApp({ host: '127.0.0.1', port: 0, logLevel: 'error', dataDir, mongodb: '' })
  const { base } = await listen(app)

  // The cashier: a member of the clinic with the billing privilege.
  const owner = await signUp(base, 'owner@billing-bench.test', { organization: { name: 'Bench clinic', type: 'facility' } })
  const cashier = await signUp(base, 'cashier@billing-bench.test')
  const facility = owner.organization.id
  await call(base, 'POST', '/organization-members', { organization: facility, uid: cashier.id, privileges: ['billing'] }, owner.token)

  const newItem = async () => {
    const invoice = await call(base, 'POST', '/billing-invoices', { facility, type: 'walk-in', subject: owner.id, subjectType: 'patient' }, cashier.token)
    return call(base, 'POST', '/billing-items', { invoice: invoice.id, type: 'custom', price: 1_000_000_000 }, cashier.token)
  }
  const hot = await newItem()
  const spread: any[] = []
  for (let i = 0; i < ITEMS; i++) spread.push(await newItem())
  const payment = (item: string) => ({ item, type: 'payment', paymentMethod: 'cash', amount: 0.01 })

  // The baseline: a plain memory service on a bare Feathers Koa app, creating the same documents.
  const plain: any = koa(feathers())
  plain.use(errorHandler())
  plain.use(bodyParser())
  plain.configure(rest())
  plain.use('payments', new MemoryService({ paginate: app.get('paginate') }))
  const baseline = await listen(plain)

  const memory = await measure('memory create', `${baseline.base}/payments`, [payment(hot.id)])
  const contended = await measure('payments, one item', `${base}/billing-payments`, [payment(hot.id)], cashier.token)
  const uncontended = await measure(
    'payments, many items',
    `${base}/billing-payments`,
    spread.map((item) => payment(item.id)),
    cashier.token
  )

  // The books must balance after the load: every recorded payment is counted once on its item and invoice.
  const payments = (await (app.service('billing-payments' as any) as any)._find({ query: { $select: ['item', 'amount', 'status'] }, paginate: false })) as any[]
  const items = (await (app.service('billing-items' as any) as any)._find({ query: {}, paginate: false })) as any[]
  const invoices = (await (app.service('billing-invoices' as any) as any)._find({ query: {}, paginate: false })) as any[]
  const cents = new Map<string, number>()
  for (const p of payments) cents.set(p.item, (cents.get(p.item) ?? 0) + Math.round(p.amount * 100))
  const balanced =
    payments.every((p) => p.status === 'draft') &&
    items.every((item) => item.reserved === (cents.get(item.id) ?? 0) && item.pending.length === 0) &&
    invoices.every((invoice) => Math.round(invoice.paid * 100) === items.filter((i) => i.invoice === invoice.id).reduce((sum, i) => sum + i.reserved, 0))
  if (!balanced) throw new Error('The payments, items and invoice totals do not agree after the load')

  await app.teardown()
  await plain.teardown()
  fs.rmSync(dataDir, { recursive: true, force: true })

  const ratio = (a: { requestsPerSecond: number }) => Math.round((a.requestsPerSecond / memory.requestsPerSecond) * 1000) / 1000
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
