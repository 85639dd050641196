// Path and methods of the organizations service, shared with the typed client.
export const organizationPath = 'organizations'
export const organizationMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
