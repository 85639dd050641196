// Picks a patient of the facility by name (search as you type through the facility's patient search); the chosen
// patient's id goes out in a hidden input named `patient`, so a Form reads it like any field.
import { useEffect, useId, useState } from 'preact/hooks'
import { client, errorMessage, useDebounced } from '../../lib/api'
import { useFieldError } from '../../components'
import type { Patient } from '../../../src/services/patients/patients.shared'

export interface PatientChoice {
  id: string
  name: string
}

type PatientHit = Pick<Patient, 'id' | 'patient' | 'firstName' | 'lastName' | 'email'>

const nameOf = (p: PatientHit) =>
  [p.firstName, p.lastName].filter(Boolean).join(' ') || p.email || 'Unnamed patient'

export function PatientPicker({ facility, label = 'Patient' }: { facility: string; label?: string }) {
  const id = `pp${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`
  const [text, setText] = useState('')
  const [hits, setHits] = useState<PatientHit[]>([])
  const [chosen, setChosen] = useState<PatientChoice | null>(null)
  const [problem, setProblem] = useState('')
  const search = useDebounced(text.trim())
  const serverError = useFieldError('patient')
  useEffect(() => {
    if (!search || chosen?.name === search) {
      setHits([])
      return
    }
    let live = true
    client
      .service('patients')
      .find({ query: { facility, q: search, $limit: 8 } })
      .then(
        (page) => {
          if (live) {
            setHits(page.data as PatientHit[])
            setProblem(page.data.length === 0 ? `No patient of this facility matches “${search}”.` : '')
          }
        },
        (error: unknown) => live && setProblem(errorMessage(error))
      )
    return () => {
      live = false
    }
  }, [search, facility])
  return (
    <div class={['field', 'patient-picker', serverError ? 'invalid' : ''].filter(Boolean).join(' ')}>
      <label for={id}>
        {label}
        <span class="required"> (required)</span>
      </label>
      <input
        id={id}
        type="search"
        autoComplete="off"
        aria-required="true"
        aria-describedby={`${id}-hint ${id}-error`}
        value={text}
        onInput={(event) => {
          setText(event.currentTarget.value)
          setChosen(null)
        }}
      />
      <small class="hint" id={`${id}-hint`}>
        Type a name, email or phone number, then choose the patient.
      </small>
      <input type="hidden" name="patient" value={chosen?.id ?? ''} />
      {hits.length > 0 && (
        <ul class="choices" aria-label="Matching patients">
          {hits.map((hit) => (
            <li key={hit.id}>
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  const name = nameOf(hit)
                  setChosen({ id: hit.patient, name })
                  setText(name)
                  setHits([])
                }}
              >
                {nameOf(hit)}
                {hit.email && nameOf(hit) !== hit.email ? ` — ${hit.email}` : ''}
              </button>
            </li>
          ))}
        </ul>
      )}
      <span class="field-error" id={`${id}-error`} aria-live="polite">
        {[problem, serverError].filter(Boolean).join('; ')}
      </span>
      {chosen && <p class="chosen">Chosen: {chosen.name}</p>}
    </div>
  )
}
