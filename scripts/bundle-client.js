// `npm run bundle:client`: the typed client as an installable package, as the Feathers generator does it —
// src/client.ts and every service's `<name>.shared.ts` compiled to lib/ (JS + .d.ts; the schemas' .d.ts give the
// types), with a package.json depending only on @feathersjs packages, packed to clinic-backend-client-<version>.tgz.
// The package ships only the declarations its entry point reaches, and every module they or its JavaScript import
// is one of its dependencies: an app type-checks it with `skipLibCheck: false` (a server-only import, such as
// @feathersjs/koa, stops the bundle instead).
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const root = path.resolve(__dirname, '..')
// `node scripts/bundle-client.js [directory]` builds and packs in that directory instead of the project's.
const destination = path.resolve(process.argv[2] ?? root)
const out = path.join(destination, 'client-package')
const server = require(path.join(root, 'package.json'))
const run = (command, args, cwd = root) =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] }).toString()

fs.rmSync(out, { recursive: true, force: true })
run(process.execPath, [
  require.resolve('typescript/bin/tsc'),
  '-p',
  'tsconfig.client.json',
  '--outDir',
  path.join(out, 'lib')
])

// The runtime needs lib/client.js, the shared files (paths and methods) and client-params; the rest is types.
const keep = (file) =>
  file.endsWith('.d.ts') ||
  file === 'client.js' ||
  file.endsWith('.shared.js') ||
  file.endsWith('client-params.js')
const prune = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) prune(full)
    else if (!keep(entry.name)) fs.rmSync(full)
  }
}
prune(path.join(out, 'lib'))

// The declarations reachable from lib/client.d.ts through relative imports; the others (server modules the
// compiler went through) are left out. Returns the bare modules the shipped files import.
const specifiers = (text) =>
  [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map(
    (m) => m[1]
  )
const declarationOf = (from, specifier) => {
  const base = path.resolve(path.dirname(from), specifier)
  const found = [`${base}.d.ts`, path.join(base, 'index.d.ts')].find((file) => fs.existsSync(file))
  if (!found)
    throw new Error(`${path.relative(out, from)} imports ${specifier}, which the package does not have`)
  return found
}
const shipped = new Set()
const bare = new Map()
const visit = (file) => {
  if (shipped.has(file)) return
  shipped.add(file)
  for (const specifier of specifiers(fs.readFileSync(file, 'utf8'))) {
    if (specifier.startsWith('.')) visit(declarationOf(file, specifier))
    else bare.set(specifier, file)
  }
}
visit(path.join(out, 'lib/client.d.ts'))
const files = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]
    )
for (const file of files(path.join(out, 'lib'))) {
  if (file.endsWith('.d.ts') && !shipped.has(file)) fs.rmSync(file)
  else if (file.endsWith('.js'))
    for (const specifier of specifiers(fs.readFileSync(file, 'utf8')))
      if (!specifier.startsWith('.')) bare.set(specifier, file)
}

// Its dependencies: the @feathersjs packages at the server's versions, and TypeBox at the version @feathersjs/typebox uses.
const typeboxOwn = require(
  path.join(
    path.dirname(require.resolve('@feathersjs/typebox/package.json', { paths: [root] })),
    'package.json'
  )
)
const dependencies = {
  '@feathersjs/authentication': server.dependencies['@feathersjs/authentication'],
  '@feathersjs/authentication-client': server.dependencies['@feathersjs/authentication-client'],
  '@feathersjs/errors': server.dependencies['@feathersjs/errors'],
  '@feathersjs/feathers': server.dependencies['@feathersjs/feathers'],
  '@feathersjs/schema': server.dependencies['@feathersjs/schema'],
  '@feathersjs/typebox': server.dependencies['@feathersjs/typebox'],
  '@sinclair/typebox': typeboxOwn.dependencies['@sinclair/typebox']
}
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/')
for (const [specifier, file] of bare) {
  if (!dependencies[packageName(specifier)]) {
    throw new Error(
      `${path.relative(out, file)} imports ${specifier}, which is not a dependency of the client package (a server-only module?)`
    )
  }
}

const pkg = {
  name: `${server.name}-client`,
  version: server.version,
  description: `Typed Feathers client for ${server.name}: createClient(connection) with every service typed by its schemas`,
  main: 'lib/client.js',
  types: 'lib/client.d.ts',
  files: ['lib/'],
  dependencies
}
fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`)
fs.writeFileSync(
  path.join(out, 'README.md'),
  `# ${pkg.name}\n\nTyped client of ${server.name}. With a transport of your choice:\n\n` +
    "```ts\nimport { createClient } from '" +
    pkg.name +
    "'\nimport socketio from '@feathersjs/socketio-client'\nimport { io } from 'socket.io-client'\n\n" +
    "const client = createClient(socketio(io('https://clinic.example.com')))\n```\n"
)
const packed = run('npm', ['pack', '--pack-destination', destination], out).trim().split('\n').pop()
console.log(`Client package: ${path.join(destination, packed)}`)
