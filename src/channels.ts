// Realtime: an authenticated connection joins channels for its account and its organizations; every service
// event is published only to connections whose caller could read the document through the API (the
// service's `read` rule, src/access/rules.ts). Anonymous connections receive nothing. An event of an audited
// service is sent once its delivery to these connections is in the audit trail (src/audit/realtime.ts).
import type { Params, RealTimeConnection } from '@feathersjs/feathers'
import type { AuthenticationResult } from '@feathersjs/authentication'
import '@feathersjs/transport-commons'
import type { Application, HookContext } from './declarations'
import type { Member } from './services/organization-members/organization-members.schema'
import { loadAccessContext } from './access/context'
import { accessRules, matches } from './access/rules'
import { logger } from './logger'
import { getDispatchValue } from '@feathersjs/schema'
import { forgetAuditWatch, rejoinAuditWatchers } from './audit/watchers'
import { recordRealtimeDelivery } from './audit/realtime'

const joinChannels = async (app: Application, connection: RealTimeConnection) => {
  const account = connection.account
  if (!account) return
  const access = await loadAccessContext(app, account)
  // The session may have ended (src/auth/sessions.ts) or changed while the access context was loading.
  if (connection.account !== account) return
  connection.channelAccess = access
  for (const channel of app.channels) app.channel(channel).leave(connection)
  app.channel('authenticated').join(connection)
  app.channel(`accounts/${account.id}`).join(connection)
  if (access.admin) app.channel('admins').join(connection)
  for (const membership of access.memberships)
    app.channel(`organizations/${membership.organization}`).join(connection)
  rejoinAuditWatchers(app, connection)
}

export const channels = (app: Application) => {
  app.on('login', (result: AuthenticationResult | undefined, { connection }: Params) => {
    // Authentication actions (no account in the result) leave the connection as it is.
    if (!connection || !result?.account) return
    connection.account = result.account
    joinChannels(app, connection).catch((error) => logger.error('Joining channels failed:', error))
  })

  app.on('logout', (_result: unknown, { connection }: Params) => {
    if (!connection) return
    for (const channel of app.channels) app.channel(channel).leave(connection)
    delete connection.channelAccess
    delete connection.account
    forgetAuditWatch(connection)
  })

  // Membership changes take effect on open connections at once.
  const refresh = (member: Member) => {
    for (const connection of app.channel(`accounts/${member.uid}`).connections) {
      joinChannels(app, connection).catch((error) => logger.error('Refreshing channels failed:', error))
    }
  }
  const members = app.service('organization-members')
  members.on('created', refresh)
  members.on('patched', refresh)
  members.on('removed', refresh)

  // Events go out as clients see the document: a service call's `dispatch` (its external resolver's view).
  app.publish(async (result: unknown, context: HookContext) => {
    const data = getDispatchValue(result)
    const rules = accessRules(context.app, context.path)
    if (!rules || !data || typeof data !== 'object') return undefined
    const names = [...new Set([...(rules.audience ? rules.audience(data) : ['authenticated']), 'admins'])]
    const channel = app
      .channel(names)
      .filter(
        (connection: RealTimeConnection) =>
          !!connection.channelAccess && matches(rules.read(connection.channelAccess), data)
      )
    if (rules.audit && channel.length > 0) {
      // The stored document (an event shared by another instance carries it as the context's result).
      const emitted = context?.result
      const stored = emitted && typeof emitted === 'object' && !Array.isArray(emitted) ? emitted : result
      try {
        await recordRealtimeDelivery(app, context.path, rules.audit, stored, channel.connections)
      } catch (error) {
        // A delivery that cannot be recorded is not made.
        logger.error(
          `Recording the realtime delivery of ${context.path} failed; the event is not sent:`,
          error
        )
        return undefined
      }
    }
    return channel
  })
}
