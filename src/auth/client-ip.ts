// The caller's IP address in every service call's params (`params.ip`), for REST and Socket.IO alike, so
// per-IP rate limits apply to both transports. Behind a reverse proxy set TRUST_PROXY=true so the first
// X-Forwarded-For address is used; otherwise it is the peer address and the header is ignored.
// The audit trail also takes the client's User-Agent (`params.userAgent`) and, for REST, a request id
// (`params.requestId`: the client's X-Request-Id when it is a short token, else a new UUID, echoed in the
// response's X-Request-Id); a Socket.IO call gets its request id from the audit hook.
import { randomUUID } from 'node:crypto'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Server, Socket } from 'socket.io'

declare module '@feathersjs/feathers' {
  interface Params {
    /** The client's IP address (REST and Socket.IO calls; absent on internal calls). */
    ip?: string
    /** The client's User-Agent header (REST: the request's; Socket.IO: the handshake's). */
    userAgent?: string
    /** Identifies one call in the audit trail and in the X-Request-Id response header (REST). */
    requestId?: string
  }
}

export const clientIpForRest = () => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
  // Normally given by src/ops/observe.ts (the request log's reqId), which runs first.
  let requestId: string = ctx.state.requestId
  if (typeof requestId !== 'string') {
    const given = ctx.get('x-request-id')
    requestId = /^[A-Za-z0-9._:-]{1,100}$/.test(given) ? given : randomUUID()
    ctx.set('X-Request-Id', requestId)
  }
  const userAgent = ctx.get('user-agent').slice(0, 500) || undefined
  ctx.feathers = { ...ctx.feathers, ip: ctx.ip, userAgent, requestId }
  await next()
}

export const clientIpForSockets = (trustProxy: boolean) => (io: Server) => {
  io.use((socket: Socket, next) => {
    const forwarded = trustProxy
      ? String(socket.handshake.headers['x-forwarded-for'] ?? '')
          .split(',')[0]
          .trim()
      : ''
    // Mutated in place: Feathers keys its connection map by this very object.
    const params = (socket as Socket & { feathers?: Record<string, unknown> }).feathers
    if (params) params.ip = forwarded || socket.handshake.address
    const userAgent = socket.handshake.headers['user-agent']
    if (params && typeof userAgent === 'string' && userAgent) params.userAgent = userAgent.slice(0, 500)
    next()
  })
}
