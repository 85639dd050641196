// Path and methods of the service catalogue (a facility's billable services), shared with the typed client.
export const servicePath = 'services'
export const serviceMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
