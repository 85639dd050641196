// Multi-step billing operations survive the process dying between any two of their steps: the real server
// runs as a child process with a test-only fault hook (FAULT_AFTER_STEP, honoured only with NODE_ENV=test)
// that SIGKILLs it right after the named step; it is then started again on the same data, and its startup
// recovery must have finished the operation with nothing orphaned or half-done in the store.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import NeDB from '@seald-io/nedb'
import { MongoClient } from 'mongodb'
import { restClient, tempDir, testMongoUrl } from '../helpers/app'
import { setupFacility, type FacilityFixture } from '../helpers/billing'
import { startChild, type ChildServer } from '../helpers/child'

interface Case {
  step: string
  /** Prepares data, then makes the request during which the child dies; returns what `verify` needs. */
  run(url: string): Promise<any>
  /** Checks, on the restarted server, that the operation was completed (or cleanly undone). */
  verify(url: string, state: any): Promise<void>
}

describe('billing crash recovery (server killed between steps, then restarted)', function () {
  this.timeout(60_000)
  const dataDir = tempDir('clinic-crash-')
  const mongodb = testMongoUrl()
  let child: ChildServer
  let facility: FacilityFixture

  const env = (step?: string) => ({
    DATA_DIR: dataDir,
    MONGODB_URL: mongodb,
    BILLING_STALE_AFTER_MS: '0',
    ...(step ? { FAULT_AFTER_STEP: step } : {})
  })
  const as = (url: string, who: 'biller' | 'member' = 'biller') => restClient(url, facility[who].token)

  // The raw documents of a collection, read from the engine's own storage (a copy of the NeDB file).
  const raw = async (name: string): Promise<any[]> => {
    if (mongodb) {
      const client = await MongoClient.connect(mongodb)
      try {
        return await client.db().collection(name).find({}).toArray()
      } finally {
        await client.close()
      }
    }
    const file = path.join(dataDir, `${name}.db`)
    if (!fs.existsSync(file)) return []
    const copy = path.join(tempDir('clinic-crash-copy-'), `${name}.db`)
    fs.copyFileSync(file, copy)
    const db = new NeDB({ filename: copy })
    await db.loadDatabaseAsync()
    const docs = await db.findAsync({})
    fs.rmSync(path.dirname(copy), { recursive: true, force: true })
    return docs
  }

  const where = async (name: string, predicate: (doc: any) => boolean) => (await raw(name)).filter(predicate)
  const one = async (name: string, id: string) => (await where(name, (doc) => doc.id === id))[0]

  // Store-wide invariants: no orphans, no unfinished markers, counters and totals that add up.
  const assertConsistent = async () => {
    const [invoices, items, payments, encounters] = await Promise.all(
      ['billing-invoices', 'billing-items', 'billing-payments', 'medical-encounters'].map(raw)
    )
    const invoiceIds = new Set(invoices.map((i) => i.id))
    const itemIds = new Set(items.map((i) => i.id))
    for (const invoice of invoices) {
      assert.equal(invoice.deleting, false, `invoice ${invoice.id} left marked for deletion`)
      assert.equal(invoice.finalizePending, null, `invoice ${invoice.id} left half-finalized`)
      const own = items.filter((i) => i.invoice === invoice.id)
      assert.equal(
        Math.round(invoice.total * 100),
        own.reduce((sum, i) => sum + i.amountMinor, 0),
        `invoice ${invoice.id} total`
      )
      assert.equal(
        Math.round(invoice.paid * 100),
        own.reduce((sum, i) => sum + i.reserved, 0),
        `invoice ${invoice.id} paid`
      )
      if (invoice.status === 'finalized')
        assert.ok(
          own.every((i) => i.status === 'finalized'),
          `draft item on finalized invoice ${invoice.id}`
        )
      if (invoice.encounter)
        assert.equal(
          encounters.find((e) => e.id === invoice.encounter)?.invoice,
          invoice.id,
          `encounter of invoice ${invoice.id} not linked`
        )
    }
    for (const item of items) {
      assert.ok(invoiceIds.has(item.invoice), `item ${item.id} orphaned`)
      assert.equal(item.deleting, false, `item ${item.id} left marked for deletion`)
      assert.deepEqual(item.pending, [], `item ${item.id} has unresolved reservations`)
      const paid = payments
        .filter((p) => p.item === item.id && p.status !== 'voided')
        .reduce((sum, p) => sum + Math.round(p.amount * 100), 0)
      assert.equal(
        item.reserved,
        paid,
        `item ${item.id} reserved ${item.reserved} but its payments sum to ${paid}`
      )
      assert.ok(item.reserved <= item.amountMinor, `item ${item.id} overpaid`)
    }
    for (const payment of payments) {
      assert.ok(
        itemIds.has(payment.item) && invoiceIds.has(payment.invoice),
        `payment ${payment.id} orphaned`
      )
      assert.notEqual(payment.status, 'pending', `payment ${payment.id} left pending`)
      assert.notEqual(payment.voidPending, true, `payment ${payment.id} left half-voided`)
    }
    for (const encounter of encounters) {
      assert.notEqual(encounter.deleting, true, `encounter ${encounter.id} left marked for removal`)
      if (encounter.invoice)
        assert.ok(invoiceIds.has(encounter.invoice), `encounter ${encounter.id} points to a missing invoice`)
    }
  }

  // The request during which the server is meant to die: it must not be answered.
  const dies = async (request: Promise<{ status: number; body: any }>) => {
    const answer = await request.catch(() => null)
    if (answer)
      throw new Error(`The server answered ${answer.status} ${JSON.stringify(answer.body)} instead of dying`)
  }

  const invoiceWithPaidItems = async (url: string, prices: number[], payments: number[][]) => {
    const invoice = (
      await as(url).post('/billing-invoices', {
        facility: facility.id,
        type: 'walk-in',
        subject: facility.member.account.id,
        subjectType: 'patient'
      })
    ).body
    const items = []
    for (const [index, price] of prices.entries()) {
      const item = (
        await as(url, 'member').post('/billing-items', { invoice: invoice.id, type: 'custom', price })
      ).body
      for (const amount of payments[index] ?? []) {
        assert.equal(
          (
            await as(url).post('/billing-payments', {
              item: item.id,
              type: 'payment',
              paymentMethod: 'cash',
              amount
            })
          ).status,
          201
        )
      }
      items.push(item)
    }
    return { invoice, items }
  }

  const invoiceCascade = (step: string): Case => ({
    step,
    async run(url) {
      const state = await invoiceWithPaidItems(url, [40, 60, 5], [[10, 15], [60], []])
      await dies(as(url).delete(`/billing-invoices/${state.invoice.id}`))
      return state
    },
    async verify(_url, { invoice, items }) {
      const ids = items.map((i: any) => i.id)
      assert.equal(await one('billing-invoices', invoice.id), undefined)
      assert.deepEqual(
        await where('billing-items', (i) => i.invoice === invoice.id || ids.includes(i.id)),
        []
      )
      assert.deepEqual(
        await where('billing-payments', (p) => p.invoice === invoice.id || ids.includes(p.item)),
        []
      )
    }
  })

  const itemCascade = (step: string): Case => ({
    step,
    async run(url) {
      const state = await invoiceWithPaidItems(url, [40, 60], [[10, 15], [20]])
      await dies(as(url).delete(`/billing-items/${state.items[0].id}`))
      return state
    },
    async verify(_url, { invoice, items }) {
      assert.equal(await one('billing-items', items[0].id), undefined)
      assert.deepEqual(await where('billing-payments', (p) => p.item === items[0].id), [])
      assert.equal((await where('billing-payments', (p) => p.item === items[1].id)).length, 1)
      const fresh = await one('billing-invoices', invoice.id)
      assert.deepEqual([fresh.total, fresh.paid, fresh.balance, fresh.itemCount], [60, 20, 40, 1])
    }
  })

  const finalize = (step: string): Case => ({
    step,
    async run(url) {
      const encounter = (
        await as(url, 'member').post('/medical-encounters', {
          facility: facility.id,
          patient: facility.member.account.id,
          invoice: true
        })
      ).body
      for (const price of [10, 20, 30])
        await as(url, 'member').post('/billing-items', { invoice: encounter.invoice, type: 'custom', price })
      await dies(
        as(url).patch(`/medical-encounters/${encounter.id}`, { finalize: true, notes: 'Discharged' })
      )
      return encounter
    },
    async verify(_url, encounter) {
      const fresh = await one('medical-encounters', encounter.id)
      assert.deepEqual(
        [fresh.status, fresh.notes, fresh.finalizedBy],
        ['finalized', 'Discharged', facility.biller.account.id]
      )
      const invoice = await one('billing-invoices', encounter.invoice)
      assert.deepEqual(
        [invoice.status, invoice.finalizedAt, invoice.finalizePending],
        ['finalized', fresh.finalizedAt, null]
      )
      const items = await where('billing-items', (i) => i.invoice === encounter.invoice)
      assert.equal(items.length, 3)
      assert.ok(items.every((i: any) => i.status === 'finalized' && i.finalizedAt === invoice.finalizedAt))
    }
  })

  const encounterCascade = (step: string): Case => ({
    step,
    async run(url) {
      const encounter = (
        await as(url, 'member').post('/medical-encounters', {
          facility: facility.id,
          patient: facility.member.account.id,
          invoice: true
        })
      ).body
      const item = (
        await as(url, 'member').post('/billing-items', {
          invoice: encounter.invoice,
          type: 'custom',
          price: 50
        })
      ).body
      assert.equal(
        (
          await as(url).post('/billing-payments', {
            item: item.id,
            type: 'payment',
            paymentMethod: 'cash',
            amount: 20
          })
        ).status,
        201
      )
      await dies(as(url).delete(`/medical-encounters/${encounter.id}`))
      return { encounter, item }
    },
    async verify(url, { encounter, item }) {
      assert.equal(await one('medical-encounters', encounter.id), undefined)
      assert.equal(await one('billing-invoices', encounter.invoice), undefined)
      assert.deepEqual(await where('billing-items', (i) => i.invoice === encounter.invoice), [])
      assert.deepEqual(await where('billing-payments', (p) => p.item === item.id), [])
      assert.equal((await as(url).get(`/medical-encounters/${encounter.id}`)).status, 404)
    }
  })

  // Each restart arms the next case's step, so a verification must not pass through the next step. Every
  // gap of the invoice cascade is covered; the item cascade and the finalization share their mechanics
  // (a marker, then idempotent steps), so one gap each stands for the rest and keeps the suite quick.
  const cases: Case[] = [
    invoiceCascade('invoice-cascade:marked'),
    invoiceCascade('invoice-cascade:items-marked'),
    invoiceCascade('invoice-cascade:payments-removed'),
    invoiceCascade('invoice-cascade:items-removed'),
    itemCascade('item-cascade:marked'),
    finalize('finalize:invoice'),
    encounterCascade('encounter-cascade:marked'),
    encounterCascade('encounter-cascade:invoice-removed'),
    {
      // Died after marking the payment voided, before releasing its amount on the item: recovery releases it once.
      step: 'void:marked',
      async run(url) {
        const { invoice, items } = await invoiceWithPaidItems(url, [100], [[30, 20]])
        const [payment] = await where('billing-payments', (p) => p.item === items[0].id && p.amount === 30)
        await dies(
          as(url).patch(`/billing-payments/${payment.id}`, { void: true, voidReason: 'entered twice' })
        )
        return { invoice, item: items[0], payment }
      },
      async verify(url, { invoice, item, payment }) {
        const fresh = await one('billing-payments', payment.id)
        assert.deepEqual([fresh.status, fresh.voidReason], ['voided', 'entered twice'])
        assert.equal((await one('billing-items', item.id)).reserved, 2000)
        assert.deepEqual(
          [
            (await one('billing-invoices', invoice.id)).paid,
            (await one('billing-invoices', invoice.id)).balance
          ],
          [20, 80]
        )
        assert.equal((await as(url).patch(`/billing-payments/${payment.id}`, { void: true })).status, 409)
      }
    },
    {
      // Died after reserving, before recording: the reservation stands, so the payment is recorded.
      step: 'payment:reserved',
      async run(url) {
        const { invoice, items } = await invoiceWithPaidItems(url, [100], [[]])
        await dies(
          as(url).post('/billing-payments', {
            item: items[0].id,
            type: 'payment',
            paymentMethod: 'card',
            amount: 30
          })
        )
        return { invoice, item: items[0] }
      },
      async verify(url, { invoice, item }) {
        const payments = await where('billing-payments', (p) => p.item === item.id)
        assert.deepEqual(
          payments.map((p: any) => [p.amount, p.status, p.paymentMethod]),
          [[30, 'draft', 'card']]
        )
        assert.equal((await one('billing-invoices', invoice.id)).paid, 30)
        const over = await as(url).post('/billing-payments', {
          item: item.id,
          type: 'payment',
          paymentMethod: 'cash',
          amount: 70.01
        })
        assert.equal(over.status, 409)
        assert.equal(over.body.data.remainingBalance, 70)
      }
    },
    {
      // Died after inserting the (still pending) payment, before reserving: the payment is dropped.
      step: 'payment:inserted',
      async run(url) {
        const { invoice, items } = await invoiceWithPaidItems(url, [100], [[]])
        await dies(
          as(url).post('/billing-payments', {
            item: items[0].id,
            type: 'payment',
            paymentMethod: 'cash',
            amount: 30
          })
        )
        return { invoice, item: items[0] }
      },
      async verify(url, { invoice, item }) {
        assert.deepEqual(await where('billing-payments', (p) => p.item === item.id), [])
        assert.equal((await one('billing-items', item.id)).reserved, 0)
        assert.equal(
          (
            await as(url).post('/billing-payments', {
              item: item.id,
              type: 'payment',
              paymentMethod: 'cash',
              amount: 100
            })
          ).status,
          201
        )
        assert.equal((await one('billing-invoices', invoice.id)).balance, 0)
      }
    },
    {
      // Died after inserting an item, before refreshing totals: the startup sweep brings the totals up to date.
      step: 'item:inserted',
      async run(url) {
        const { invoice } = await invoiceWithPaidItems(url, [], [])
        await dies(
          as(url, 'member').post('/billing-items', { invoice: invoice.id, type: 'custom', price: 12 })
        )
        return invoice
      },
      async verify(_url, invoice) {
        const fresh = await one('billing-invoices', invoice.id)
        assert.deepEqual([fresh.total, fresh.balance, fresh.itemCount], [12, 12, 1])
      }
    },
    {
      // Died after creating the encounter's invoice, before recording it on the encounter: it gets linked.
      step: 'encounter:invoice-created',
      async run(url) {
        const patient = `patient-${Date.now()}`
        await dies(
          as(url, 'member').post('/medical-encounters', { facility: facility.id, patient, invoice: true })
        )
        return patient
      },
      async verify(_url, patient) {
        const [encounter] = await where('medical-encounters', (e) => e.patient === patient)
        const invoice = await one('billing-invoices', encounter.invoice)
        assert.deepEqual(
          [invoice.encounter, invoice.subject, invoice.status],
          [encounter.id, patient, 'draft']
        )
      }
    }
  ]

  before(async () => {
    child = await startChild(env(cases[0].step))
    facility = await setupFacility(child.url)
  })
  after(async () => {
    await child?.kill('SIGTERM')
    if (mongodb) {
      const client = await MongoClient.connect(mongodb)
      await client.db().dropDatabase()
      await client.close()
    }
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  cases.forEach((testCase, index) => {
    it(`finishes the operation after a crash right after ${testCase.step}`, async () => {
      const state = await testCase.run(child.url)
      const exit = await child.exited
      assert.equal(
        exit.signal,
        'SIGKILL',
        `the child should have died at ${testCase.step}:\n${child.output()}`
      )
      assert.match(child.output(), new RegExp(`^FAULT ${testCase.step}$`, 'm'))
      child = await startChild(env(cases[index + 1]?.step))
      await testCase.verify(child.url, state)
      await assertConsistent()
    })
  })
})
