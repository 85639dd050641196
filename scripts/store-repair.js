// `npm run store:repair -- <file|folder>`: repairs an embedded-engine data file (src/ops/store-repair.ts). Runs the
// TypeScript source where ts-node is installed (a development checkout), else the build in lib/ (a production
// install, which has no ts-node).
const fs = require('node:fs')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
const hasTsNode = (() => {
  try {
    require.resolve('ts-node/register/transpile-only')
    return true
  } catch {
    return false
  }
})()
const source = path.join(root, 'src/ops/store-repair.ts')
let entry = path.join(root, 'lib/ops/store-repair.js')
if (hasTsNode && fs.existsSync(source)) {
  require('ts-node/register/transpile-only')
  entry = source
}
// Relative paths are the operator's: npm runs scripts in the package folder, and says where it was called from.
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD)
Promise.resolve(require(entry).main(process.argv.slice(2))).then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`${error?.message ?? error}\n`)
    process.exitCode = 1
  }
)
