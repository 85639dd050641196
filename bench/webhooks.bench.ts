// Webhook delivery: 1 000 events (organization patches over REST) to 10 receivers (10 000 deliveries) through
// the durable queue and worker, against a baseline measured in the same run: the same 10 000 signed POSTs sent
// straight to the same receivers (deliverWebhook, one stream per receiver as the queue's per-webhook
// ordering allows), without the queue. Also the write latency with 10 subscribed webhooks vs none, and the
// write→receipt delay when events arrive at a steady pace (no backlog).
// BENCH_EVENTS=<n> runs a smaller burst (for profiling); the reported figures use 1 000.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { restClient, signUp, sleep, startServer } from '../test/helpers/app'
import { deliverWebhook, generateWebhookSecret } from '../src/providers/webhook-http'
import { round } from './lib'

const RECEIVERS = 10
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000)
const WRITE_CONCURRENCY = 10
const PACED_EVENTS = 100
const PACED_INTERVAL_MS = 50

interface Receiver {
  url: string
  /** Arrival time by event marker (the payload description, or the baseline's marker header). */
  arrivals: Map<string, number>
  close(): Promise<void>
}

// A minimal receiver: records when each marker first arrives and answers 200.
const startReceiver = async (): Promise<Receiver> => {
  const arrivals = new Map<string, number>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const now = performance.now()
      const raw = Buffer.concat(chunks).toString('utf8')
      let marker: string | undefined
      try {
        const body = JSON.parse(raw)
        marker = body.payload?.description ?? body.marker
      } catch {
        marker = undefined
      }
      if (marker !== undefined && !arrivals.has(marker)) arrivals.set(marker, now)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}
// The median and p99 of a list of times in ms, as every latency below is reported.
const spread = (values: number[]) => ({
  median: round(percentile(values, 50)),
  p99: round(percentile(values, 99))
})

/** Runs `count` jobs with `concurrency` workers; returns the start time of each job. */
const runPool = async (count: number, concurrency: number, job: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++
        await job(i)
      }
    })
  )
}

