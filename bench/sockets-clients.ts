// One share of the sockets bench's listeners (bench/sockets.bench.ts), in its own process: reads one JSON line on
// standard input ({ urls, listeners: [{ token, id, organization? }] }), opens one Socket.IO connection per listener
// (spread over the given server URLs in turn), `CONNECT_AT_ONCE` connecting and authenticating at a time, and prints
// `READY <seconds> <failed>` once every one is signed in (or `FAILED <n>` lines for those that could not be).
// Every listener counts the medical-records `created` events it receives: an event for a record it may not read
// (neither its organization nor its account in the record's permissions) is a leak. On the line STOP it prints one
// JSON line: per record id, how many listeners received it and when the last one did, and the leaks.
//
// The listeners are the load generator, sharing the machine with the server they measure, so each is as cheap as
// a Socket.IO client can be: a WebSocket speaking the Engine.IO 4 / Socket.IO 5 wire protocol and Feathers' calls
// directly (open, connect, answer pings, one `create` on `authentication` with an acknowledgement, events). The
// server encodes an event once for all its readers, so this process decodes each distinct frame once, not once per
// listener (a full socket.io-client per connection parses every frame it receives).
import WebSocket from 'ws'
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
const TIMEOUT_MS = 120_000
// Engine.IO packet types (first character) and Socket.IO packet types (second, inside a message).
const OPEN = '0'
const PING = '2'
const PONG = '3'
const CONNECT = '40'
const EVENT = '42'
const CONNECT_ERROR = '44'
const AUTH_ACK = '431'
const CREATED = `${EVENT}["medical-records created",`

const lines = stdinLines()

/** Each distinct event frame decoded once per process (the last few hundred kept). */
const decoder = () => {
  const decoded = new Map<string, Received>()
  return (frame: string): Received => {
    let record = decoded.get(frame)
    if (!record) {
      record = (JSON.parse(frame.slice(EVENT.length)) as [string, Received])[1]
      if (decoded.size >= 500) decoded.clear()
      decoded.set(frame, record)
    }
    return record
  }
}

const main = async () => {
  const { urls, listeners } = JSON.parse(await lines()) as { urls: string[]; listeners: Listener[] }
  /** Per record id: [listeners that received it, when the last one did]. */
  const byRecord = new Map<string, [number, number]>()
  const decode = decoder()
  let leaks = 0
  let failed = 0
  const sockets: WebSocket[] = []
  const started = Date.now()

  const received = (listener: Listener, frame: string) => {
    const now = Date.now()
    const record = decode(frame)
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
  }

  /** Opens and authenticates one listener; resolves with the failure, or undefined once signed in. */
  const connect = (listener: Listener, index: number) =>
    new Promise<unknown>((resolve) => {
      const url = `${urls[index % urls.length].replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`
      const socket = new WebSocket(url, { perMessageDeflate: false })
      sockets.push(socket)
      let settled = false
      const settle = (failure: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(failure)
      }
      const timer = setTimeout(() => settle(`no answer in ${TIMEOUT_MS} ms`), TIMEOUT_MS)
      socket.on('message', (data: Buffer) => {
        const frame = data.toString()
        if (frame.startsWith(CREATED)) return received(listener, frame)
        if (frame === PING) return socket.send(PONG)
        if (frame.startsWith(CONNECT)) {
          // Connected to the default namespace: sign in as Feathers' client does.
          const call = ['create', 'authentication', { strategy: 'jwt', accessToken: listener.token }, {}]
          return socket.send(`${EVENT}1${JSON.stringify(call)}`)
        }
        if (frame.startsWith(AUTH_ACK)) {
          const [error] = JSON.parse(frame.slice(AUTH_ACK.length)) as [unknown, unknown]
          return settle(error ?? undefined)
        }
        if (frame.startsWith(CONNECT_ERROR)) return settle(frame.slice(CONNECT_ERROR.length))
        if (frame.startsWith(OPEN)) socket.send(CONNECT)
      })
      socket.on('error', (error) => settle(error.message))
      socket.on('close', (code) => settle(`closed (${code})`))
    })

  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(CONNECT_AT_ONCE, listeners.length) }, async () => {
      while (next < listeners.length) {
        const index = next++
        const error = await connect(listeners[index], index)
        if (error) {
          failed += 1
          process.stdout.write(`FAILED ${JSON.stringify(error).slice(0, 200)}\n`)
        }
      }
    })
  )
  process.stdout.write(`READY ${(Date.now() - started) / 1000} ${failed}\n`)
  while ((await lines()) !== 'STOP');
  process.stdout.write(JSON.stringify({ leaks, failed, records: [...byRecord.entries()] }) + '\n')
  for (const socket of sockets) socket.terminate()
  process.exit(0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
