// The caller's IP address in every service call's params (`params.ip`), for REST and Socket.IO alike, so
// per-IP rate limits apply to both transports. Behind a reverse proxy set TRUST_PROXY=true so the first
// X-Forwarded-For address is used; otherwise it is the peer address and the header is ignored.
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Server, Socket } from 'socket.io'

declare module '@feathersjs/feathers' {
  interface Params {
    /** The client's IP address (REST and Socket.IO calls; absent on internal calls). */
    ip?: string
  }
}

export const clientIpForRest = () => async (ctx: FeathersKoaContext, next: () => Promise<any>) => {
  ctx.feathers = { ...ctx.feathers, ip: ctx.ip }
  await next()
}

export const clientIpForSockets = (trustProxy: boolean) => (io: Server) => {
  io.use((socket: Socket, next) => {
    const forwarded = trustProxy ? String(socket.handshake.headers['x-forwarded-for'] ?? '').split(',')[0].trim() : ''
    // Mutated in place: Feathers keys its connection map by this very object.
    const params = (socket as any).feathers
    if (params) params.ip = forwarded || socket.handshake.address
    next()
  })
}
