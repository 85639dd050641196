// Joining a facility with the code of an invitation: the person signs in (or signs up) with the invited address
// and enters the code from the message; they become a member and the facility appears in the header.
import { client, loadOrganizations, useSession } from '../../lib/api'
import { navigate, useRoute } from '../../lib/router'
import { Field, Form, Status } from '../../components'

export function JoinFacility(_props: { params: Record<string, string> }) {
  const session = useSession()
  const route = useRoute()
  // The facility just joined is kept in the address: the shell re-renders every view when the facility changes.
  const joined = route.query.joined ? session.organizationName(route.query.joined) : ''
  return (
    <section>
      <h1>Join a facility</h1>
      <p>
        A facility invites you by email. Enter the code from its message here while signed in as{' '}
        <strong>{session.account?.email}</strong>: the invitation works only for the address it was sent to.
      </p>
      <Status>{joined && `You joined ${joined}. It is now chosen in the header.`}</Status>
      <Form
        id="join-form"
        title="Invitation code"
        submitLabel="Join"
        onSubmit={async (data) => {
          const result = await client
            .service('organization-invitations')
            .accept({ code: String(data.get('code') ?? '').trim() })
          await loadOrganizations()
          session.setCurrent(result.member.organization)
          navigate(`/join?joined=${encodeURIComponent(result.member.organization)}`)
        }}
      >
        <Field
          label="Code from the message"
          name="code"
          required
          autoComplete="one-time-code"
          defaultValue={route.query.code ?? ''}
          hint="It looks like ABCDE-FGHJK-MNPQR-STVWX."
        />
      </Form>
    </section>
  )
}
