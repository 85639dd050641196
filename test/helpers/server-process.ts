// Runs the server as a separate process (as `npm start` does, TypeScript loaded directly), for crash and
// restart tests: kill -9 it, start it again on the same DATA_DIR.
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

export interface ServerProcess {
  url: string
  port: number
  child: ChildProcess
  output(): string
  /** Sends a signal (default SIGKILL) and resolves once the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>
}

const root = path.resolve(__dirname, '../..')

/**
 * Starts `src/index.ts` (or, with `compiled`, `lib/index.js` as `npm start` runs it after `npm run compile`) with the
 * given environment; resolves on its `READY <port>` line.
 */
export const startServerProcess = (env: Record<string, string>, timeoutMs = 30000, options: { compiled?: boolean } = {}): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const args = options.compiled ? ['lib/index.js'] : ['-r', 'ts-node/register/transpile-only', 'src/index.ts']
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${out}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const match = /READY (\d+)/.exec(out)
      if (match) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
        child.stdout?.on('data', (more: Buffer) => (out += more.toString()))
        const port = Number(match[1])
        resolve({
          url: `http://127.0.0.1:${port}`,
          port,
          child,
          output: () => out,
          async kill(signal = 'SIGKILL') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal)
            await exited
          }
        })
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(Object.assign(new Error(`server exited with code ${code}:\n${out}`), { code, output: out }))
    })
  })
