// The organization-invitations service: a superadmin invites by email; the invitee, signed in with that address,
// applies the mailed code (`accept`) and becomes a member through the organization-members service (its rules
// and its audit: `member-add`). One invitation per organization and address: inviting again replaces its code,
// roles, privileges and expiry. The code carries 100 random bits, is stored only as its SHA-256, and is
// single-use: the invitation is claimed by a conditional update before the membership is written.
import crypto from 'node:crypto'
import { BadGateway, BadRequest, Conflict, Forbidden, NotFound } from '@feathersjs/errors'
import type { Params } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import { createAuthMessenger } from '../../auth/messages'
import { authSettings } from '../../auth/settings'
import { normalizeEmail } from '../../auth/accounts'
import { formatDuration } from '../../appointments/zone'
import { ResourceService } from '../resource'
import type { Invitation as InvitationDoc } from './organization-invitations.schema'
import {
  organizationInvitationPath,
  type Invitation,
  type InvitationAccepted,
  type InvitationData,
  type InvitationQuery
} from './organization-invitations.shared'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ' // Crockford base32: no I, L, O, U
const CODE_LENGTH = 20 // 20 × 5 = 100 bits

const newCode = () => {
  let out = ''
  for (let i = 0; i < CODE_LENGTH; i++) out += ALPHABET[crypto.randomInt(ALPHABET.length)]
  return out.match(/.{5}/g)!.join('-')
}
/** Dashes and spaces are only for reading: the code is compared without them, in capitals. */
const canonical = (code: string) => code.replace(/[\s-]/g, '').toUpperCase()
const hashOf = (code: string) =>
  crypto
    .createHash('sha256')
    .update(`organization-invitation:${canonical(code)}`)
    .digest('hex')

const codeError = (message: string) =>
  new BadRequest(`The invitation code ${message}`, { errors: [{ field: 'code', message }] })

/** What clients see of a stored invitation. */
export const invitationView = (doc: Stored<InvitationDoc>): Invitation => {
  const { codeHash: _hash, ...view } = doc
  return view
}

export const getOptions = (): StoreOptions => ({
  name: 'organization-invitations',
  indexes: [{ fields: { organization: 1, email: 1 }, unique: true }, { fields: { codeHash: 1 } }]
})

type InviteParams = StoreParams<InvitationQuery> & { account?: { id?: string; email?: string } }

