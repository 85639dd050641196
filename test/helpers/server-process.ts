// Runs the server as a separate process (from source, transpiled once per test run, or compiled as `npm run build` does), for crash and
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

/** The server's start line (JSON, as in production and test logs): its port and the URLs it names. */
export interface StartLine {
  port: number
  urls: { console: string; docs: string; ready: string }
}

/**
 * The start line in a process's output: the JSON line with `port` and `urls`, or, in development's logs formatted
 * for people, the port of its "Listening on http://host:port" (then without `urls`).
 */
export const findStartLine = (output: string): { port: number; urls?: StartLine['urls'] } | undefined => {
  for (const line of output.split('\n')) {
    if (line.startsWith('{')) {
      try {
        const entry = JSON.parse(line)
        if (typeof entry.port === 'number' && entry.urls) return { port: entry.port, urls: entry.urls }
      } catch {
        // (a line still being written)
      }
      continue
    }
    const pretty = /INFO: Listening on http:\/\/\S+?:(\d+):/.exec(line)
    if (pretty) return { port: Number(pretty[1]) }
  }
  return undefined
}

/**
 * The node arguments that run the server from source: the test run's transpiled build (TEST_SERVER_ENTRY, made by
 * mocha's global setup in test/setup.ts), else `src/index.ts` through ts-node as `npm run dev` runs it.
 */
export const serverArgs = (): string[] =>
  process.env.TEST_SERVER_ENTRY
    ? [process.env.TEST_SERVER_ENTRY]
    : ['-r', 'ts-node/register/transpile-only', 'src/index.ts']

/**
 * Starts the server from source (serverArgs) (or, with `compiled`, `lib/index.js` as `node lib/index.js` runs it after `npm run build`)
 * with the given environment; resolves on its start line.
 */
export const startServerProcess = (
  env: Record<string, string>,
  timeoutMs = 30000,
  options: { compiled?: boolean } = {}
): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const args = options.compiled ? ['lib/index.js'] : serverArgs()
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
    let stdout = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      stdout += chunk.toString()
      // (complete lines of stdout only)
      const started = findStartLine(stdout.slice(0, stdout.lastIndexOf('\n') + 1))
      if (started) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
        child.stdout?.on('data', (more: Buffer) => (out += more.toString()))
        const port = started.port
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
    // ('close': after the last of its output was read)
    child.once('close', (code) => {
      clearTimeout(timer)
      reject(Object.assign(new Error(`server exited with code ${code}:\n${out}`), { code, output: out }))
    })
  })
