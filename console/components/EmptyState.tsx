// What an empty list says: why it is empty and what to do about it (never a bare "Nothing found").
import type { ComponentChildren } from 'preact'

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-help">{children}</div>}
    </div>
  )
}
