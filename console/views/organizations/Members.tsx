// The current facility's members and invitations. Superadmins invite by email (the invitee gets a message with a
// code and joins from "Join a facility"), see the pending invitations (withdraw, send again), change a member's
// roles and privileges (checkboxes with their meaning) and remove members with an inline confirmation; every
// member may leave. Lists follow the server's events (a member who joins appears at once).
import {
  client,
  errorMessage,
  loadOrganizations,
  useLive,
  useSession,
  when,
  type Member
} from '../../lib/api'
import { navigate } from '../../lib/router'
import { ConfirmButton, EmptyState, ErrorText, Field, Form, Status, Table } from '../../components'
import type { Invitation } from '../../../src/services/organization-invitations/organization-invitations.shared'
import { GrantChecks, checked, grantLabel } from './grants'
import { useState } from 'preact/hooks'

const grantsText = (m: { roles: string[]; privileges: string[]; superadmin?: boolean }) =>
  [m.superadmin ? 'Superadmin' : '', ...m.privileges.map(grantLabel), ...m.roles.map(grantLabel)]
    .filter(Boolean)
    .join(', ') || 'No roles or privileges'

export function Members(_props: { params: Record<string, string> }) {
  const session = useSession()
  const facility = session.current
  const name = session.organizationName(facility)
  const manage = !!facility && session.isSuperadmin(facility)
  const members = useLive<Member>(
    'organization-members',
    facility ? { organization: facility, $limit: 200 } : null
  )
  const invitations = useLive<Invitation>(
    'organization-invitations',
    manage ? { organization: facility, $limit: 200, $sort: { createdAt: -1 } } : null
  )
  const [done, setDone] = useState('')
  if (!facility)
    return (
      <section>
        <h1>Members</h1>
        <EmptyState title="You are not a member of any facility yet.">
          <p>
            A facility's superadmin can invite you by email. When the message arrives, open{' '}
            <a href="#/join">Join a facility</a> and enter its code.
          </p>
        </EmptyState>
      </section>
    )
  const me = session.account?.id
  // Members are shown by their name (the server adds it to each member), with the address they were invited at
  // when the superadmin's list of invitations has it.
  const emailOf = (uid: string) =>
    uid === me ? session.account?.email : invitations.data.find((i) => i.acceptedBy === uid)?.email
  const nameOf = (m: Member) => {
    const email = emailOf(m.uid)
    if (m.name && email) return `${m.name} (${email})`
    return m.name ?? email
  }
  const pending = invitations.data.filter((i) => i.status === 'pending')
  const now = Date.now()

  const invite = async (data: FormData) => {
    const email = String(data.get('email') ?? '').trim()
    await client.service('organization-invitations').create({
      organization: facility,
      email,
      roles: checked(data, 'roles'),
      privileges: checked(data, 'privileges')
    })
    setDone(`Invitation sent to ${email}.`)
  }

  return (
    <section>
      <h1>Members of {name}</h1>
      <Status>{done}</Status>
      <ErrorText message={members.error} />
      <Table<Member>
        id="members"
        caption={`${members.total} member${members.total === 1 ? '' : 's'}`}
        rows={members.data}
        rowKey={(m) => m.id}
        rowAttributes={(m) => ({ 'data-uid': m.uid })}
        columns={[
          {
            label: 'Member',
            cell: (m) =>
              m.uid === me ? `You (${nameOf(m) ?? ''})` : (nameOf(m) ?? 'A member without a name')
          },
          { label: 'Roles and privileges', cell: (m) => grantsText(m) },
          { label: 'Member since', cell: (m) => when(m.createdAt) },
          {
            label: 'Actions',
            cell: (m) => (
              <div class="actions">
                {manage && (
                  <details>
                    <summary>Change roles and privileges</summary>
                    <Form
                      title={`Roles and privileges of ${m.uid === me ? 'you' : (m.name ?? emailOf(m.uid) ?? 'this member')}`}
                      submitLabel="Save"
                      reset={false}
                      success="Saved."
                      onSubmit={async (data) => {
                        await client.service('organization-members').patch(m.id, {
                          roles: checked(data, 'roles'),
                          privileges: checked(data, 'privileges'),
                          superadmin: data.get('superadmin') === 'yes'
                        })
                      }}
                    >
                      <GrantChecks roles={m.roles} privileges={m.privileges} superadmin={m.superadmin} />
                    </Form>
                  </details>
                )}
                {(manage || m.uid === me) && (
                  <ConfirmButton
                    class="secondary danger"
                    question={
                      m.uid === me
                        ? `You will leave ${name}: you lose access to its patients, billing and settings at once, and only a superadmin can invite you back.`
                        : `${m.name ?? emailOf(m.uid) ?? 'This member'} loses access to ${name} at once.`
                    }
                    confirmLabel={m.uid === me ? 'Leave' : 'Remove'}
                    onConfirm={async () => {
                      await client.service('organization-members').remove(m.id)
                      if (m.uid === me) {
                        await loadOrganizations()
                        navigate('/account')
                      }
                    }}
                  >
                    {m.uid === me ? 'Leave this facility' : 'Remove'}
                  </ConfirmButton>
                )}
              </div>
            )
          }
        ]}
      />
      {manage && (
        <>
          <h2>Invitations</h2>
          <ErrorText message={invitations.error} />
          {pending.length === 0 ? (
            <EmptyState title="No pending invitations.">
              <p>Invite someone below: they get a message with a code that lets them join.</p>
            </EmptyState>
          ) : (
            <Table<Invitation>
              id="invitations"
              caption="Pending invitations"
              rows={pending}
              rowKey={(i) => i.id}
              rowAttributes={(i) => ({ 'data-email': i.email })}
              columns={[
                { label: 'Email', cell: (i) => i.email },
                { label: 'Roles and privileges', cell: (i) => grantsText(i) },
                {
                  label: 'Expires',
                  cell: (i) => (i.expiresAt <= now ? `Expired on ${when(i.expiresAt)}` : when(i.expiresAt))
                },
                {
                  label: 'Actions',
                  cell: (i) => (
                    <div class="actions">
                      <ResendButton invitation={i} onSent={setDone} />
                      <ConfirmButton
                        class="secondary danger"
                        question={`The code sent to ${i.email} stops working.`}
                        confirmLabel="Withdraw"
                        onConfirm={async () => {
                          await client.service('organization-invitations').remove(i.id)
                          setDone(`Invitation to ${i.email} withdrawn.`)
                        }}
                      >
                        Withdraw
                      </ConfirmButton>
                    </div>
                  )
                }
              ]}
            />
          )}
          <Form
            id="invite-form"
            title="Invite a member by email"
            heading="h3"
            submitLabel="Send invitation"
            onSubmit={invite}
          >
            <Field
              label="Email address"
              name="email"
              type="email"
              required
              autoComplete="off"
              hint="They sign up or sign in with this address and enter the code from the message. It works once, for seven days."
            />
            <GrantChecks />
          </Form>
        </>
      )}
    </section>
  )
}

function ResendButton({ invitation, onSent }: { invitation: Invitation; onSent: (text: string) => void }) {
  const [error, setError] = useState('')
  return (
    <span>
      <button
        type="button"
        class="secondary"
        onClick={async () => {
          setError('')
          try {
            await client.service('organization-invitations').create({
              organization: invitation.organization,
              email: invitation.email,
              roles: invitation.roles,
              privileges: invitation.privileges
            })
            onSent(`A new code was sent to ${invitation.email}; the earlier one no longer works.`)
          } catch (e) {
            setError(errorMessage(e))
          }
        }}
      >
        Send again
      </button>
      <ErrorText message={error} />
    </span>
  )
}
