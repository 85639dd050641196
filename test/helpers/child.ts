// Starts the real server as a child process (`node -r ts-node/register/transpile-only src/index.ts`), as an
// operator would, so tests can kill it at any moment (SIGKILL included) and start it again on the same data.
// Resolves once it prints `READY <port>`.
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

export interface ChildServer {
  url: string
  port: number
  process: ChildProcess
  /** Everything the child wrote to stdout and stderr so far. */
  output(): string
  /** Sends a signal (default SIGTERM) and resolves when the child has exited. */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Resolves when the child exits, however it exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const root = path.resolve(__dirname, '../..')

/**
 * Starts `src/index.ts` with NODE_ENV=test, PORT=0, HOST=127.0.0.1 and LOG_LEVEL=error, plus `env`
 * (which must name DATA_DIR; pass MONGODB_URL to use MongoDB — it defaults to the embedded engine).
 */
export const startChild = (env: Record<string, string>, timeoutMs = 30_000): Promise<ChildServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', require.resolve('ts-node/register/transpile-only'), path.join(root, 'src/index.ts')], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', MONGODB_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    let ready = false
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`Child server did not start within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = !ready && /^READY (\d+)$/m.exec(output)
      if (match) {
        ready = true
        clearTimeout(timer)
        const port = Number(match[1])
        resolve({
          url: `http://127.0.0.1:${port}`,
          port,
          process: child,
          output: () => output,
          exited,
          kill: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal)
            return exited
          }
        })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    void exited.then(({ code, signal }) => {
      if (!ready) {
        clearTimeout(timer)
        reject(new Error(`Child server exited (${code ?? signal}) before it was ready:\n${output}`))
      }
    })
  })
