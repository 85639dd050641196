// A polite live region for what just succeeded ("Saved.", "Uploaded x.pdf."): screen readers announce it.
import type { ComponentChildren } from 'preact'

export function Status({ children, id }: { children?: ComponentChildren; id?: string }) {
  return (
    <p class="status" role="status" id={id}>
      {children}
    </p>
  )
}

/** A failure in words (role="alert"); nothing when `message` is empty. */
export function ErrorText({ message }: { message?: string }) {
  return (
    <p class="form-error" role="alert">
      {message}
    </p>
  )
}
