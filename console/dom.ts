// A few DOM helpers: h() builds elements (attributes, `on<event>` listeners, children), nothing more.
export type Child = Node | string | number | null | undefined | false | Child[]

export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, unknown> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function')
      element.addEventListener(name.slice(2), value as EventListener)
    // Defaults, so that a form's reset() brings them back.
    else if (
      name === 'value' &&
      (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)
    )
      element.defaultValue = String(value)
    else if (name === 'checked') (element as HTMLInputElement).defaultChecked = value === true
    else element.setAttribute(name, value === true ? '' : String(value))
  }
  append(element, children)
  return element
}

export const append = (parent: Node, children: Child[]) => {
  for (const child of children.flat(Infinity as 1) as Child[]) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

/** Replaces every child of `parent`. */
export const replace = (parent: Element, ...children: Child[]) => {
  parent.replaceChildren()
  append(parent, children)
}

export const when = (at: number | undefined) => (at ? new Date(at).toLocaleString() : '')

let unique = 0
export const uid = (prefix: string) => `${prefix}-${++unique}`

/** A labelled input (or select/textarea), with an error slot the server's field messages go to. */
export const field = (label: string, control: HTMLElement, name: string, hint?: string) => {
  const id = control.id || uid('f')
  control.id = id
  control.setAttribute('name', name)
  const error = h('span', {
    class: 'field-error',
    id: `${id}-error`,
    'data-error-for': name,
    'aria-live': 'polite'
  })
  control.setAttribute('aria-describedby', `${id}-error`)
  return h(
    'div',
    { class: 'field', 'data-field': name },
    h('label', { for: id }, label),
    control,
    hint ? h('small', {}, hint) : null,
    error
  )
}

/** Shows a Feathers error on a form: each `errors[].field` next to its field, the message on top. */
export const showErrors = (form: HTMLElement, error: any) => {
  clearErrors(form)
  const problems: Array<{ field: string; message: string }> = Array.isArray(error?.errors)
    ? error.errors
    : Array.isArray(error?.data?.errors)
      ? error.data.errors
      : []
  const rest: string[] = []
  for (const problem of problems) {
    const path = String(problem.field ?? '')
    let slot: Element | null = null
    for (let parts = path.split('.'); parts.length > 0 && !slot; parts = parts.slice(0, -1)) {
      slot = form.querySelector(`[data-error-for="${CSS.escape(parts.join('.'))}"]`)
    }
    if (slot) {
      slot.textContent = [slot.textContent, `${path} ${problem.message}`].filter(Boolean).join('; ')
      slot.closest('.field')?.classList.add('invalid')
      slot.closest('details')?.setAttribute('open', '')
    } else rest.push(`${path} ${problem.message}`)
  }
  const summary = form.querySelector('.form-error')
  if (summary) summary.textContent = [error?.message ?? String(error), ...rest].join(' — ')
}

export const clearErrors = (form: HTMLElement) => {
  form.querySelectorAll('.field-error').forEach((slot) => (slot.textContent = ''))
  form.querySelectorAll('.field.invalid').forEach((slot) => slot.classList.remove('invalid'))
  const summary = form.querySelector('.form-error')
  if (summary) summary.textContent = ''
}

export const formError = () => h('p', { class: 'form-error', role: 'alert' })

/** Copies text and says so. */
export const copyButton = (text: string, label = 'Copy') =>
  h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async (event: Event) => {
        const button = event.currentTarget as HTMLButtonElement
        try {
          await navigator.clipboard.writeText(text)
          button.textContent = 'Copied'
        } catch {
          button.textContent = 'Select and copy'
        }
      }
    },
    label
  )

/**
 * A form that sends its values through `submit` without the browser's own validation (the server's 400s are shown
 * beside their fields), then resets; `heading` is the title's level in the view it sits in.
 */
export const submitForm = (
  id: string,
  title: string,
  controls: HTMLElement[],
  label: string,
  submit: (data: FormData) => Promise<void>,
  heading: 'h3' | 'h4' = 'h3'
) => {
  const form: HTMLFormElement = h('form', { id, novalidate: true, 'aria-label': title })
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearErrors(form)
    try {
      await submit(new FormData(form))
      form.reset()
    } catch (error) {
      showErrors(form, error)
    }
  })
  form.append(h(heading, {}, title), formError(), ...controls, h('button', { type: 'submit' }, label))
  return form
}

/** A form field's value, trimmed ('' when absent). */
export const formText = (data: FormData, name: string) => String(data.get(name) ?? '').trim()
