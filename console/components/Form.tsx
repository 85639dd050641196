// A form that sends its values through `onSubmit` without the browser's own validation: while it runs the submit
// button is busy; a failure shows the server's sentence in a summary (role="alert") and each field problem beside
// the field it names (Field reads them from this form's context). Never alert().
import { createContext, type ComponentChildren } from 'preact'
import { useContext, useState } from 'preact/hooks'
import { errorMessage, fieldErrors } from '../lib/api'

export interface FormErrors {
  /** The server's problems, by field path ('milestone', 'items.0.name'). */
  fields: Array<{ field: string; message: string }>
}
export const FormContext = createContext<FormErrors>({ fields: [] })

/** The problems that belong to `name`: its own and those of anything inside it ('items' gets 'items.0.name'). */
export const useFieldError = (name: string | undefined): string => {
  const { fields } = useContext(FormContext)
  if (!name) return ''
  return fields
    .filter((p) => p.field === name || p.field.startsWith(`${name}.`) || p.field.startsWith(`${name}[`))
    .map((p) => (p.field === name ? p.message : `${p.field.slice(name.length + 1)}: ${p.message}`))
    .map((message) => `${name} ${message}`.replace(`${name} ${name} `, `${name} `))
    .join('; ')
}

export interface FormProps {
  /** The form's accessible name (also its heading when `heading` is set). */
  title: string
  heading?: 'h2' | 'h3' | 'h4'
  id?: string
  submitLabel: string
  /** Receives the form's values; throw (a Feathers error) to show what went wrong. */
  onSubmit: (data: FormData, form: HTMLFormElement) => Promise<void> | void
  /** Reset the inputs after a success (default true). */
  reset?: boolean
  /** Shown in a live region after a success. */
  success?: string
  class?: string
  children: ComponentChildren
  /** Extra buttons beside the submit button. */
  actions?: ComponentChildren
}

export function Form(props: FormProps) {
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState('')
  const [fields, setFields] = useState<FormErrors['fields']>([])
  const [done, setDone] = useState('')
  const Heading = props.heading
  const submit = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    setBusy(true)
    setMessage('')
    setFields([])
    setDone('')
    try {
      await props.onSubmit(new FormData(form), form)
      if (props.reset !== false) form.reset()
      if (props.success) setDone(props.success)
    } catch (error) {
      const problems = fieldErrors(error)
      setFields(problems)
      const named = new Set<string>()
      for (const input of Array.from(form.elements)) {
        const name = input.getAttribute('name')
        if (name) named.add(name.split('.')[0].split('[')[0])
      }
      // Problems no field of this form shows go into the summary.
      const orphan = problems.filter((p) => !named.has(p.field.split('.')[0].split('[')[0]))
      setMessage([errorMessage(error), ...orphan.map((p) => `${p.field} ${p.message}`)].join(' — '))
    } finally {
      setBusy(false)
    }
  }
  return (
    <FormContext.Provider value={{ fields }}>
      <form
        id={props.id}
        class={['form', props.class].filter(Boolean).join(' ')}
        aria-label={props.title}
        noValidate
        onSubmit={submit}
        aria-busy={busy}
      >
        {Heading && <Heading>{props.title}</Heading>}
        <p class="form-error" role="alert">
          {message}
        </p>
        {props.children}
        <div class="actions">
          <button type="submit" disabled={busy} aria-disabled={busy}>
            {busy ? `${props.submitLabel}…` : props.submitLabel}
          </button>
          {props.actions}
        </div>
        <p class="form-status" role="status">
          {done}
        </p>
      </form>
    </FormContext.Provider>
  )
}
