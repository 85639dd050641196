// A button for what cannot be undone: the first press asks inline "Are you sure? <what it does>" with Confirm and
// Cancel (focus moves to the question); Confirm runs the action, its failure shown in words beside it.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { errorMessage } from '../lib/api'

export interface ConfirmButtonProps {
  /** The button's label, e.g. "Finalize". */
  children: ComponentChildren
  /** What confirming does, in words: "Finalizing locks the invoice's items." */
  question: string
  confirmLabel?: string
  onConfirm: () => Promise<void> | void
  class?: string
  id?: string
}

export function ConfirmButton(props: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const question = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (asking) question.current?.focus()
  }, [asking])
  const confirm = async () => {
    setBusy(true)
    setError('')
    try {
      await props.onConfirm()
      setAsking(false)
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }
  if (!asking)
    return (
      <span class="confirm">
        <button
          type="button"
          ref={button}
          id={props.id}
          class={props.class ?? 'secondary'}
          onClick={() => setAsking(true)}
        >
          {props.children}
        </button>
        {error && (
          <span class="form-error" role="alert">
            {error}
          </span>
        )}
      </span>
    )
  return (
    <div class="confirm asking" role="group" aria-label="Confirm" tabIndex={-1} ref={question}>
      <span>Are you sure? {props.question}</span>
      <button type="button" class="danger" disabled={busy} onClick={confirm}>
        {props.confirmLabel ?? 'Confirm'}
      </button>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          setAsking(false)
          setTimeout(() => button.current?.focus())
        }}
      >
        Cancel
      </button>
      {error && (
        <span class="form-error" role="alert">
          {error}
        </span>
      )}
    </div>
  )
}
