// Path and methods of the medical-records service, shared with the typed client.
export const medicalRecordPath = 'medical-records'
export const medicalRecordMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
