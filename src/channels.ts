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
import type { AccessContext } from './access/context'
import {
  accessRules,
  compileRule,
  type AccessRules,
  type CompiledConditions,
  type CompiledRule,
  type ConditionResults
} from './access/rules'
import { logger } from './logger'
import { getDispatchValue } from '@feathersjs/schema'
import { AUDIT_WATCHERS, forgetAuditWatch, rejoinAuditWatchers } from './audit/watchers'
import { recordRealtimeDelivery } from './audit/realtime'

// A connection keeps the names of the channels this module made it join (`connection.channelNames`). It is only
// ever in these and the audit watchers' channel (src/audit/watchers.ts), so leaving them is leaving every channel —
// without walking the app's channels, one per signed-in account (that walk made each sign-in cost as much as there
// were accounts online).
const leaveChannels = (app: Application, connection: RealTimeConnection) => {
  // (a channel left empty is dropped)
  for (const name of [...(connection.channelNames ?? []), AUDIT_WATCHERS]) app.channel(name).leave(connection)
  delete connection.channelNames
}

const joinChannels = async (app: Application, connection: RealTimeConnection) => {
  const account = connection.account
  if (!account) return
  const access = await loadAccessContext(app, account)
  // The session may have ended (src/auth/sessions.ts) or changed while the access context was loading.
  if (connection.account !== account) return
  connection.channelAccess = access
  leaveChannels(app, connection)
  const names = ['authenticated', `accounts/${account.id}`]
  if (access.admin) names.push('admins')
  for (const membership of access.memberships) names.push(`organizations/${membership.organization}`)
  for (const name of names) app.channel(name).join(connection)
  connection.channelNames = names
  rejoinAuditWatchers(app, connection)
}

// A connection's read rule of one service, compiled once per access context (a new one is loaded whenever the
// account's memberships change, and the rules depend on nothing else), instead of once per event and reader.
type CompiledReaders = WeakMap<AccessContext, Map<string, CompiledRule>>
const readRuleOf = (
  readers: CompiledReaders,
  conditions: CompiledConditions,
  access: AccessContext,
  path: string,
  rules: AccessRules
) => {
  let byPath = readers.get(access)
  if (!byPath) readers.set(access, (byPath = new Map()))
  let rule = byPath.get(path)
  if (!rule) byPath.set(path, (rule = compileRule(rules.read(access), conditions)))
  return rule
}

export const channels = (app: Application) => {
  // This app's compiled read rules, by access context (dropped with it).
  const readers: CompiledReaders = new WeakMap()
  // Their conditions, compiled once for every reader holding them.
  const conditions: CompiledConditions = new Map()
  app.on('login', (result: AuthenticationResult | undefined, { connection }: Params) => {
    // Authentication actions (no account in the result) leave the connection as it is.
    if (!connection || !result?.account) return
    connection.account = result.account
    joinChannels(app, connection).catch((error) => logger.error('Joining channels failed:', error))
  })

  // A closed connection leaves its channels. (Feathers' own handler, replaced here, left every channel of the app
  // on each disconnect: with one channel per account online, thousands of clients dropping at once — a restart, a
  // network cut — cost the square of their number.)
  for (const listener of app.listeners('disconnect'))
    if (listener.name === 'leaveChannels') app.removeListener('disconnect', listener as never)
  app.on('disconnect', (connection: RealTimeConnection) => leaveChannels(app, connection))

  app.on('logout', (_result: unknown, { connection }: Params) => {
    if (!connection) return
    leaveChannels(app, connection)
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
    // The conditions judged for this event, shared by its readers (see compileRule).
    const known: ConditionResults = new Map()
    const channel = app
      .channel(names)
      .filter(
        (connection: RealTimeConnection) =>
          !!connection.channelAccess &&
          readRuleOf(readers, conditions, connection.channelAccess, context.path, rules)(data, known)
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
