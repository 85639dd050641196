// A sign-in session (src/auth/refresh.ts): one per login, owned by its account, holding the hash of its current
// refresh token. Clients read `id`, when it started and was last used, from where, and when it ends; the hashes and
// the grace box (the pair a just-rotated token answers with) never leave the server.
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'

export const sessionSchema = Type.Object(
  {
    ...serverFields,
    account: IdString(),
    lastUsedAt: Timestamp(),
    /** When the session ends unless refreshed: the idle deadline, never past `createdAt` + the absolute limit. */
    expiresAt: Timestamp(),
    ip: Type.Optional(Text(100)),
    userAgent: Type.Optional(Text(500)),
    /** sha256 (hex) of the current refresh token. */
    refreshHash: Type.String(),
    /** sha256 of the refresh tokens already rotated (the latest first): presenting one ends the session. */
    retiredHashes: Type.Array(Type.String()),
    /** When the current refresh token replaced the previous one. */
    rotatedAt: Type.Optional(Timestamp()),
    /** The pair the previous refresh token answers with during the grace window, encrypted under that token. */
    graceBox: Type.Optional(Type.String())
  },
  { additionalProperties: false }
)
export type Session = Static<typeof sessionSchema>

/** Stored fields that never leave the server. */
export const sessionInternals = ['refreshHash', 'retiredHashes', 'rotatedAt', 'graceBox'] as const

/** A session as clients receive it (the OpenAPI document's result): `current` marks the asking token's. */
export const sessionViewSchema = Type.Object(
  {
    ...Type.Omit(sessionSchema, [...sessionInternals]).properties,
    current: Type.Optional(Type.Boolean())
  },
  { additionalProperties: false }
)

export const sessionQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    account: IdString(),
    createdAt: Type.Number(),
    lastUsedAt: Type.Number(),
    expiresAt: Type.Number()
  })
)

/** What clients see of a session: none of its hashes. */
export const sessionExternalResolver = omittingResolver<Session>(sessionInternals)
