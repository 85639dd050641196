// Inventory test fixtures, set up over HTTP as clients do: the billing facility fixture plus a `keeper` holding
// the `inventory` privilege, and helpers that create stockrooms, variants and stocks as the keeper.
import assert from 'node:assert/strict'
import { restClient, signUp, startServer, type SignedUp, type TestServer } from './app'
import { addMember, setupFacility, type FacilityFixture } from './billing'

export interface InventoryFixture extends FacilityFixture {
  keeper: SignedUp
}

export const startInventoryServer = async (
  overrides: Parameters<typeof startServer>[0] = {}
): Promise<{ server: TestServer; facility: InventoryFixture }> => {
  const server = await startServer(overrides)
  const base = await setupFacility(server.url)
  const keeper = await signUp(server.url)
  await addMember(server.url, base.owner, base.id, keeper, { privileges: ['inventory'] })
  return { server, facility: { ...base, keeper } }
}

let counter = 0
/** A sku nobody used yet in this process. */
export const freshSku = (prefix = 'SKU') => `${prefix}-${Date.now().toString(36)}-${++counter}`

const created = (res: { status: number; body: any }, what: string) => {
  assert.equal(res.status, 201, `${what}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

export const createStockroom = async (url: string, token: string, facility: string, name = 'Main pharmacy') =>
  created(await restClient(url, token).post('/inventory-stockrooms', { facility, name }), 'stockroom')

export const createVariant = async (
  url: string,
  token: string,
  facility: string,
  extra: Record<string, unknown> = {}
) =>
  created(
    await restClient(url, token).post('/inventory-variants', {
      facility,
      sku: freshSku(),
      name: 'Paracetamol 500 mg',
      unit: 'tablet',
      price: 0.25,
      ...extra
    }),
    'variant'
  )

/** A variant with a stock of `quantity` in `stockroom`; returns both. */
export const stockedVariant = async (
  url: string,
  token: string,
  facility: string,
  stockroom: string,
  quantity: number,
  extra: Record<string, unknown> = {}
) => {
  const variant = await createVariant(url, token, facility, { initialStock: quantity, stockroom, ...extra })
  return { variant, stock: variant.$stocks[0] }
}
