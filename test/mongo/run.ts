// `npm run test:mongo`: the whole mocha suite on the MongoDB engine. With MONGODB_URL set it runs against that
// server (each test server uses its own database); otherwise it starts the in-process emulator for the run and
// leaves out the tests listed in ./emulator-exclusions.ts. Extra arguments go to mocha (e.g. test files).
import { spawn } from 'node:child_process'
import path from 'node:path'
import { startMongoEmulator } from '../helpers/mongo-emulator'
import { emulatorExclusions } from './emulator-exclusions'

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const main = async () => {
  const root = path.resolve(__dirname, '../..')
  const given = process.env.MONGODB_URL
  const emulator = given ? undefined : await startMongoEmulator()
  const url = given || emulator!.url
  const args = [require.resolve('mocha/bin/mocha.js'), ...process.argv.slice(2)]
  if (emulator && emulatorExclusions.length > 0) {
    args.push('--grep', `^(${emulatorExclusions.map((entry) => escape(entry.title)).join('|')})$`, '--invert')
  }
  process.stdout.write(`test:mongo on ${emulator ? `the emulator (${url}), ${emulatorExclusions.length} test(s) left out` : 'MONGODB_URL'}\n`)
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, MONGODB_URL: url } })
  const code = await new Promise<number>((resolve) => child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))))
  await emulator?.stop()
  process.exit(code)
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`)
  process.exit(1)
})
