// The container recipe, checked without Docker: the Dockerfile's final stage (base image, production-only
// install, non-root user, a HEALTHCHECK on a probe the app serves), its CMD run here as the image would run it
// (compiled first, as the build stage does), compose.yaml's topology, and .env.example against the variables the
// server reads.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { http, startServer, tempDir, waitUntil } from '../helpers/app'
import { serverVariables } from '../helpers/settings'
import { findStartLine } from '../helpers/server-process'

const root = path.resolve(__dirname, '../..')
const run = promisify(execFile)

interface Instruction {
  op: string
  args: string
}

/** Dockerfile instructions (continuation lines joined, comments dropped), grouped by stage. */
const parseDockerfile = (text: string) => {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)
  const stages: { from: string; name?: string; instructions: Instruction[] }[] = []
  for (const line of lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line) ?? []
    if (!op) continue
    if (op.toUpperCase() === 'FROM') {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(args) ?? []
      stages.push({ from, name, instructions: [] })
    } else stages.at(-1)?.instructions.push({ op: op.toUpperCase(), args })
  }
  return stages
}

const execForm = (args: string): string[] => JSON.parse(args)

describe('container recipe', function () {
  this.timeout(180_000)
  const stages = parseDockerfile(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'))
  const final = stages.at(-1)!
  const of = (op: string) => final.instructions.filter((instruction) => instruction.op === op)

  it('is multi-stage and ends on a Node 20 image with a production-only install', () => {
    assert.ok(stages.length >= 2, 'at least a build and a runtime stage')
    assert.match(final.from, /^node:20[.-]/)
    assert.ok(of('RUN').some((instruction) => /npm ci --omit=dev/.test(instruction.args)))
    assert.ok(of('COPY').some((instruction) => /--from=build/.test(instruction.args) && /lib/.test(instruction.args)), 'compiled code comes from the build stage')
    assert.ok(stages[0].instructions.some((instruction) => instruction.op === 'RUN' && /npm run build/.test(instruction.args)))
  })

  it('runs as a non-root user', () => {
    const users = of('USER')
    assert.ok(users.length > 0, 'USER is set in the final stage')
    assert.doesNotMatch(users.at(-1)!.args, /^(root|0)(:|$)/)
  })

  it('has a HEALTHCHECK on a probe path the app answers with 200', async () => {
    const healthcheck = of('HEALTHCHECK')[0]
    assert.ok(healthcheck, 'HEALTHCHECK is set')
    const probe = /\/health\/(live|ready)/.exec(healthcheck.args)?.[0]
    assert.ok(probe, healthcheck.args)
    const server = await startServer()
    try {
      assert.equal((await http(server.url, 'GET', probe)).status, 200)
    } finally {
      await server.close()
    }
  })

  it('starts with its CMD and ENV (compiled as in the build stage), passes its own HEALTHCHECK and stops on SIGTERM with 0', async () => {
    await run('npm', ['run', 'build'], { cwd: root })
    const cmd = execForm(of('CMD').at(-1)!.args)
    const env: Record<string, string> = {}
    for (const instruction of of('ENV')) for (const match of instruction.args.matchAll(/(\w+)=(\S+)/g)) env[match[1]] = match[2]
    assert.equal(env.NODE_ENV, 'production')
    const child = spawn(cmd[0] === 'node' ? process.execPath : cmd[0], cmd.slice(1), {
      cwd: root,
      env: { ...process.env, ...env, DATA_DIR: tempDir('clinic-image-'), HOST: '127.0.0.1', PORT: '0', AUTH_SECRET: 'a-production-secret-for-this-test', LOG_LEVEL: 'warn', MONGODB_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      await waitUntil(() => findStartLine(output) !== undefined, 60_000, `the start line from ${cmd.join(' ')}`)
      const port = String(findStartLine(output)!.port)
      const check = execForm(of('HEALTHCHECK')[0].args.replace(/^.*?CMD\s+/, ''))
      const { stdout } = await run(check[0] === 'node' ? process.execPath : check[0], [...check.slice(1)], { env: { ...process.env, PORT: port } }).then(
        (result) => ({ stdout: `exit 0 ${result.stdout}` }),
        (error) => ({ stdout: `exit ${error.code}` })
      )
      assert.match(stdout, /^exit 0/, 'the HEALTHCHECK command passes')
    } finally {
      child.kill('SIGTERM')
    }
    assert.equal(await exited, 0, output)
  })

  it('compose.yaml runs two app instances on a MongoDB replica set with Redis, and a single-instance profile with a data volume', () => {
    const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true })
    const services = compose.services
    for (const name of ['app1', 'app2']) {
      assert.equal(services[name].build, '.')
      assert.match(services[name].environment.MONGODB_URL, /^mongodb:\/\/mongo:27017\/\w+\?replicaSet=rs0$/)
      assert.match(services[name].environment.REDIS_URL, /^redis:\/\/redis:6379/)
      assert.deepEqual(Object.keys(services[name].depends_on).sort(), ['mongo', 'redis'])
    }
    assert.ok(services.mongo.command.includes('--replSet'))
    assert.ok(services.redis)
    assert.deepEqual(services.single.profiles, ['single'])
    assert.equal(services.single.environment.DATA_DIR, '/data')
    assert.ok(services.single.volumes.some((volume: string) => volume.endsWith(':/data')))
    assert.ok(compose.volumes['clinic-data'] !== undefined)
  })

  it("compose.yaml starts the app instances only once MongoDB's replica set has a primary and Redis answers", () => {
    const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true })
    const services = compose.services
    for (const name of ['app1', 'app2']) assert.deepEqual(services[name].depends_on, { mongo: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } })
    const mongoCheck: string = services.mongo.healthcheck.test.join(' ')
    assert.match(mongoCheck, /rs\.initiate\(\{ _id: 'rs0', members: \[\{ _id: 0, host: 'mongo:27017' \}\] \}\)/)
    // mongosh exits 0 whatever an --eval expression evaluates to: health must come from an explicit exit code.
    assert.match(mongoCheck, /quit\(db\.hello\(\)\.isWritablePrimary \? 0 : 1\)/)
    assert.deepEqual(services.redis.healthcheck.test, ['CMD', 'redis-cli', 'ping'])
    for (const name of ['app1', 'app2', 'single']) assert.ok(Number.parseInt(services[name].stop_grace_period) > Number(services[name].environment.SHUTDOWN_GRACE_MS ?? 10000) / 1000, `${name}: stop_grace_period longer than the grace period`)
  })

  it('.env.example lists every variable the server reads, with the defaults of config/default.json', () => {
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8')
    const listed = new Map(
      example
        .split('\n')
        .filter((line) => /^[A-Z0-9_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const)
    )
    assert.deepEqual([...listed.keys()].sort(), serverVariables())
    assert.equal(listed.get('PORT'), '3030')
    assert.equal(listed.get('SHUTDOWN_GRACE_MS'), '10000')
    assert.equal(listed.get('PASSWORD_MIN_LENGTH'), '10')
  })
})
