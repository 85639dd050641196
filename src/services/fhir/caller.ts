// Who calls a /fhir route, and the params that make a service call "as that caller": the bearer token verified by
// the authentication service exactly as for a REST call (expired, revoked or ended sessions refused alike), the
// account and its access context, and the call's circumstances (provider `rest`, address, agent, request id) so
// that every service applies its access rules and records its audit events as for the caller's own REST call.
import { NotAuthenticated } from '@feathersjs/errors'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application, AppParams } from '../../declarations'
import type { Stored } from '../../schema/resolvers'
import type { Account } from '../accounts/accounts.schema'
import { loadAccessContext, type AccessContext } from '../../access/context'

export interface Caller {
  account: Stored<Account>
  access: AccessContext
  /** Params for `app.service(path).<method>(…, params)` as this caller over REST. */
  params: AppParams
}

interface KoaFeathers {
  authentication?: { strategy?: string; accessToken?: string }
  ip?: string
  userAgent?: string
  requestId?: string
  requestLog?: { account?: string }
}

/** The caller of a request with a bearer token; a missing or invalid token is a 401. */
export const authenticateCaller = async (app: Application, ctx: FeathersKoaContext): Promise<Caller> => {
  const feathers = (ctx.feathers ?? {}) as KoaFeathers
  const authentication = feathers.authentication
  if (!authentication?.accessToken || authentication.strategy !== 'jwt')
    throw new NotAuthenticated('Send an access token: Authorization: Bearer <token>')
  const circumstances = {
    provider: 'rest',
    ip: feathers.ip,
    userAgent: feathers.userAgent,
    requestId: feathers.requestId
  }
  const result = (await app
    .service('authentication')
    .authenticate(
      { strategy: 'jwt', accessToken: authentication.accessToken },
      { ...circumstances, authentication },
      'jwt'
    )) as { account?: Stored<Account> }
  const account = result.account
  if (!account) throw new NotAuthenticated('Not authenticated')
  if (feathers.requestLog) feathers.requestLog.account = account.id
  const access = await loadAccessContext(app, account)
  return {
    account,
    access,
    params: { ...circumstances, authentication, authenticated: true, account, access }
  }
}
