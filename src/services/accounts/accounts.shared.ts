// Path and methods of the accounts service, shared with the typed client (src/client.ts).
export const accountPath = 'accounts'
export const accountMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
