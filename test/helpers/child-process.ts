// Runs the real server (src/index.ts) in a child process, as `npm run dev` does, for tests that need to kill
// it (kill -9) and start it again on the same data. Resolves once it prints `READY <port>`.
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

export interface ChildServer {
  url: string
  port: number
  process: ChildProcess
  /** Everything the child wrote so far (stdout and stderr). */
  output(): string
  /** Sends `signal` (default SIGKILL: no shutdown code runs) and resolves when the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>
}

const root = path.resolve(__dirname, '../..')

export const startChildServer = (env: Record<string, string>, timeoutMs = 30000): Promise<ChildServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/index.ts'], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    let ready = false
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`Child server did not print READY within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /READY (\d+)/.exec(output)
      if (!ready && match) {
        ready = true
        clearTimeout(timer)
        const port = Number(match[1])
        resolve({
          url: `http://127.0.0.1:${port}`,
          port,
          process: child,
          output: () => output,
          async kill(signal: NodeJS.Signals = 'SIGKILL') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal)
            await exited
          }
        })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code, signal) => {
      if (ready) return
      clearTimeout(timer)
      reject(new Error(`Child server exited (${signal ?? code}) before READY:\n${output}`))
    })
  })
