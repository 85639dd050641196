// Path and methods of the organization-members service, shared with the typed client.
export const organizationMemberPath = 'organization-members'
export const organizationMemberMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
