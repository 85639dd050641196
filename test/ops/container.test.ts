// The container recipe, checked without Docker: the Dockerfile's final stage (base image, production-only
// install, non-root user, a HEALTHCHECK on a probe the app serves), its CMD run here as the image would run it
// (compiled first, as the build stage does, on real payments as production requires), compose.yaml's topology (two
// instances on Stripe behind one nginx with sticky sessions, the deployment settings passed from .env) and its
// nginx configuration, and .env.example against the variables the server reads.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { http, startServer, tempDir, waitUntil } from '../helpers/app'
import { serverVariables } from '../helpers/settings'
import { startStripeServer } from '../helpers/stripe-server'
import { section } from '../readme/quick-start'
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

interface NginxDirective {
  name: string
  args: string[]
  block?: NginxDirective[]
}

/** nginx configuration text as directives with their arguments and blocks (comments dropped). */
const parseNginx = (text: string): NginxDirective[] => {
  const tokens = text.replace(/#[^\n]*/g, '').match(/"[^"]*"|'[^']*'|[{};]|[^\s{};]+/g) ?? []
  let at = 0
  const block = (): NginxDirective[] => {
    const directives: NginxDirective[] = []
    while (at < tokens.length && tokens[at] !== '}') {
      const words: string[] = []
      while (at < tokens.length && !['{', ';', '}'].includes(tokens[at])) words.push(tokens[at++])
      const end = tokens[at++]
      const directive: NginxDirective = { name: words[0], args: words.slice(1) }
      if (end === '{') {
        directive.block = block()
        assert.equal(tokens[at++], '}', 'a closed block')
      } else assert.equal(end, ';', `${words.join(' ')} ends with ;`)
      directives.push(directive)
    }
    return directives
  }
  const directives = block()
  assert.equal(at, tokens.length, 'no stray }')
  return directives
}

describe('container recipe', function () {
  this.timeout(180_000)
  const stages = parseDockerfile(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'))
  const final = stages.at(-1)!
  const of = (op: string) => final.instructions.filter((instruction) => instruction.op === op)

  it('is multi-stage and ends on a Node 20 image with a production-only install', () => {
    assert.ok(stages.length >= 2, 'at least a build and a runtime stage')
    assert.match(final.from, /^node:20[.-]/)
    assert.ok(of('RUN').some((instruction) => /npm ci --omit=dev/.test(instruction.args)))
    assert.ok(
      of('COPY').some((instruction) => /--from=build/.test(instruction.args) && /lib/.test(instruction.args)),
      'compiled code comes from the build stage'
    )
    assert.ok(
      stages[0].instructions.some(
        (instruction) => instruction.op === 'RUN' && /npm run build/.test(instruction.args)
      )
    )
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
    for (const instruction of of('ENV'))
      for (const match of instruction.args.matchAll(/(\w+)=(\S+)/g)) env[match[1]] = match[2]
    assert.equal(env.NODE_ENV, 'production')
    // Production takes real payments only: the image runs here on Stripe (its local stand-in, a live-mode key).
    const stripe = await startStripeServer(`sk_live_${crypto.randomBytes(12).toString('hex')}`)
    const payments = {
      PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_HOST: '127.0.0.1',
      STRIPE_PORT: String(stripe.port),
      STRIPE_PROTOCOL: 'http',
      GATEWAYS: '[]'
    }
    const child = spawn(cmd[0] === 'node' ? process.execPath : cmd[0], cmd.slice(1), {
      cwd: root,
      env: {
        ...process.env,
        ...env,
        ...payments,
        DATA_DIR: tempDir('clinic-image-'),
        HOST: '127.0.0.1',
        PORT: '0',
        AUTH_SECRET: crypto.randomBytes(48).toString('base64'),
        LOG_LEVEL: 'warn',
        MONGODB_URL: ''
      },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      await waitUntil(
        () => findStartLine(output) !== undefined,
        60_000,
        `the start line from ${cmd.join(' ')}`
      )
      const port = String(findStartLine(output)!.port)
      const check = execForm(of('HEALTHCHECK')[0].args.replace(/^.*?CMD\s+/, ''))
      const { stdout } = await run(check[0] === 'node' ? process.execPath : check[0], [...check.slice(1)], {
        env: { ...process.env, PORT: port }
      }).then(
        (result) => ({ stdout: `exit 0 ${result.stdout}` }),
        (error) => ({ stdout: `exit ${error.code}` })
      )
      assert.match(stdout, /^exit 0/, 'the HEALTHCHECK command passes')
    } finally {
      child.kill('SIGTERM')
    }
    assert.equal(await exited, 0, output)
    await stripe.close()
  })

  it('compose.yaml runs two app instances on a MongoDB replica set with Redis, and a single-instance profile with a data volume', () => {
    const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true })
    const services = compose.services
    for (const name of ['app1', 'app2']) {
      assert.equal(services[name].build, '.')
      assert.match(services[name].environment.MONGODB_URL, /^mongodb:\/\/mongo:27017\/\w+\?replicaSet=rs0$/)
      assert.match(services[name].environment.REDIS_URL, /^redis:\/\/redis:6379/)
      assert.deepEqual(Object.keys(services[name].depends_on).sort(), ['mongo', 'redis'])
      // The sandbox processor keeps cards in one process: several instances run on Stripe.
      assert.equal(services[name].environment.PROCESSOR, 'stripe')
      assert.equal(services[name].ports, undefined, `${name} is reached through the load balancer only`)
      assert.equal(services[name].environment.TRUST_PROXY, 'true')
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
    for (const name of ['app1', 'app2'])
      assert.deepEqual(services[name].depends_on, {
        mongo: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' }
      })
    const mongoCheck: string = services.mongo.healthcheck.test.join(' ')
    assert.match(
      mongoCheck,
      /rs\.initiate\(\{ _id: 'rs0', members: \[\{ _id: 0, host: 'mongo:27017' \}\] \}\)/
    )
    // mongosh exits 0 whatever an --eval expression evaluates to: health must come from an explicit exit code.
    assert.match(mongoCheck, /quit\(db\.hello\(\)\.isWritablePrimary \? 0 : 1\)/)
    assert.deepEqual(services.redis.healthcheck.test, ['CMD', 'redis-cli', 'ping'])
    for (const name of ['app1', 'app2', 'single'])
      assert.ok(
        Number.parseInt(services[name].stop_grace_period) >
          Number(services[name].environment.SHUTDOWN_GRACE_MS ?? 10000) / 1000,
        `${name}: stop_grace_period longer than the grace period`
      )
  })

  it('compose.yaml passes into its app containers every setting docs/deployment.md names for running it', () => {
    const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true })
    // The whole page but its start-up diagnostics, whose examples name settings (HOST, PORT…) only to show messages.
    const page = fs.readFileSync(path.join(root, 'docs/deployment.md'), 'utf8')
    const diagnostics = ['The start line', 'When start-up fails'].map((heading) => section(page, heading))
    const deployment = diagnostics.reduce((text, part) => text.replace(part, ''), page)
    const known = new Set(serverVariables())
    const named = [...new Set([...deployment.matchAll(/\b[A-Z][A-Z0-9_]{2,}\b/g)].map((match) => match[0]))]
      .filter((name) => known.has(name))
      .sort()
    for (const name of [
      'AUTH_SECRET',
      'PROCESSOR',
      'STRIPE_SECRET_KEY',
      'GATEWAYS',
      'ALLOW_SANDBOX_PAYMENTS',
      'METRICS_TOKEN'
    ])
      assert.ok(named.includes(name), `the deployment section names ${name}`)
    // Set by the topology itself, the same whatever .env says.
    const fixed: Record<string, string[]> = {
      app1: ['NODE_ENV', 'MONGODB_URL', 'REDIS_URL', 'PROCESSOR', 'TRUST_PROXY', 'SHUTDOWN_GRACE_MS'],
      app2: ['NODE_ENV', 'MONGODB_URL', 'REDIS_URL', 'PROCESSOR', 'TRUST_PROXY', 'SHUTDOWN_GRACE_MS'],
      single: ['NODE_ENV', 'DATA_DIR', 'SHUTDOWN_GRACE_MS']
    }
    for (const [service, own] of Object.entries(fixed)) {
      const environment = compose.services[service].environment
      for (const name of named) {
        if (service === 'single' && (name === 'MONGODB_URL' || name === 'REDIS_URL')) continue // the embedded engine, one process
        if (service !== 'single' && name === 'DATA_DIR') continue // on MongoDB the data folder holds no data (and takes no lock)
        assert.ok(name in environment, `${service} gets ${name}`)
        if (!own.includes(name))
          assert.match(
            String(environment[name]),
            new RegExp(`^\\$\\{${name}(:[-?][^}]*)?\\}$`),
            `${service}: ${name} comes from .env`
          )
      }
    }
    // Left unset, the payment settings take no sandbox in production (the server would refuse one anyway).
    const defaultOf = (value: string) => /^\$\{\w+:-(.*)\}$/.exec(value)?.[1]
    const env = compose.services.app1.environment
    assert.equal(defaultOf(env.GATEWAYS), '[]')
    assert.equal(defaultOf(env.ALLOW_SANDBOX_PAYMENTS), 'false')
    assert.equal(defaultOf(env.PAYPAL_BASE_URL), 'https://api-m.paypal.com')
    assert.equal(defaultOf(compose.services.single.environment.PROCESSOR), 'stripe')
    assert.match(
      env.AUTH_SECRET,
      /^\$\{AUTH_SECRET:\?.*openssl rand -base64 48/,
      'compose stops at once without AUTH_SECRET'
    )
  })

  it('compose.yaml puts one nginx in front of both instances: one URL, each client kept on one instance, WebSocket upgrades passed', () => {
    const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true })
    const services = compose.services
    const proxies = Object.entries<any>(services).filter(([, service]) => /^nginx:/.test(service.image ?? ''))
    assert.equal(proxies.length, 1, 'one load balancer')
    const [, proxy] = proxies[0]
    assert.deepEqual(proxy.depends_on, {
      app1: { condition: 'service_healthy' },
      app2: { condition: 'service_healthy' }
    })
    assert.equal(proxy.ports.length, 1)
    const [, , containerPort] = /^(\d+):(\d+)$/.exec(proxy.ports[0]) ?? []
    const mount = proxy.volumes
      .map((volume: string) => volume.split(':'))
      .find(([, target]: string[]) => target === '/etc/nginx/conf.d/default.conf')
    assert.ok(mount, 'the site configuration is mounted')
    assert.equal(mount[2], 'ro')
    const config = parseNginx(fs.readFileSync(path.join(root, mount[0]), 'utf8'))

    const upstreams = config.filter((directive) => directive.name === 'upstream')
    assert.equal(upstreams.length, 1)
    const upstream = upstreams[0]
    const servers = upstream
      .block!.filter((directive) => directive.name === 'server')
      .map((directive) => directive.args[0])
    const appPort = Number(services.app1.environment.PORT ?? 3030)
    assert.deepEqual(
      servers,
      ['app1', 'app2'].map((name) => `${name}:${appPort}`),
      'both instances, on the port they listen on'
    )
    // Sticky per client: Socket.IO's polling handshake and its upgrade must reach the same instance.
    const sticky = upstream.block!.find(
      (directive) => directive.name === 'ip_hash' || directive.name === 'hash' || directive.name === 'sticky'
    )
    assert.ok(sticky, 'a sticky balancing method')
    if (sticky.name === 'hash') assert.match(sticky.args.join(' '), /\$remote_addr|\$cookie_/)

    const server = config.find((directive) => directive.name === 'server')!.block!
    assert.deepEqual(server.find((directive) => directive.name === 'listen')?.args, [containerPort])
    const location = server.find(
      (directive) => directive.name === 'location' && directive.args[0] === '/'
    )!.block!
    const value = (name: string, header?: string) =>
      location.find(
        (directive) => directive.name === name && (header === undefined || directive.args[0] === header)
      )?.args
    assert.deepEqual(value('proxy_pass'), [`http://${upstream.args[0]}`])
    assert.deepEqual(value('proxy_http_version'), ['1.1'])
    assert.deepEqual(value('proxy_set_header', 'Upgrade'), ['Upgrade', '$http_upgrade'])
    const connection = value('proxy_set_header', 'Connection')![1]
    const map = config.find((directive) => directive.name === 'map' && directive.args[1] === connection)
    assert.ok(
      connection === '"upgrade"' || (map && map.args[0] === '$http_upgrade'),
      'Connection: upgrade for WebSockets'
    )
    // The app trusts the first X-Forwarded-For address (TRUST_PROXY): the proxy sets it, never appends to the client's.
    assert.deepEqual(value('proxy_set_header', 'X-Forwarded-For'), ['X-Forwarded-For', '$remote_addr'])
    assert.ok(Number.parseInt(value('proxy_read_timeout')![0]) > 25, 'longer than the Socket.IO heartbeat')
    const bodyLimit = server.find((directive) => directive.name === 'client_max_body_size')?.args[0] ?? '1m'
    assert.ok(
      Number.parseInt(bodyLimit) > 1,
      'larger than BODY_LIMIT, so the app answers oversize bodies itself'
    )
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
