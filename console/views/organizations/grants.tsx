// What a member may do, as checkboxes with their meaning beside each: the privileges the server checks, the roles
// records are shared with, and the superadmin flag.
import { useId } from 'preact/hooks'

export const privilegeMeanings: Record<string, string> = {
  billing: 'Bill encounters, record payments and finalize invoices.',
  scheduling: "Manage providers' schedules, book appointments for patients and call the waiting-room queue.",
  inventory: 'Manage stockrooms and stock, and move orders that use it.',
  notifications: "Change the facility's notification settings and message templates."
}

export const roleMeanings: Record<string, string> = {
  physician: 'Sees the records shared with the facility’s physicians.',
  nurse: 'Sees the records shared with the facility’s nurses.',
  receptionist: 'Sees the records shared with the facility’s front desk.'
}

/** The words for a privilege or role name ("billing" → "Billing"). */
export const grantLabel = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replace(/-/g, ' ')

/** The checked values of `name` in a form's data. */
export const checked = (data: FormData, name: string) => data.getAll(name).map(String)

function Check(props: { name: string; value: string; meaning: string; checked: boolean; label?: string }) {
  const id = `g${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`
  return (
    <div class="field check">
      <input
        type="checkbox"
        id={id}
        name={props.name}
        value={props.value}
        defaultChecked={props.checked}
        aria-describedby={`${id}-meaning`}
      />
      <label for={id}>{props.label ?? grantLabel(props.value)}</label>
      <small id={`${id}-meaning`} class="hint">
        {props.meaning}
      </small>
    </div>
  )
}

/** Roles, privileges (and, when `superadmin` is given, the superadmin flag) as checkboxes. */
export function GrantChecks(props: { roles?: string[]; privileges?: string[]; superadmin?: boolean }) {
  const roles = props.roles ?? []
  const privileges = props.privileges ?? []
  // Grants the console has no words for are kept (and shown) as they are.
  const privilegeNames = [...new Set([...Object.keys(privilegeMeanings), ...privileges])]
  const roleNames = [...new Set([...Object.keys(roleMeanings), ...roles])]
  return (
    <div class="grants">
      <fieldset>
        <legend>Privileges</legend>
        {privilegeNames.map((p) => (
          <Check
            key={p}
            name="privileges"
            value={p}
            meaning={privilegeMeanings[p] ?? 'A privilege used by this facility.'}
            checked={privileges.includes(p)}
          />
        ))}
      </fieldset>
      <fieldset>
        <legend>Roles</legend>
        {roleNames.map((r) => (
          <Check
            key={r}
            name="roles"
            value={r}
            meaning={roleMeanings[r] ?? 'A role used by this facility.'}
            checked={roles.includes(r)}
          />
        ))}
      </fieldset>
      {props.superadmin !== undefined && (
        <fieldset>
          <legend>Administration</legend>
          <Check
            name="superadmin"
            value="yes"
            label="Superadmin"
            meaning="Everything above, plus members, invitations, the subscription and webhooks. A facility keeps at least one superadmin."
            checked={props.superadmin}
          />
        </fieldset>
      )}
    </div>
  )
}
