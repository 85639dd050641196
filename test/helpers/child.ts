// The real server as a child process (from source: see serverArgs in server-process.ts; started by
// server-process.ts, ready on its start line), with what crash tests need on top: a promise of its
// exit (code or signal), and the embedded engine unless MONGODB_URL is passed.
import type { ChildProcess } from 'node:child_process'
import { startServerProcess } from './server-process'

export interface ChildExit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface ChildServer {
  url: string
  port: number
  process: ChildProcess
  /** Everything the child wrote to stdout and stderr so far. */
  output(): string
  /** Sends a signal (default SIGTERM) and resolves when the child has exited. */
  kill(signal?: NodeJS.Signals): Promise<ChildExit>
  /** Resolves when the child exits, however it exits (a fault hook's SIGKILL included). */
  exited: Promise<ChildExit>
}

/**
 * Starts the server from source with NODE_ENV=test, PORT=0, HOST=127.0.0.1 and LOG_LEVEL=error, plus `env` (which should
 * name DATA_DIR; MONGODB_URL defaults to empty, the embedded engine).
 */
export const startChild = async (env: Record<string, string>, timeoutMs = 30_000): Promise<ChildServer> => {
  const server = await startServerProcess({ MONGODB_URL: '', ...env }, timeoutMs)
  const child = server.child
  const exited: Promise<ChildExit> =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
      : new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })))
  return {
    url: server.url,
    port: server.port,
    process: child,
    output: server.output,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      await server.kill(signal)
      return exited
    }
  }
}
