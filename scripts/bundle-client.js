// `npm run bundle:client`: the typed client as an installable package, as the Feathers generator does it —
// src/client.ts and every service's `<name>.shared.ts` compiled to lib/ (JS + .d.ts; the schemas' .d.ts give the
// types), with a package.json depending only on @feathersjs packages, packed to clinic-backend-client-<version>.tgz.
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const root = path.resolve(__dirname, '..')
const out = path.join(root, 'client-package')
const server = require(path.join(root, 'package.json'))
const run = (command, args, cwd = root) => execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] }).toString()

fs.rmSync(out, { recursive: true, force: true })
run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.client.json'])

// The runtime needs lib/client.js, the shared files (paths and methods) and client-params; the rest is types.
const keep = (file) => file.endsWith('.d.ts') || file === 'client.js' || file.endsWith('.shared.js') || file.endsWith('client-params.js')
const prune = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) prune(full)
    else if (!keep(entry.name)) fs.rmSync(full)
  }
}
prune(path.join(out, 'lib'))

const feathersVersion = server.dependencies['@feathersjs/feathers']
const pkg = {
  name: `${server.name}-client`,
  version: server.version,
  description: `Typed Feathers client for ${server.name}: createClient(connection) with every service typed by its schemas`,
  main: 'lib/client.js',
  types: 'lib/client.d.ts',
  files: ['lib/'],
  dependencies: {
    '@feathersjs/authentication-client': server.dependencies['@feathersjs/authentication-client'],
    '@feathersjs/feathers': feathersVersion,
    '@feathersjs/typebox': server.dependencies['@feathersjs/typebox']
  }
}
fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`)
fs.writeFileSync(
  path.join(out, 'README.md'),
  `# ${pkg.name}\n\nTyped client of ${server.name}. With a transport of your choice:\n\n` +
    "```ts\nimport { createClient } from '" + pkg.name + "'\nimport socketio from '@feathersjs/socketio-client'\nimport { io } from 'socket.io-client'\n\n" +
    "const client = createClient(socketio(io('https://clinic.example.com')))\n```\n"
)
const packed = run('npm', ['pack', '--pack-destination', root], out).trim().split('\n').pop()
console.log(`Client package: ${path.join(root, packed)}`)
