// ARIA tabs: a tablist of buttons (Left/Right/Home/End move between them), one tabpanel shown. The selected tab
// may be controlled (`selected` + `onSelect`, e.g. kept in the URL) or kept here.
import type { ComponentChildren } from 'preact'
import { useId, useRef, useState } from 'preact/hooks'

export interface Tab {
  id: string
  label: string
  render: () => ComponentChildren
}

export function Tabs({
  tabs,
  label,
  selected,
  onSelect
}: {
  tabs: Tab[]
  label: string
  selected?: string
  onSelect?: (id: string) => void
}) {
  const [own, setOwn] = useState(tabs[0]?.id ?? '')
  const active = tabs.some((t) => t.id === (selected ?? own)) ? (selected ?? own) : (tabs[0]?.id ?? '')
  const prefix = `t${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`
  const list = useRef<HTMLDivElement>(null)
  const choose = (id: string, focus = false) => {
    setOwn(id)
    onSelect?.(id)
    if (focus) setTimeout(() => list.current?.querySelector<HTMLElement>(`#${prefix}-${id}`)?.focus())
  }
  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.findIndex((t) => t.id === active)
    let next = -1
    if (event.key === 'ArrowRight') next = (index + 1) % tabs.length
    else if (event.key === 'ArrowLeft') next = (index - 1 + tabs.length) % tabs.length
    else if (event.key === 'Home') next = 0
    else if (event.key === 'End') next = tabs.length - 1
    if (next < 0) return
    event.preventDefault()
    choose(tabs[next].id, true)
  }
  const current = tabs.find((t) => t.id === active)
  return (
    <div class="tabs">
      <div role="tablist" aria-label={label} ref={list} onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            type="button"
            role="tab"
            id={`${prefix}-${tab.id}`}
            aria-selected={tab.id === active}
            aria-controls={`${prefix}-${tab.id}-panel`}
            tabIndex={tab.id === active ? 0 : -1}
            onClick={() => choose(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {current && (
        <div
          role="tabpanel"
          id={`${prefix}-${current.id}-panel`}
          aria-labelledby={`${prefix}-${current.id}`}
          tabIndex={0}
          class="tabpanel"
        >
          {current.render()}
        </div>
      )}
    </div>
  )
}
