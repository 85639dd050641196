// Socket.IO answers every call: Feathers listens only for the method names some service offers, so a call of
// every other name (`update` here, which no service exposes, or a made-up one) would never be answered and the
// client would wait for its timeout. Such calls get the same 405 MethodNotAllowed as over REST.
import { MethodNotAllowed } from '@feathersjs/errors'
import type { Server, Socket } from 'socket.io'
import type { RealTimeConnection } from '@feathersjs/feathers'
import type { CombinedChannel } from '@feathersjs/transport-commons'
import { isDeepStrictEqual } from 'node:util'
import type { Application, HookContext } from './declarations'

export const answerUnknownMethods = (io: Server) => {
  io.on('connection', (socket: Socket) => {
    socket.onAny((event: string, ...args: unknown[]) => {
      const callback = args[args.length - 1]
      if (typeof callback !== 'function' || socket.listeners(event).length > 0) return
      callback(new MethodNotAllowed(`Method '${String(event).slice(0, 50)}' is not allowed`).toJSON())
    })
  })
}

/**
 * Sends each event to the connections its publisher chose with one encoding per distinct payload: Feathers' own
 * dispatcher emits to every socket separately, so Socket.IO serialized the same document once per reader; here the
 * connections that get the same payload are one broadcast (`io.to(their socket ids)`, encoded once, written to
 * each). Who receives what is unchanged: exactly the connections of the publisher's channel (each in its own room,
 * the socket id), with the payload Feathers would have chosen for it (`channel.dataFor(connection)`, else the
 * call's dispatch, else its result).
 */
export const sendEventsEncodedOnce = (app: Application, io: Server) => {
  const sockets = new WeakMap<RealTimeConnection, Socket>()
  io.on('connection', (socket: Socket) => {
    const connection = (socket as Socket & { feathers?: RealTimeConnection }).feathers
    if (connection) sockets.set(connection, socket)
  })
  // (the listener the Socket.IO transport registered; this one replaces it)
  for (const listener of app.listeners('publish')) app.removeListener('publish', listener as never)
  app.on('publish', (event: string, channel: CombinedChannel, context: HookContext, data: unknown) => {
    const eventName = `${context.path || ''} ${event}`.trim()
    const byPayload = new Map<unknown, string[]>()
    for (const connection of channel.connections) {
      const socket = sockets.get(connection)
      if (!socket) continue
      let payload: unknown = channel.dataFor(connection) || context.dispatch || context.result
      // An event of one item of a multi-item call: that item (as Feathers' dispatcher picks it).
      if (!Array.isArray(data) && Array.isArray(context.result) && Array.isArray(payload))
        payload = payload.find((item: unknown) => isDeepStrictEqual(item, data))
      const ids = byPayload.get(payload)
      if (ids) ids.push(socket.id)
      else byPayload.set(payload, [socket.id])
    }
    for (const [payload, ids] of byPayload) io.to(ids).emit(eventName, payload)
  })
}
