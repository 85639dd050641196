// The console's building blocks (every view composes these; see each file for its rules).
export { Field, type FieldProps } from './Field'
export { Form, FormContext, useFieldError, type FormProps } from './Form'
export { ConfirmButton } from './ConfirmButton'
export { Status, ErrorText } from './Status'
export { Tabs, type Tab } from './Tabs'
export { Table, type Column } from './Table'
export { Dialog } from './Dialog'
export { EmptyState } from './EmptyState'
