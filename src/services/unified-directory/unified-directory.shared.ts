// Path and methods of the unified directory (public, read-only), shared with the typed client.
export const unifiedDirectoryPath = 'bff/unified-directory'
export const unifiedDirectoryMethods = ['find'] as const
