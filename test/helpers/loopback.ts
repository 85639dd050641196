// Every test counterpart listens the same way: 127.0.0.1, a free port, and a close() that also ends open,
// keep-alive and deliberately hanging connections.
import type http from 'node:http'
import net, { type AddressInfo } from 'node:net'

export interface Listening {
  port: number
  url: string
  close(): Promise<void>
}

export const listenOnLoopback = async (server: http.Server): Promise<Listening> => {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/** A free TCP port on 127.0.0.1 (for servers that take a port rather than a listening socket). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
