// A modal dialog on the native <dialog> (showModal: focus moves in and stays there, Escape closes, the page
// behind is inert). `open` controls it; closing by Escape or the close button calls onClose.
import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef } from 'preact/hooks'

export function Dialog({
  open,
  title,
  onClose,
  children
}: {
  open: boolean
  title: string
  onClose: () => void
  children: ComponentChildren
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = `d${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} class="dialog">
      <div class="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      {open && children}
    </dialog>
  )
}
