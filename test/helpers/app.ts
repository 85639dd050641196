// Starts the app as clients meet it: on 127.0.0.1, a free port, a temporary data dir (or a fresh MongoDB
// database when MONGODB_URL is set), and gives REST and Socket.IO clients for it.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Server } from 'node:http'
import socketioClient from '@feathersjs/socketio-client'
import { createClient } from '../../src/client'
import { io } from 'socket.io-client'
import { MongoClient } from 'mongodb'
import { createApp } from '../../src/app'
import type { Application } from '../../src/declarations'
import type { ConfigurationOverrides } from '../../src/configuration'

export interface TestServer {
  app: Application
  url: string
  port: number
  dataDir: string
  /** Stops the app; `keep` leaves its data (data dir / MongoDB database) for a restart. */
  close(options?: { keep?: boolean }): Promise<void>
}

/** A fresh MongoDB database URL for one test server, or '' on the embedded engine. */
export const testMongoUrl = () => {
  const base = process.env.MONGODB_URL
  if (!base) return ''
  const url = new URL(base)
  url.pathname = `/clinic_test_${crypto.randomBytes(6).toString('hex')}`
  return url.toString()
}

export const tempDir = (prefix = 'clinic-test-') => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export const startServer = async (overrides: ConfigurationOverrides = {}): Promise<TestServer> => {
  const dataDir = overrides.dataDir ?? tempDir()
  const mongodb = overrides.mongodb ?? testMongoUrl()
  const app = createApp({ host: '127.0.0.1', port: 0, logLevel: 'error', ...overrides, dataDir, mongodb })
  const server: Server = await app.listen(0, '127.0.0.1')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    app,
    port,
    dataDir,
    url: `http://127.0.0.1:${port}`,
    async close(options: { keep?: boolean } = {}) {
      await app.teardown()
      if (options.keep) return
      if (mongodb) {
        const client = await MongoClient.connect(mongodb)
        await client.db().dropDatabase()
        await client.close()
      }
      if (!overrides.dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

export interface HttpResult<T = any> {
  status: number
  body: T
  headers: Headers
}

/** A REST call as a client makes it; JSON in and out. */
export const http = async <T = any>(
  base: string,
  method: string,
  urlPath: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string } = {}
): Promise<HttpResult<T>> => {
  const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) }
  let body: string | undefined = options.raw
  if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] = headers['content-type'] ?? 'application/json'
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  const response = await fetch(base + urlPath, { method, headers, body })
  const text = await response.text()
  let parsed: any = text
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers }
}

/** A client bound to one server (and optionally one access token). */
export const restClient = (base: string, token?: string) => ({
  get: (p: string, o: { token?: string } = {}) => http(base, 'GET', p, { token: o.token ?? token }),
  post: (p: string, body?: unknown, o: { token?: string } = {}) =>
    http(base, 'POST', p, { body, token: o.token ?? token }),
  patch: (p: string, body?: unknown, o: { token?: string } = {}) =>
    http(base, 'PATCH', p, { body, token: o.token ?? token }),
  put: (p: string, body?: unknown, o: { token?: string } = {}) =>
    http(base, 'PUT', p, { body, token: o.token ?? token }),
  delete: (p: string, o: { token?: string } = {}) => http(base, 'DELETE', p, { token: o.token ?? token })
})

let counter = 0
export const uniqueEmail = (prefix = 'user') =>
  `${prefix}-${Date.now().toString(36)}-${++counter}@example.test`

export interface SignedUp {
  account: any
  token: string
  email: string
  password: string
  organization?: any
}

/** Signs up over HTTP and logs in; with `organization` the account becomes its superadmin. */
export const signUp = async (base: string, extra: Record<string, unknown> = {}): Promise<SignedUp> => {
  const email = (extra.email as string) ?? uniqueEmail()
  const password = (extra.password as string) ?? 'correct horse battery'
  const created = await http(base, 'POST', '/accounts', { body: { email, password, ...extra } })
  if (created.status !== 201)
    throw new Error(`sign-up failed: ${created.status} ${JSON.stringify(created.body)}`)
  const login = await http(base, 'POST', '/authentication', { body: { email, password } })
  if (login.status !== 201) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`)
  return {
    account: login.body.account,
    token: login.body.accessToken,
    email,
    password,
    organization: created.body.organization
  }
}

/** A Feathers client over Socket.IO, as browser apps use it. */
export const socketClient = (base: string) => {
  const socket = io(base, { transports: ['websocket'], forceNew: true, reconnection: false })
  const client = createClient(socketioClient(socket, { timeout: 10000 }))
  return { client, socket, close: () => socket.disconnect() }
}

/**
 * What a Socket.IO client sees when its session ends on the server, in order: `logout <reason>` (the typed
 * client's `logout` event carrying the server's `session-ended` reason) and `disconnect`.
 */
export const recordSessionEnd = (connection: ReturnType<typeof socketClient>) => {
  const seen: string[] = []
  connection.client.on('logout', (result: any) => seen.push(`logout ${result?.reason}`))
  connection.socket.on('disconnect', () => seen.push('disconnect'))
  return seen
}

/** Collects the events a client receives from one service. */
export const recordEvents = (
  client: any,
  servicePath: string,
  events = ['created', 'updated', 'patched', 'removed']
) => {
  const received: { event: string; data: any }[] = []
  for (const event of events)
    client.service(servicePath).on(event, (data: any) => received.push({ event, data }))
  return received
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves when `predicate` holds, polling; rejects after `timeoutMs`. */
export const waitUntil = async (
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition'
) => {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (await predicate()) return
    await sleep(20)
  }
  throw new Error(`Timed out waiting for ${what}`)
}

/** The error a call is refused with (fails the test when the call succeeds). */
export const refusal = async (call: Promise<unknown>): Promise<any> => {
  try {
    await call
  } catch (error: any) {
    return error // `any`: Feathers errors arrive over the wire untyped
  }
  assert.fail('the call was expected to be refused')
}
