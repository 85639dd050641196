// Two (or more) instances on one store and one Redis, as several instances run behind a load balancer: a real
// redis-server and, unless MONGODB_URL is set, the MongoDB wire emulator, both started here on loopback; a fresh
// database and data folder per use, removed by `stop()` after the instances closed.
import crypto from 'node:crypto'
import fs from 'node:fs'
import { MongoClient } from 'mongodb'
import { startServer, tempDir, testMongoUrl, type TestServer } from './app'
import { startMongoEmulator, type MongoEmulator } from './mongo-emulator'
import { startRedis, type TestRedis } from './redis'
import type { ConfigurationOverrides } from '../../src/configuration'

export interface SharedStore {
  /** The settings every instance shares: the database, the data folder, Redis and its key prefix. */
  shared: { mongodb: string; dataDir: string; redis: string; redisPrefix: string }
  /** Starts two instances on the shared store with `overrides`, one after the other. */
  startPair(overrides?: ConfigurationOverrides): Promise<[TestServer, TestServer]>
  /** Closes the instances started here, drops the database, removes the folder, stops Redis and the emulator. */
  stop(): Promise<void>
}

export const startSharedStore = async (name: string): Promise<SharedStore> => {
  const redis: TestRedis = await startRedis()
  let emulator: MongoEmulator | undefined
  let mongodb: string
  if (process.env.MONGODB_URL) mongodb = testMongoUrl()
  else {
    emulator = await startMongoEmulator()
    const url = new URL(emulator.url)
    url.pathname = `/clinic_${name}_${crypto.randomBytes(6).toString('hex')}`
    mongodb = url.toString()
  }
  const shared = {
    mongodb,
    dataDir: tempDir(`clinic-${name}-pair-`),
    redis: redis.url,
    redisPrefix: `test-${crypto.randomBytes(6).toString('hex')}`
  }
  const started: TestServer[] = []
  return {
    shared,
    async startPair(overrides = {}) {
      const a = await startServer({ ...shared, ...overrides })
      started.push(a)
      const b = await startServer({ ...shared, ...overrides })
      started.push(b)
      return [a, b]
    },
    async stop() {
      for (const server of started) await server.close({ keep: true })
      const client = await MongoClient.connect(mongodb)
      await client.db().dropDatabase()
      await client.close()
      fs.rmSync(shared.dataDir, { recursive: true, force: true })
      await redis.stop()
      await emulator?.stop()
    }
  }
}