export class OrganizationInvitationService extends ResourceService<
  Stored<InvitationDoc>,
  InvitationData,
  never,
  InvitationQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, organizationInvitationPath, getOptions())
  }

  private async sendInvitation(invitation: Stored<InvitationDoc>, code: string) {
    const organization = await this.deps.stores.organizations._get(invitation.organization)
    const lifetime = formatDuration(this.deps.settings.get('invitations').expiresInMs)
    const messenger = createAuthMessenger(authSettings(this.deps.settings).messaging)
    const subject = `Invitation to join ${organization.name}`
    await messenger.send({
      to: { email: invitation.email },
      subject,
      text: [
        subject,
        '',
        `You are invited to join ${organization.name} as a member of its staff.`,
        `Sign up or sign in to the console with this email address (${invitation.email}), open "Join a facility" and enter this code:`,
        '',
        `code: ${code}`,
        '',
        `The code can be used once and expires in ${lifetime}. If you did not expect this invitation, ignore this message.`
      ].join('\n')
    })
  }

  /** Invites `email` (or invites again: a new code replaces the old one) and mails the code. */
  async create(data: InvitationData, params?: InviteParams): Promise<Stored<InvitationDoc>> {
    return this.write(
      'create',
      null,
      params,
      async () => {
        const email = normalizeEmail(data.email) as string
        const now = this.deps.clock.now()
        const [account] = await this.deps.stores.accounts._find({
          query: { email, $limit: 1 },
          paginate: false
        })
        if (account) {
          const members = await this.deps.stores.members._find({
            query: { organization: data.organization, uid: account.id, $limit: 1 },
            paginate: false
          })
          if (members.length)
            throw new Conflict('This address belongs to a member of the organization already', {
              errors: [{ field: 'email', message: 'is already a member' }]
            })
        }
        const code = newCode()
        const fields = {
          roles: data.roles ?? [],
          privileges: data.privileges ?? [],
          status: 'pending' as const,
          expiresAt: now + this.deps.settings.get('invitations').expiresInMs,
          codeHash: hashOf(code),
          createdAt: now,
          createdBy: params?.account?.id ?? null
        }
        const [existing] = await this._find({
          query: { organization: data.organization, email, $limit: 1 },
          paginate: false
        })
        if (existing) {
          // Replaced unless it is being accepted right now (then that acceptance decides).
          await this._remove(existing.id, { query: { status: { $ne: 'accepting' } } }).catch(
            (error: unknown) => {
              if (error instanceof NotFound)
                throw new Conflict('The invitation is being accepted right now', {
                  errors: [{ field: 'email', message: 'is accepting this invitation right now' }]
                })
              throw error
            }
          )
        }
        const stored = await this._create({ organization: data.organization, email, ...fields })
        try {
          await this.sendInvitation(stored, code)
        } catch (error) {
          // Nobody got this code: the invitation is withdrawn (nothing half-written).
          await this._remove(stored.id, { query: { codeHash: stored.codeHash } }).catch(() => undefined)
          this.deps.logger.warn(
            `The invitation message could not be sent: ${error instanceof Error ? error.message : String(error)}`
          )
          throw new BadGateway('The invitation message could not be sent; try again later')
        }
        return stored
      },
      data
    )
  }

  /** The invitee applies the code: checked, claimed once, then the membership is created and the invitation accepted. */
  async accept(data: unknown, params?: Params & { account?: { id?: string; email?: string } }) {
    const code = checkAcceptBody(data)
    const accountId = params?.account?.id
    if (!accountId) throw new Forbidden('Sign in with the invited address to accept an invitation')
    const [invitation] = await this._find({ query: { codeHash: hashOf(code), $limit: 1 }, paginate: false })
    if (!invitation) throw codeError('is not valid')
    const account = await this.deps.stores.accounts._get(accountId)
    if (normalizeEmail(account.email) !== invitation.email)
      throw new Forbidden(
        'This invitation is for another email address: sign in with the address the invitation was sent to',
        { errors: [{ field: 'code', message: 'is for another email address' }] }
      )
    if (invitation.status !== 'pending') throw codeError('has already been used')
    await this.deps.stores.organizations._get(invitation.organization).catch(() => {
      throw codeError('is for an organization that no longer exists')
    })
    if (invitation.expiresAt <= this.deps.clock.now())
      throw codeError('has expired; ask the facility to invite you again')
    try {
      await this._patch(
        invitation.id,
        { status: 'accepting' },
        { query: { status: 'pending', codeHash: invitation.codeHash } }
      )
    } catch (error) {
      if (error instanceof NotFound) throw codeError('has already been used')
      throw error
    }
    let member
    try {
      member = await this.app.service('organization-members').create(
        {
          organization: invitation.organization,
          uid: accountId,
          roles: invitation.roles,
          privileges: invitation.privileges
        },
        { account: params?.account } as never
      )
    } catch (error) {
      await this._patch(invitation.id, { status: 'pending' }).catch(() => undefined)
      if (error instanceof Conflict)
        throw new Conflict('You are a member of this organization already', {
          errors: [{ field: 'code', message: 'is for an organization you are a member of' }]
        })
      throw error
    }
    const accepted = await this._patch(invitation.id, {
      status: 'accepted',
      acceptedAt: this.deps.clock.now(),
      acceptedBy: accountId
    })
    await this.deps.announce(organizationInvitationPath, 'patched', accepted)
    const answer: InvitationAccepted = { invitation: invitationView(accepted), member }
    return answer
  }
}

/** `{ code }` and nothing else: a 400 naming the field otherwise. */
const checkAcceptBody = (data: unknown): string => {
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new BadRequest('The body must be an object { code }', {
      errors: [{ field: 'code', message: 'is required' }]
    })
  const extra = Object.keys(data).filter((key) => key !== 'code')
  if (extra.length)
    throw new BadRequest(`Unknown field '${extra[0]}'`, {
      errors: [{ field: extra[0], message: 'is not allowed' }]
    })
  const { code } = data as { code?: unknown }
  if (typeof code !== 'string' || !code.trim()) throw codeError('is required')
  if (code.length > 100) throw codeError('is not valid')
  return code
}
