// The `session-ended` event the server sends before cutting a session's sockets is shared with the typed client,
// so it is declared in the base layer (src/schema/session-ended.shared.ts).
export * from '../schema/session-ended.shared'
