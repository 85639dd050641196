// The server's code for child-process tests, transpiled once per test run. Crash, restart and start-up tests start
// the real server as a process, often twice a test; loading src/ through ts-node costs each start about 3 s of
// compiling the same files. Instead, mocha's global setup transpiles src/ with esbuild (type-stripping, as ts-node's
// transpile-only mode does; the types are checked by `npm run typecheck`) into a folder of its own beside src/, so
// that paths relative to the code (../config) resolve as they do from src/ and lib/, and removes it at the end.
// Each run has its own folder (several runs may share a checkout); folders of runs that are gone are removed too.
import fs from 'node:fs'
import path from 'node:path'
import { buildSync } from 'esbuild'
import { processRunning } from '../../src/store/data-lock'

const root = path.resolve(__dirname, '../..')
const prefix = '.test-build-'

const sources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(file)
    return file.endsWith('.ts') && !file.endsWith('.d.ts') ? [file] : []
  })

const folderOf = (pid: number) => path.join(root, `${prefix}${pid}`)

/** Transpiles src/ into `<root>/.test-build-<this process's pid>/` and returns the path of its index.js. */
export const buildServer = (): string => {
  for (const name of fs.readdirSync(root)) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : NaN
    if (Number.isInteger(pid) && pid !== process.pid && !processRunning(pid)) {
      fs.rmSync(path.join(root, name), { recursive: true, force: true })
    }
  }
  const outdir = folderOf(process.pid)
  fs.rmSync(outdir, { recursive: true, force: true })
  buildSync({
    entryPoints: sources(path.join(root, 'src')),
    outbase: path.join(root, 'src'),
    outdir,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // `await import('./app')` as require(), as tsc's CommonJS output has it.
    supported: { 'dynamic-import': false },
    logLevel: 'error'
  })
  return path.join(outdir, 'index.js')
}

/** Removes this process's build, if it made one. */
export const removeServerBuild = () => fs.rmSync(folderOf(process.pid), { recursive: true, force: true })
