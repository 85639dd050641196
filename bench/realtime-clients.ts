// The listeners of the realtime bench (bench/realtime.bench.ts), in their own process so that 500 Socket.IO
// clients do not share the server's event loop: connects one Feathers client per account given on the command
// first line of its standard input (JSON: url and [{ token, organization }]), each listening to medical-records `created`; prints READY when
// all are signed in; on the line STOP prints what each received (counts, and events about another
// organization's records — leaks) as JSON and exits.
import { io } from 'socket.io-client'
import socketioClient from '@feathersjs/socketio-client'
import { createClient } from '../src/client'
import { stdinLines } from './stdin-lines'

interface Listener {
  token: string
  organization: string
}

const lines = stdinLines()

const main = async () => {
  const { url, listeners } = JSON.parse(await lines()) as { url: string; listeners: Listener[] }
  let received = 0
  let leaks = 0
  let first = 0
  let last = 0
  const sockets = await Promise.all(
    listeners.map(async (listener) => {
      const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false })
      const client = createClient(socketioClient(socket, { timeout: 60000 }))
      await client.authenticate({ strategy: 'jwt', accessToken: listener.token })
      client
        .service('medical-records')
        .on('created', (record: { permissions?: { organization?: string }[] }) => {
          received += 1
          const now = Date.now()
          first ||= now
          last = now
          if (!record.permissions?.some((element) => element.organization === listener.organization))
            leaks += 1
        })
      return socket
    })
  )
  process.stdout.write('READY\n')
  while ((await lines()) !== 'STOP');
  {
    process.stdout.write(JSON.stringify({ received, leaks, firstAt: first, lastAt: last }) + '\n')
    for (const socket of sockets) socket.disconnect()
    process.exit(0)
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
