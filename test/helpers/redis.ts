// A real Redis (Debian's redis-server) for the multi-instance tests: on 127.0.0.1 and a free port, nothing saved
// to disk, stopped by the test.
import { spawn } from 'node:child_process'
import { freePort } from './loopback'

export interface TestRedis {
  url: string
  port: number
  stop(): Promise<void>
}

const startOnce = (port: number, timeoutMs: number): Promise<TestRedis> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'notice'
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe']
      }
    )
    let out = ''
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`redis-server did not start in ${timeoutMs} ms:\n${out}`))
    }, timeoutMs)
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(
        new Error(
          `redis-server could not be started (is the redis-server package installed?): ${error.message}`
        )
      )
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(Object.assign(new Error(`redis-server exited with code ${code}:\n${out}`), { output: out }))
    })
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      if (!/Ready to accept connections/.test(out)) return
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stdout?.resume()
      child.stderr?.resume()
      resolve({
        url: `redis://127.0.0.1:${port}`,
        port,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
          await exited
        }
      })
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()))
  })

/** Starts redis-server; retries on another port if the probed one was taken meanwhile. */
export const startRedis = async (timeoutMs = 10_000): Promise<TestRedis> => {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    try {
      return await startOnce(port, timeoutMs)
    } catch (error: any) {
      if (attempt < 3 && /Address already in use/.test(error?.output ?? '')) continue
      throw error
    }
  }
}
