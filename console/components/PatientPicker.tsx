// Picks one of the facility's patients by searching their name, email or phone (the server's /patients search,
// as you type) — nobody types an account id. The chosen patient's account id is the form value `name` (a hidden
// input), so a Form sends it like any field, and the server's error for `name` shows here.
import { useId, useState } from 'preact/hooks'
import { personName, useDebounced, useFind } from '../lib/api'
import type { Patient } from '../../src/services/patients/patients.shared'
import { useFieldError } from './Form'

export function PatientPicker({
  facility,
  name = 'patient',
  label = 'Patient',
  required,
  onPick
}: {
  facility: string
  /** The form value's name (the chosen account id); default `patient`. */
  name?: string
  label?: string
  required?: boolean
  onPick?: (patient: Patient | undefined) => void
}) {
  const id = `p${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`
  const [typed, setTyped] = useState('')
  const [chosen, setChosen] = useState<Patient | undefined>()
  const q = useDebounced(typed.trim(), 250)
  const found = useFind<Patient>('patients', facility && q && !chosen ? { facility, q, $limit: 8 } : null)
  const error = useFieldError(name)
  const pick = (patient: Patient | undefined) => {
    setChosen(patient)
    onPick?.(patient)
    if (!patient) setTimeout(() => document.getElementById(id)?.focus())
  }
  return (
    <div class={error ? 'field picker invalid' : 'field picker'} data-field={name}>
      <input type="hidden" name={name} value={chosen?.patient ?? ''} />
      {chosen ? (
        <>
          <span class="label">{label}</span>
          <p class="chosen">
            <strong>{personName(chosen)}</strong> {chosen.email && <span class="muted">{chosen.email}</span>}{' '}
            <button type="button" class="secondary small" onClick={() => pick(undefined)}>
              Change<span class="visually-hidden"> {label.toLowerCase()}</span>
            </button>
          </p>
        </>
      ) : (
        <>
          <label for={id}>
            {label}
            {required && <span class="required"> (required)</span>}
          </label>
          <input
            id={id}
            type="search"
            autoComplete="off"
            value={typed}
            aria-describedby={`${id}-hint ${id}-error`}
            aria-invalid={error ? 'true' : undefined}
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
          <small id={`${id}-hint`} class="hint">
            Type the start of the patient’s name, email or phone, then choose them.
          </small>
          {q && (
            <ul class="picker-results" aria-label={`Patients matching “${q}”`}>
              {found.loading ? (
                <li class="muted">Searching…</li>
              ) : found.data.length === 0 ? (
                <li class="muted">No patient of this facility matches “{q}”.</li>
              ) : (
                found.data.map((p) => (
                  <li key={p.id}>
                    <button type="button" class="secondary small" onClick={() => pick(p)}>
                      {personName(p) || p.email}
                      {p.email && <span class="muted"> · {p.email}</span>}
                    </button>
                  </li>
                ))
              )}
            </ul>
          )}
        </>
      )}
      <span class="field-error" id={`${id}-error`} data-error-for={name} aria-live="polite">
        {error}
      </span>
    </div>
  )
}
