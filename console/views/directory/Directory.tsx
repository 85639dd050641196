// The public directory: facilities that chose to be listed, searched by words and, optionally, near a place.
// An empty result says why a facility may be missing (listing is opt-in) and how a superadmin lists theirs.
import { useState } from 'preact/hooks'
import { client, loadOrganizations, useSession } from '../../lib/api'
import { EmptyState, Field, Form } from '../../components'
import type { DirectoryResult } from '../../../src/services/unified-directory/unified-directory.schema'

export function Directory(_props: { params: Record<string, string> }) {
  const session = useSession()
  const [results, setResults] = useState<DirectoryResult[] | null>(null)
  const facility = session.current
  const listed = session.organizations.find((o) => o.id === facility)?.directory?.listed === true
  return (
    <section>
      <h1>Directory</h1>
      <Form
        id="directory-form"
        title="Search the directory"
        submitLabel="Search"
        reset={false}
        onSubmit={async (data) => {
          const words = String(data.get('$search') ?? '').trim()
          const near = String(data.get('location') ?? '').trim()
          const page = await client
            .service('bff/unified-directory')
            .find({ query: { $search: words || '*', $limit: 50, ...(near ? { location: near } : {}) } })
          setResults(page.data)
        }}
      >
        <Field
          label="Search"
          name="$search"
          type="search"
          hint="Words of a name or description; leave empty for every listed facility."
        />
        <Field
          label="Near"
          name="location"
          hint="Latitude,longitude and optionally a radius in km, e.g. 14.55,121.02,10."
        />
      </Form>
      {results &&
        (results.length === 0 ? (
          <EmptyState title="No listed facility matches.">
            <p>
              A facility appears here only after it opts in: one of its superadmins turns on “List this
              facility in the public directory” (the organization’s <code>directory.listed</code> setting).
              {facility && session.isSuperadmin(facility) && !listed && (
                <> Yours is not listed yet; you can list it below.</>
              )}
            </p>
          </EmptyState>
        ) : (
          <ol class="records" id="directory-results" aria-live="polite">
            {results.map((entry) => (
              <li key={entry.id}>
                <strong>{entry.name}</strong>
                {entry.ref?.types?.length ? ` · ${entry.ref.types.join(', ')}` : ''}
                {entry.distanceKm !== undefined && (
                  <span class="badge">{entry.distanceKm.toFixed(1)} km away</span>
                )}
                {entry.description && <p class="muted">{entry.description}</p>}
              </li>
            ))}
          </ol>
        ))}
      {facility && session.isSuperadmin(facility) && (
        <Form
          id="listing-form"
          title="Your facility in the directory"
          heading="h2"
          submitLabel={listed ? 'Stop listing it' : 'List it'}
          success={listed ? 'It is no longer listed.' : 'It is listed now.'}
          onSubmit={async () => {
            await client.service('organizations').patch(facility, { directory: { listed: !listed } })
            await loadOrganizations()
          }}
        >
          <p>
            {session.organizationName(facility)} is {listed ? '' : 'not '}listed in the public directory.{' '}
            {listed
              ? 'Anyone can find its name, kinds and description.'
              : 'Listing it lets anyone find its name, kinds and description.'}
          </p>
        </Form>
      )}
    </section>
  )
}
