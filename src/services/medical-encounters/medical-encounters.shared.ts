// Path and methods of the medical-encounters service, shared with the typed client.
export const medicalEncounterPath = 'medical-encounters'
export const medicalEncounterMethods = ['find', 'get', 'create', 'update', 'patch', 'remove'] as const
