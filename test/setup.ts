// Mocha setup: tests run with config/test.json on top of config/default.json. Once per run, the server's code is
// transpiled for the tests that start it as a child process (helpers/server-build.ts); TEST_SERVER_ENTRY names it
// (a run started with it set uses that build and leaves it alone).
import { buildServer, removeServerBuild } from './helpers/server-build'

process.env.NODE_ENV = process.env.NODE_ENV || 'test'
process.env.LOG_LEVEL = process.env.LOG_LEVEL || 'error'

export const mochaGlobalSetup = () => {
  if (!process.env.TEST_SERVER_ENTRY) process.env.TEST_SERVER_ENTRY = buildServer()
}

export const mochaGlobalTeardown = () => removeServerBuild()
