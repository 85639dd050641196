// `npm run test:mongo`: the whole mocha suite on the MongoDB engine. With MONGODB_URL set it runs against that
// server (each test server uses its own database); otherwise it starts the in-process emulator for the run and
// leaves out the tests listed in ./emulator-exclusions.ts. Extra arguments go to mocha; test files named there
// are run instead of the whole suite (`npm run test:mongo -- test/cluster/instances.test.ts`).
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
  const extra = process.argv.slice(2)
  // .mocharc.json names no spec, so files named on the command line are run alone; without any, the whole suite.
  const files = extra.some((arg) => !arg.startsWith('-') && arg.endsWith('.ts'))
  const args = [require.resolve('mocha/bin/mocha.js'), ...(files ? [] : ['test/**/*.test.ts']), ...extra]
  if (emulator && emulatorExclusions.length > 0) {
    args.push('--grep', `^(${emulatorExclusions.map((entry) => escape(entry.title)).join('|')})$`, '--invert')
  }
  process.stdout.write(
    `test:mongo on ${emulator ? `the emulator (${url}), ${emulatorExclusions.length} test(s) left out` : 'MONGODB_URL'}\n`
  )
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MONGODB_URL: url }
  })
  const code = await new Promise<number>((resolve) =>
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)))
  )
  await emulator?.stop()
  process.exit(code)
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`)
  process.exit(1)
})
