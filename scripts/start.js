// `npm start`: runs the compiled server (lib/index.js) in this process. In development it first builds (`npm run
// build`: TypeScript to lib/, the browser console to public/console.js) when an output is missing or older than
// the sources it comes from. In production (NODE_ENV=production) it never builds: it starts what `npm run build`
// left, as `node lib/index.js` and `npm run serve` do, and says what to run when there is nothing to start.
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const root = path.resolve(__dirname, '..')
const production = process.env.NODE_ENV === 'production'

// One line for the operator: JSON in production (as every log line there), plain text otherwise.
const say = (level, msg) => {
  const line = production
    ? JSON.stringify({ level, time: Date.now(), msg })
    : `${level === 'error' ? 'Error: ' : ''}${msg}`
  ;(level === 'error' ? process.stderr : process.stdout).write(`${line}\n`)
}

/** The latest modification time (ms) of the files under `paths` (directories walked), 0 when none exists. */
const newest = (paths) => {
  let latest = 0
  const visit = (file) => {
    let stat
    try {
      stat = fs.statSync(file)
    } catch {
      return
    }
    if (stat.isDirectory()) for (const entry of fs.readdirSync(file)) visit(path.join(file, entry))
    else latest = Math.max(latest, stat.mtimeMs)
  }
  for (const file of paths) visit(path.join(root, file))
  return latest
}

const modified = (file) => {
  try {
    return fs.statSync(path.join(root, file)).mtimeMs
  } catch {
    return 0
  }
}

// What each output is built from (the console bundles src/client.ts and the schemas it imports from src/).
const outputs = [
  { file: 'lib/index.js', sources: ['src', 'tsconfig.json', 'tsconfig.build.json'] },
  { file: 'public/console.js', sources: ['console', 'src', 'scripts/bundle-console.js'] }
]

const stale = outputs.filter(({ file, sources }) => modified(file) === 0 || newest(sources) > modified(file))
const built = fs.existsSync(path.join(root, 'lib/index.js'))
const canBuild = ['typescript', 'esbuild'].every((name) => {
  try {
    require.resolve(name, { paths: [root] })
    return true
  } catch {
    return false
  }
})

if (stale.length > 0 && !production) {
  if (canBuild) {
    say(
      'info',
      `Building (${stale.map(({ file }) => file).join(' and ')} missing or older than the sources): npm run build`
    )
    const build = spawnSync('npm', ['run', '--silent', 'build'], {
      cwd: root,
      stdio: 'inherit',
      shell: process.platform === 'win32'
    })
    if (build.status !== 0) {
      say('error', 'npm run build failed (its errors are above); fix them, then run npm start again')
      process.exit(1)
    }
  } else if (!built) {
    say(
      'error',
      'lib/index.js is missing and the dev dependencies that build it are not installed; run npm install, then npm start'
    )
    process.exit(1)
  } else {
    say(
      'info',
      `Starting the existing build: ${stale.map(({ file }) => file).join(' and ')} is older than the sources, and the dev dependencies that rebuild it are not installed (npm install)`
    )
  }
} else if (!built) {
  say(
    'error',
    'lib/index.js is missing: build on a machine with the dev dependencies (npm ci, then npm run build) and ship lib/ and public/ with the production install'
  )
  process.exit(1)
}

require(path.join(root, 'lib/index.js'))
