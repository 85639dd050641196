// A production install runs: a build (lib/ and public/, made here into a temporary directory with the build
// commands of `npm run build`) copied with package.json, package-lock.json and config/ into a clean directory,
// `npm ci --omit=dev` there, and the documented production start (`node lib/index.js`, what `npm run serve` runs)
// answers /health/ready and records an audited login — with no ts-node or bundler installed and nothing compiled
// at start.
// And `npm start` (scripts/start.js) builds only in development, only when an output is missing or older than its
// sources, and never in production.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { tempDir, waitUntil } from '../helpers/app'
import { findStartLine } from '../helpers/server-process'

const root = path.resolve(__dirname, '../..')
const run = promisify(execFile)
const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))

describe('production install', function () {
  this.timeout(600_000)

  it('lists the build tools (TypeScript, ts-node, esbuild) as dev dependencies only', () => {
    for (const name of ['typescript', 'ts-node', 'esbuild']) {
      assert.equal(packageJson.dependencies[name], undefined, `${name} is not a production dependency`)
      assert.ok(packageJson.devDependencies[name], `${name} is a dev dependency`)
    }
    assert.equal(packageJson.scripts.serve, 'node lib/index.js')
    assert.equal(
      packageJson.scripts.prestart,
      undefined,
      'nothing is compiled before npm start by npm itself'
    )
  })

  it('npm ci --omit=dev of a build starts with `node lib/index.js` and answers /health/ready', async () => {
    const dir = tempDir('clinic-production-')
    // The build, as `npm run build` makes it, but into the copy (the working tree's lib/ is left alone).
    await run(
      process.execPath,
      [
        path.join(root, 'node_modules/typescript/bin/tsc'),
        '-p',
        path.join(root, 'tsconfig.build.json'),
        '--outDir',
        path.join(dir, 'lib')
      ],
      { cwd: root }
    )
    fs.cpSync(path.join(root, 'public'), path.join(dir, 'public'), {
      recursive: true,
      filter: (file) => path.basename(file) !== 'console.js'
    })
    await run(
      process.execPath,
      [path.join(root, 'scripts/bundle-console.js'), path.join(dir, 'public/console.js')],
      { cwd: root }
    )
    for (const file of ['package.json', 'package-lock.json'])
      fs.copyFileSync(path.join(root, file), path.join(dir, file))
    fs.cpSync(path.join(root, 'config'), path.join(dir, 'config'), { recursive: true })

    // The npm cache holds every package after the first install; the registry is asked only for what it lacks.
    await run(
      'npm',
      ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 }
    )
    for (const name of ['ts-node', 'esbuild', 'mocha'])
      assert.ok(!fs.existsSync(path.join(dir, 'node_modules', name)), `${name} is not installed`)
    const lib = fs.readdirSync(path.join(dir, 'lib'), { recursive: true }).length

    const [command, ...args] = packageJson.scripts.serve.split(' ')
    assert.equal(command, 'node')
    const child = spawn(process.execPath, args, {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: path.join(dir, 'data'),
        AUTH_SECRET: randomBytes(32).toString('hex'),
        ALLOW_SANDBOX_PAYMENTS: 'true'
      },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
    try {
      await waitUntil(
        () => findStartLine(output) !== undefined || child.exitCode !== null,
        60_000,
        'the start line'
      )
      const urls = findStartLine(output)?.urls
      assert.ok(urls, output)
      let ready: Response | undefined
      await waitUntil(async () => (ready = await fetch(urls.ready)).ok, 30_000, 'readiness')
      assert.equal(((await ready!.json()) as { status: string }).status, 'ready')
      assert.equal((await fetch(urls.console)).status, 200)
      // A login is audited by the audit writer thread, which runs the compiled lib/audit/writer-thread.js.
      const base = urls.ready.replace(/\/health\/ready$/, '')
      const post = (at: string, body: unknown) =>
        fetch(`${base}${at}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body)
        })
      const account = { email: 'ops@example.org', password: 'A production passphrase 1' }
      const signUp = await post('/accounts', account)
      assert.equal(signUp.status, 201, await signUp.text())
      const login = await post('/authentication', { strategy: 'local', ...account })
      assert.equal(login.status, 201, await login.text())
      assert.match(fs.readFileSync(path.join(dir, 'data', 'audit-events.db'), 'utf8'), /"action":"login"/)
    } finally {
      child.kill('SIGTERM')
    }
    assert.equal(await exited, 0, output)
    assert.equal(
      fs.readdirSync(path.join(dir, 'lib'), { recursive: true }).length,
      lib,
      'nothing was compiled at start'
    )
    // (the copy holds a whole production install)
    fs.rmSync(dir, { recursive: true, force: true })
  })
})

describe('npm start (scripts/start.js)', function () {
  this.timeout(120_000)

  /**
   * A project directory with scripts/start.js, sources, and (when `built`) a stand-in lib/index.js and
   * public/console.js that print a line; `sourcesNewer` makes src/ newer than them. `tools` links the project's
   * node_modules (TypeScript and esbuild present) and gives package.json a stand-in `build` script.
   */
  const project = (options: { built: boolean; sourcesNewer: boolean; tools: boolean }) => {
    const dir = tempDir('clinic-start-')
    fs.mkdirSync(path.join(dir, 'scripts'))
    fs.copyFileSync(path.join(root, 'scripts/start.js'), path.join(dir, 'scripts/start.js'))
    const stub =
      "const fs = require('node:fs'); fs.mkdirSync('lib', { recursive: true }); fs.mkdirSync('public', { recursive: true }); fs.writeFileSync('lib/index.js', \"console.log('server from the new build')\"); fs.writeFileSync('public/console.js', '')"
    fs.writeFileSync(path.join(dir, 'build.js'), stub)
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'start-check', private: true, scripts: { build: 'node build.js' } })
    )
    if (options.tools) fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'))
    fs.mkdirSync(path.join(dir, 'src'))
    fs.writeFileSync(path.join(dir, 'src/index.ts'), '')
    const old = new Date(Date.now() - 3_600_000)
    if (options.built) {
      fs.mkdirSync(path.join(dir, 'lib'))
      fs.mkdirSync(path.join(dir, 'public'))
      fs.writeFileSync(path.join(dir, 'lib/index.js'), "console.log('server from the existing build')")
      fs.writeFileSync(path.join(dir, 'public/console.js'), '')
      if (options.sourcesNewer)
        for (const file of ['lib/index.js', 'public/console.js'])
          fs.utimesSync(path.join(dir, file), old, old)
      else fs.utimesSync(path.join(dir, 'src/index.ts'), old, old)
    }
    return dir
  }

  const start = (dir: string, env: Record<string, string>) =>
    run(process.execPath, ['scripts/start.js'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }
    }).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: error.stdout + error.stderr
      })
    )

  it('in development builds when the build is older than the sources, then starts it', async () => {
    const { code, output } = await start(project({ built: true, sourcesNewer: true, tools: true }), {
      NODE_ENV: 'development'
    })
    assert.equal(code, 0, output)
    assert.match(
      output,
      /^Building \(lib\/index\.js and public\/console\.js missing or older than the sources\): npm run build$/m
    )
    assert.match(output, /^server from the new build$/m)
  })

  it('in development starts an up-to-date build without building', async () => {
    const { code, output } = await start(project({ built: true, sourcesNewer: false, tools: true }), {
      NODE_ENV: 'development'
    })
    assert.equal(code, 0, output)
    assert.equal(output.trim(), 'server from the existing build')
  })

  it('in production never builds, even when the sources are newer', async () => {
    const { code, output } = await start(project({ built: true, sourcesNewer: true, tools: true }), {
      NODE_ENV: 'production'
    })
    assert.equal(code, 0, output)
    assert.equal(output.trim(), 'server from the existing build')
  })

  it('in production without a build says what to run, as one JSON line, and exits 1', async () => {
    const dir = project({ built: false, sourcesNewer: false, tools: true })
    const { code, output } = await start(dir, { NODE_ENV: 'production' })
    assert.equal(code, 1)
    const lines = output.trim().split('\n')
    assert.equal(lines.length, 1, output)
    const line = JSON.parse(lines[0])
    assert.equal(line.level, 'error')
    assert.match(
      line.msg,
      /^lib\/index\.js is missing: build on a machine with the dev dependencies \(npm ci, then npm run build\)/
    )
    assert.ok(!fs.existsSync(path.join(dir, 'lib')), 'nothing was built')
  })

  it('in development without the build tools starts the existing build, and says why it did not rebuild', async () => {
    const { code, output } = await start(project({ built: true, sourcesNewer: true, tools: false }), {
      NODE_ENV: 'development'
    })
    assert.equal(code, 0, output)
    assert.match(
      output,
      /older than the sources, and the dev dependencies that rebuild it are not installed \(npm install\)/
    )
    assert.match(output, /^server from the existing build$/m)
  })
})
