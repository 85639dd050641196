// Socket.IO answers every call: Feathers listens only for the method names some service offers, so a call of
// every other name (`update` here, which no service exposes, or a made-up one) would never be answered and the
// client would wait for its timeout. Such calls get the same 405 MethodNotAllowed as over REST.
import { MethodNotAllowed } from '@feathersjs/errors'
import type { Server, Socket } from 'socket.io'

export const answerUnknownMethods = (io: Server) => {
  io.on('connection', (socket: Socket) => {
    socket.onAny((event: string, ...args: unknown[]) => {
      const callback = args[args.length - 1]
      if (typeof callback !== 'function' || socket.listeners(event).length > 0) return
      callback(new MethodNotAllowed(`Method '${String(event).slice(0, 50)}' is not allowed`).toJSON())
    })
  })
}
