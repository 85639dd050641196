// The typed client package (`npm run bundle:client`) as a browser app gets it: packed once, installed from the
// tarball into a new app (its dependencies and the Socket.IO transport from the npm cache first), then a file
// using several services is type-checked with `strict` and `skipLibCheck` false and true. Each `@ts-expect-error`
// in that file is a type the package must refuse (a hidden field read, a wrong field type); the check fails if it
// ever compiles.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { tempDir } from './helpers/app'

const run = promisify(execFile)
const root = path.resolve(__dirname, '..')
const versionOf = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version as string

const APP = `import { createClient, type SessionEnded } from 'clinic-backend-client'
import socketio from '@feathersjs/socketio-client'
import { io } from 'socket.io-client'

const client = createClient(socketio(io('https://clinic.example.org', { transports: ['websocket'] })))

export const whyEnded = (result: Partial<SessionEnded>): string => result.message ?? 'Signed out.'
client.on('logout', whyEnded)

export const main = async () => {
  await client.authenticate({ strategy: 'local', email: 'ada@example.org', password: 'correct horse battery' })

  const signedUp = await client.service('accounts').create({
    email: 'grace@example.org',
    password: 'correct horse battery',
    organization: { name: 'Hopper Clinic', type: 'facility' }
  })
  const facility: string = signedUp.organization.id
  // @ts-expect-error: the password hash never leaves the server
  void signedUp.password

  const account = await client.service('accounts').get(signedUp.id)
  const email: string = account.email
  // @ts-expect-error: nor the MFA secret
  void account.mfaSecret
  // @ts-expect-error: nor a linked Google identity
  void account.googleId
  // @ts-expect-error: nor the signed-out tokens
  void account.revokedTokens

  const invoice = await client.service('billing-invoices').create({ facility, subject: signedUp.id, subjectType: 'patient', type: 'consultation', currency: 'EUR' })
  const item = await client.service('billing-items').create({ invoice: invoice.id, type: 'product', price: 12.5, quantity: 2 })
  const amount: number = item.amount
  const records = await client.service('medical-records').find({ query: { $limit: 10 } })
  const total: number = records.total
  const webhook = await client.service('webhooks').get('w1')
  // @ts-expect-error: a webhook's signing secret is shown only in its registration answer
  void webhook.secret

  // @ts-expect-error: \`invoice\` is an id string, not a number
  await client.service('billing-items').create({ invoice: 42, type: 'product', price: 1 })
  // @ts-expect-error: no such service
  client.service('prescriptions')

  return { email, amount, total }
}
`

describe('typed client package', function () {
  this.timeout(180000)
  let dir: string

  before(async () => {
    dir = tempDir('clinic-client-package-')
    const { stdout } = await run(process.execPath, [path.join(root, 'scripts/bundle-client.js'), dir], {
      cwd: root
    })
    const tarball = /Client package: (.+\.tgz)/.exec(stdout)?.[1]
    assert.ok(tarball && fs.existsSync(tarball), stdout)
    const app = path.join(dir, 'app')
    fs.mkdirSync(app)
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'browser-app', private: true }))
    fs.writeFileSync(path.join(app, 'app.ts'), APP)
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        tarball,
        `@feathersjs/socketio-client@${versionOf('@feathersjs/socketio-client')}`,
        `socket.io-client@${versionOf('socket.io-client')}`
      ],
      { cwd: app }
    )
  })
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  for (const skipLibCheck of [false, true]) {
    it(`type-checks in a strict app with skipLibCheck ${skipLibCheck}: sign-up answers its organization, results carry no hidden field`, async () => {
      const app = path.join(dir, 'app')
      const config = `tsconfig.${skipLibCheck}.json`
      const compilerOptions = {
        strict: true,
        skipLibCheck,
        noEmit: true,
        target: 'ES2022',
        module: 'commonjs',
        moduleResolution: 'node',
        lib: ['ES2022', 'DOM'],
        esModuleInterop: true
      }
      fs.writeFileSync(path.join(app, config), JSON.stringify({ compilerOptions, files: ['app.ts'] }))
      const result = await run(
        process.execPath,
        [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', config],
        { cwd: app }
      ).catch((error) => error)
      assert.equal(`${result.stdout}${result.stderr}`, '', 'tsc reports nothing')
      assert.equal(result.code ?? 0, 0)
    })
  }

  it('ships only the declarations its entry point reaches: none of the server (no declarations.d.ts, no @feathersjs/koa)', () => {
    const lib = path.join(dir, 'app/node_modules/clinic-backend-client/lib')
    assert.ok(fs.existsSync(path.join(lib, 'client.d.ts')))
    assert.equal(fs.existsSync(path.join(lib, 'declarations.d.ts')), false)
    const texts = fs
      .readdirSync(lib, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') || file.endsWith('.js'))
      .map((file) => fs.readFileSync(path.join(lib, file), 'utf8'))
    assert.ok(texts.every((text) => !text.includes('@feathersjs/koa')))
  })
})