const waitFor = async (predicate: () => boolean, timeoutMs: number, what: string) => {
  const end = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`)
    await sleep(5)
  }
}

export async function run() {
  const server = await startServer({
    logLevel: 'error',
    webhooks: {
      allowPrivate: true,
      retryDelaysMs: [1000, 5000],
      timeoutMs: 15000,
      pollIntervalMs: 1000,
      concurrency: 20,
      concurrencyPerWebhook: 1,
      leaseMarginMs: 30000,
      retentionMs: 0
    }
  })
  const receivers = await Promise.all(Array.from({ length: RECEIVERS }, startReceiver))
  try {
    const owner = await signUp(server.url, { organization: { name: 'Bench clinic', type: 'facility' } })
    const api = restClient(server.url, owner.token)
    const orgPath = `/organizations/${owner.organization.id}`
    const patch = async (description: string) => {
      const res = await api.patch(orgPath, { description })
      if (res.status !== 200) throw new Error(`bench: patch failed ${res.status} ${JSON.stringify(res.body)}`)
    }

    // Write latency without any webhook (the hook still looks for subscribers).
    const plainWrite: number[] = []
    await runPool(EVENTS, WRITE_CONCURRENCY, async (i) => {
      const t = performance.now()
      await patch(`plain ${i}`)
      plainWrite.push(performance.now() - t)
    })

    for (const receiver of receivers) {
      const res = await api.post('/webhook-events', {
        organization: owner.organization.id,
        url: receiver.url,
        events: 'organizations.patch'
      })
      if (res.status !== 201) throw new Error(`bench: webhook registration failed ${res.status}`)
    }

    // Queue: 1 000 writes as fast as 10 clients go; each becomes 10 deliveries.
    const writeStart = new Map<string, number>()
    const queuedWrite: number[] = []
    const t0 = performance.now()
    await runPool(EVENTS, WRITE_CONCURRENCY, async (i) => {
      const marker = `event ${i}`
      const t = performance.now()
      writeStart.set(marker, t)
      await patch(marker)
      queuedWrite.push(performance.now() - t)
    })
    const writesDone = performance.now()
    await waitFor(() => receivers.every((r) => r.arrivals.size >= EVENTS), 170000, 'queued deliveries')
    const lastReceipt = Math.max(...receivers.flatMap((r) => [...r.arrivals.values()]))
    const queueDelays = receivers.flatMap((r) =>
      [...r.arrivals].map(([marker, at]) => at - (writeStart.get(marker) as number))
    )
    const queueSeconds = (lastReceipt - t0) / 1000

    // Paced: one event every 50 ms, so the queue never backs up: the delay the worker itself adds.
    const pacedStart = new Map<string, number>()
    for (let i = 0; i < PACED_EVENTS; i++) {
      const marker = `paced ${i}`
      pacedStart.set(marker, performance.now())
      await patch(marker)
      await sleep(PACED_INTERVAL_MS)
    }
    await waitFor(
      () => receivers.every((r) => r.arrivals.size >= EVENTS + PACED_EVENTS),
      30000,
      'paced deliveries'
    )
    const pacedDelays = receivers.flatMap((r) =>
      [...r.arrivals]
        .filter(([m]) => m.startsWith('paced '))
        .map(([m, at]) => at - (pacedStart.get(m) as number))
    )

    // Baseline: the same 10 000 signed POSTs straight to the receivers, one stream per receiver.
    const secret = generateWebhookSecret()
    const baseStart = new Map<string, number>()
    const b0 = performance.now()
    await Promise.all(
      receivers.map(async (receiver, r) => {
        for (let i = 0; i < EVENTS; i++) {
          const marker = `base ${r} ${i}`
          baseStart.set(marker, performance.now())
          const result = await deliverWebhook({
            url: receiver.url,
            secret,
            id: marker,
            body: JSON.stringify({ id: marker, event: 'bench', marker }),
            timeoutMs: 15000,
            allowPrivate: true
          })
          if (!result.ok) throw new Error(`bench: baseline POST failed: ${result.error}`)
        }
      })
    )
    const baseSeconds = (performance.now() - b0) / 1000
    const baseDelays = receivers.flatMap((r) =>
      [...r.arrivals]
        .filter(([m]) => m.startsWith('base '))
        .map(([m, at]) => at - (baseStart.get(m) as number))
    )

    const deliveries = EVENTS * RECEIVERS
    const queuePerSecond = deliveries / queueSeconds
    const basePerSecond = deliveries / baseSeconds
    return {
      name: 'webhooks',
      setup: `${EVENTS} organization patches (${WRITE_CONCURRENCY} concurrent REST clients) x ${RECEIVERS} webhooks = ${deliveries} deliveries; embedded store; ${RECEIVERS} loopback receivers answering 200; per-webhook concurrency 1 (ordered), overall 20`,
      queue: {
        deliveriesPerSecond: round(queuePerSecond),
        seconds: round(queueSeconds, 2),
        writesSeconds: round((writesDone - t0) / 1000, 2),
        writeToReceiptMs: spread(queueDelays)
      },
      paced: {
        events: PACED_EVENTS,
        intervalMs: PACED_INTERVAL_MS,
        writeToReceiptMs: spread(pacedDelays)
      },
      baseline: {
        what: 'the same number of signed POSTs sent directly with deliverWebhook, one sequential stream per receiver, no queue',
        postsPerSecond: round(basePerSecond),
        seconds: round(baseSeconds, 2),
        postToReceiptMs: spread(baseDelays)
      },
      writeLatencyMs: {
        withoutWebhooks: spread(plainWrite),
        with10Webhooks: spread(queuedWrite)
      },
      ratios: {
        throughputQueueVsDirect: round(queuePerSecond / basePerSecond, 3),
        pacedDelayMedianVsDirectPost: round(percentile(pacedDelays, 50) / percentile(baseDelays, 50), 2),
        writeLatencyMedianWithVsWithoutWebhooks: round(
          percentile(queuedWrite, 50) / percentile(plainWrite, 50),
          2
        )
      }
    }
  } finally {
    await Promise.all(receivers.map((r) => r.close()))
    await server.close()
  }
}
