// One share of the sockets bench's listeners (bench/sockets.bench.ts), in its own process: reads one JSON line on
// standard input ({ urls, listeners: [{ token, id, organization? }] }), opens one Feathers Socket.IO client per
// listener (spread over the given server URLs in turn), `CONNECT_AT_ONCE` connecting and authenticating at a time,
// and prints `READY <seconds> <failed>` once every one is signed in (or `FAILED <n>` lines for those that could not be).
// Every listener counts the medical-records `created` events it receives: an event for a record it may not read
// (neither its organization nor its account in the record's permissions) is a leak. On the line STOP it prints one
// JSON line: per record id, how many listeners received it and when the last one did, and the leaks.
import { io, type Socket } from 'socket.io-client'
import { stdinLines } from './stdin-lines'

interface Listener {
  token: string
  id: string
  organization?: string
}

interface Received {
  permissions?: { organization?: string; uid?: string }[]
  id: string
}

const CONNECT_AT_ONCE = Number(process.env.BENCH_CONNECT_AT_ONCE ?? 100)

const lines = stdinLines()

const main = async () => {
  const { urls, listeners } = JSON.parse(await lines()) as { urls: string[]; listeners: Listener[] }
  /** Per record id: [listeners that received it, when the last one did]. */
  const byRecord = new Map<string, [number, number]>()
  let leaks = 0
  let failed = 0
  const sockets: Socket[] = []
  const started = Date.now()
  const connect = async (listener: Listener, index: number) => {
    const socket = io(urls[index % urls.length], {
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
      timeout: 120000
    })
    sockets.push(socket)
    // Feathers' Socket.IO protocol spoken directly (a full Feathers client per connection costs far more memory
    // than the socket itself): `<path> <event>` events, and calls as `create` with the path and a callback.
    socket.on('medical-records created', (record: Received) => {
      const now = Date.now()
      const seen = byRecord.get(record.id)
      if (seen) {
        seen[0] += 1
        seen[1] = now
      } else byRecord.set(record.id, [1, now])
      const readable = record.permissions?.some(
        (element) =>
          (listener.organization && element.organization === listener.organization) ||
          element.uid === listener.id
      )
      if (!readable) leaks += 1
    })
    const error = await new Promise<unknown>((resolve) =>
      socket
        .timeout(120000)
        .emit(
          'create',
          'authentication',
          { strategy: 'jwt', accessToken: listener.token },
          {},
          (timeout: unknown, failure: unknown) => resolve(timeout ?? failure)
        )
    )
    if (error) {
      failed += 1
      process.stdout.write(`FAILED ${JSON.stringify(error).slice(0, 200)}\n`)
    }
  }
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(CONNECT_AT_ONCE, listeners.length) }, async () => {
      while (next < listeners.length) {
        const index = next++
        await connect(listeners[index], index)
      }
    })
  )
  process.stdout.write(`READY ${(Date.now() - started) / 1000} ${failed}\n`)
  while ((await lines()) !== 'STOP');
  process.stdout.write(JSON.stringify({ leaks, failed, records: [...byRecord.entries()] }) + '\n')
  for (const socket of sockets) socket.disconnect()
  process.exit(0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
