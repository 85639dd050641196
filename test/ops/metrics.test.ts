// GET /metrics in Prometheus text format: request counts and durations by service, method and status, webhook
// deliveries and queue depth, store latency and event-loop lag; guarded by METRICS_TOKEN (401 without the
// Bearer token), served without a token in development and test, 404 in production without one.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { io } from 'socket.io-client'
import { http, signUp, startServer, waitUntil, type TestServer } from '../helpers/app'
import { startWebhookReceiver } from '../helpers/webhook-receiver'
import { tempDir } from '../helpers/app'
import { startChild } from '../helpers/child'

describe('metrics', () => {
  describe('without METRICS_TOKEN (test environment)', () => {
    let server: TestServer
    before(async () => {
      server = await startServer()
    })
    after(async () => {
      await server.close()
    })

    it('counts REST requests by service, method and status and times them', async () => {
      const user = await signUp(server.url)
      await http(server.url, 'GET', `/accounts/${user.account.id}`, { token: user.token })
      await http(server.url, 'GET', '/accounts/nope', { token: user.token })
      const res = await http(server.url, 'GET', '/metrics')
      assert.equal(res.status, 200)
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/)
      const text: string = res.body
      assert.match(
        text,
        /clinic_requests_total\{transport="rest",service="accounts",method="POST",status="201"\} 1/
      )
      assert.match(
        text,
        /clinic_requests_total\{transport="rest",service="accounts",method="GET",status="200"\} 1/
      )
      assert.match(
        text,
        /clinic_requests_total\{transport="rest",service="accounts",method="GET",status="404"\} 1/
      )
      assert.match(
        text,
        /clinic_requests_total\{transport="rest",service="authentication",method="POST",status="201"\} 1/
      )
      assert.match(
        text,
        /clinic_request_duration_seconds_bucket\{le="0.005",transport="rest",service="accounts",method="GET",status="200"\}/
      )
    })

    it('counts Socket.IO calls by service, method and status', async () => {
      const socket = io(server.url, { transports: ['websocket'], forceNew: true, reconnection: false })
      try {
        await new Promise((resolve) => socket.emit('find', 'organizations', {}, resolve))
      } finally {
        socket.close()
      }
      const text: string = (await http(server.url, 'GET', '/metrics')).body
      assert.match(
        text,
        /clinic_requests_total\{transport="socketio",service="organizations",method="find",status="401"\} 1/
      )
    })

    it('reports store latency, webhook deliveries and queue depth, and event-loop lag', async () => {
      const text: string = (await http(server.url, 'GET', '/metrics')).body
      assert.match(
        text,
        /clinic_store_operation_duration_seconds_count\{collection="accounts",operation="create"\} \d+/
      )
      assert.match(text, /# TYPE clinic_webhook_deliveries_total counter/)
      assert.match(text, /^clinic_webhook_queue_depth 0$/m)
      assert.match(text, /^nodejs_eventloop_lag_seconds \d/m)
    })

    it('counts webhook deliveries by outcome', async () => {
      const receiver = await startWebhookReceiver()
      try {
        const owner = await signUp(server.url, { organization: { name: 'Metrics Clinic', type: 'facility' } })
        const webhook = await http(server.url, 'POST', '/webhook-events', {
          token: owner.token,
          body: { organization: owner.organization.id, url: receiver.url, events: 'organizations.patch' }
        })
        await http(server.url, 'POST', '/webhook-events', {
          token: owner.token,
          body: { webhook: webhook.body.id, event: 'ping' }
        })
        await receiver.waitForCount(1, 10_000)
        await waitUntil(
          async () =>
            /clinic_webhook_deliveries_total\{outcome="delivered"\} 1/.test(
              (await http(server.url, 'GET', '/metrics')).body
            ),
          5000,
          'the delivered count'
        )
      } finally {
        await receiver.close()
      }
    })

    it('is a 404 in production when no token is configured', async () => {
      const previous = process.env.NODE_ENV
      process.env.NODE_ENV = 'production'
      try {
        const res = await http(server.url, 'GET', '/metrics')
        assert.equal(res.status, 404)
      } finally {
        process.env.NODE_ENV = previous
      }
    })
  })

  describe('with METRICS_TOKEN', () => {
    let server: TestServer
    before(async () => {
      server = await startServer({ metrics: { token: 'scrape-me-please' } })
    })
    after(async () => {
      await server.close()
    })

    it('answers 401 without the Bearer token or with a wrong one', async () => {
      const none = await http(server.url, 'GET', '/metrics')
      assert.equal(none.status, 401)
      assert.equal(none.body.name, 'NotAuthenticated')
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="metrics"')
      assert.equal(
        (await http(server.url, 'GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status,
        401
      )
    })

    it('serves the metrics with the Bearer token, in production too', async () => {
      const previous = process.env.NODE_ENV
      process.env.NODE_ENV = 'production'
      try {
        const res = await http(server.url, 'GET', '/metrics', {
          headers: { authorization: 'Bearer scrape-me-please' }
        })
        assert.equal(res.status, 200)
        assert.match(res.body, /clinic_requests_total/)
      } finally {
        process.env.NODE_ENV = previous
      }
    })
  })

  describe('server processes as operators start them', function () {
    this.timeout(180_000)

    it('serves /metrics without a token in development, and answers 404 in production until METRICS_TOKEN is set', async () => {
      const dev = await startChild({
        NODE_ENV: 'development',
        DATA_DIR: tempDir('clinic-metrics-'),
        METRICS_TOKEN: ''
      })
      try {
        const res = await http(dev.url, 'GET', '/metrics')
        assert.equal(res.status, 200)
        assert.match(res.body, /^# HELP clinic_requests_total/m)
      } finally {
        await dev.kill('SIGTERM')
      }
      const production = {
        NODE_ENV: 'production',
        DATA_DIR: tempDir('clinic-metrics-'),
        AUTH_SECRET: crypto.randomBytes(48).toString('base64'),
        ALLOW_SANDBOX_PAYMENTS: 'true'
      }
      const closed = await startChild({ ...production, METRICS_TOKEN: '' })
      try {
        assert.equal((await http(closed.url, 'GET', '/metrics')).status, 404)
      } finally {
        await closed.kill('SIGTERM')
      }
      const guarded = await startChild({ ...production, METRICS_TOKEN: 'operator-scrape-token' })
      try {
        assert.equal((await http(guarded.url, 'GET', '/metrics')).status, 401)
        assert.equal(
          (
            await http(guarded.url, 'GET', '/metrics', {
              headers: { authorization: 'Bearer operator-scrape-tokenX' }
            })
          ).status,
          401
        )
        const scraped = await http(guarded.url, 'GET', '/metrics', {
          headers: { authorization: 'Bearer operator-scrape-token' }
        })
        assert.equal(scraped.status, 200)
        assert.match(scraped.body, /^nodejs_eventloop_lag_seconds /m)
        assert.ok(!guarded.output().includes('operator-scrape-token'), 'the token is never logged')
      } finally {
        await guarded.kill('SIGTERM')
      }
    })
  })
})
