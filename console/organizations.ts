// The caller's organizations and each one's members (live); superadmins add members with roles/privileges,
// change them and remove them.
import {
  client,
  state,
  listen,
  debounce,
  loadOrganizations,
  isSuperadmin,
  organizationName,
  type Cleanup,
  type Member
} from './api'
import { h, field, replace, when, submitForm } from './dom'

const list = (value: string) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)

export const renderOrganizations = async (root: HTMLElement): Promise<Cleanup> => {
  const members = h('table', { id: 'members' })
  const selected = () => state.current
  const load = async () => {
    await loadOrganizations()
    const organization = selected()
    if (!organization) return replace(members, h('caption', {}, 'No organization yet.'))
    const page = await client.service('organization-members').find({ query: { organization, $limit: 200 } })
    const manage = isSuperadmin(organization)
    replace(
      members,
      h('caption', {}, `Members of ${organizationName(organization)} (${page.total})`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Account'),
          h('th', { scope: 'col' }, 'Roles'),
          h('th', { scope: 'col' }, 'Privileges'),
          h('th', { scope: 'col' }, 'Superadmin'),
          h('th', { scope: 'col' }, 'Since'),
          manage ? h('th', { scope: 'col' }, 'Actions') : null
        )
      ),
      h(
        'tbody',
        {},
        page.data.map((m) =>
          h(
            'tr',
            { 'data-uid': m.uid },
            h('td', {}, m.uid === state.account?.id ? `${m.uid} (you)` : m.uid),
            h('td', {}, m.roles.join(', ')),
            h('td', {}, m.privileges.join(', ')),
            h('td', {}, m.superadmin ? 'yes' : 'no'),
            h('td', {}, when(m.createdAt)),
            manage
              ? h(
                  'td',
                  {},
                  h(
                    'button',
                    { type: 'button', class: 'secondary small danger', onclick: () => removeMember(m) },
                    'Remove'
                  )
                )
              : null
          )
        )
      )
    )
  }
  const removeMember = async (member: Member) => {
    if (!confirm(`Remove ${member.uid} from ${organizationName(member.organization)}?`)) return
    try {
      await client.service('organization-members').remove(member.id)
    } catch (error: any) {
      alert(error?.message ?? String(error))
    }
  }

  const uid = h('input', { type: 'text' })
  const roles = h('input', { type: 'text' })
  const privileges = h('input', { type: 'text' })
  const superadmin = h('input', { type: 'checkbox', id: 'member-superadmin' })
  const add = submitForm(
    'member-form',
    'Add a member',
    [
      field('Account id (the member finds it under “My account id”)', uid, 'uid'),
      field('Roles (comma-separated)', roles, 'roles'),
      field('Privileges (comma-separated)', privileges, 'privileges'),
      h('div', { class: 'field check' }, h('label', { for: 'member-superadmin' }, superadmin, ' Superadmin'))
    ],
    'Add member',
    async () => {
      await client.service('organization-members').create({
        organization: selected(),
        uid: uid.value.trim(),
        roles: list(roles.value),
        privileges: list(privileges.value),
        superadmin: superadmin.checked
      })
    }
  )

  const organizations = h(
    'ul',
    { class: 'plain', id: 'organizations' },
    state.organizations.map((o) =>
      h(
        'li',
        {},
        h('strong', {}, o.name),
        ` · ${o.type ?? ''} · ${isSuperadmin(o.id) ? 'you are a superadmin' : 'member'}`
      )
    )
  )
  replace(
    root,
    h('h2', {}, 'Organizations'),
    state.organizations.length
      ? organizations
      : h(
          'p',
          {},
          'You are not a member of any organization. A superadmin can add you with your account id.'
        ),
    h('p', { class: 'muted' }, 'Choose the organization in the header to see its members.'),
    members,
    selected() && isSuperadmin(selected()) ? h('section', { class: 'card' }, add) : null
  )
  await load()
  return listen(
    'organization-members',
    ['created', 'patched', 'removed'],
    debounce(() => void load())
  )
}
