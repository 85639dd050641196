// A labelled control: <label for> + input/select/textarea + hint + the error the server gave for this field (from
// the enclosing Form), linked by aria-describedby. Required fields are marked in words and with aria-required.
import type { ComponentChildren, JSX } from 'preact'
import { useId } from 'preact/hooks'
import { useFieldError } from './Form'

type Control = 'input' | 'select' | 'textarea'

export interface FieldProps {
  label: string
  /** The form value's name; also the path the server names in its field errors. */
  name: string
  as?: Control
  hint?: ComponentChildren
  required?: boolean
  /** Options of a select. */
  children?: ComponentChildren
  /** An error shown even without the server's (e.g. checked in the browser). */
  error?: string
  class?: string
  id?: string
  type?: string
  value?: string | number
  defaultValue?: string | number
  checked?: boolean
  defaultChecked?: boolean
  placeholder?: string
  autoComplete?: string
  inputMode?: 'none' | 'text' | 'decimal' | 'numeric' | 'tel' | 'search' | 'email' | 'url'
  pattern?: string
  min?: string | number
  max?: string | number
  step?: string | number
  rows?: number
  multiple?: boolean
  disabled?: boolean
  accept?: string
  onInput?: (event: JSX.TargetedEvent<HTMLInputElement & HTMLSelectElement & HTMLTextAreaElement>) => void
  onChange?: (event: JSX.TargetedEvent<HTMLInputElement & HTMLSelectElement & HTMLTextAreaElement>) => void
}

export function Field({
  label,
  name,
  as = 'input',
  hint,
  required,
  children,
  error,
  class: className,
  ...rest
}: FieldProps) {
  const generated = useId()
  const id = rest.id ?? `f${generated.replace(/[^a-zA-Z0-9_-]/g, '')}`
  const server = useFieldError(name)
  const problem = [error, server].filter(Boolean).join('; ')
  const describedBy = [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ')
  const common = {
    ...rest,
    id,
    required: undefined,
    name,
    'aria-required': required ? ('true' as const) : undefined,
    'aria-invalid': problem ? ('true' as const) : undefined,
    'aria-describedby': describedBy
  }
  const isCheck = as === 'input' && (rest.type === 'checkbox' || rest.type === 'radio')
  const control =
    as === 'select' ? (
      <select {...(common as JSX.HTMLAttributes<HTMLSelectElement>)}>{children}</select>
    ) : as === 'textarea' ? (
      <textarea {...(common as JSX.HTMLAttributes<HTMLTextAreaElement>)} />
    ) : (
      <input {...(common as JSX.HTMLAttributes<HTMLInputElement>)} />
    )
  return (
    <div
      class={['field', isCheck ? 'check' : '', problem ? 'invalid' : '', className].filter(Boolean).join(' ')}
      data-field={name}
    >
      {isCheck && control}
      <label for={id}>
        {label}
        {required && <span class="required"> (required)</span>}
      </label>
      {!isCheck && control}
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      <span class="field-error" id={`${id}-error`} data-error-for={name} aria-live="polite">
        {problem}
      </span>
    </div>
  )
}
