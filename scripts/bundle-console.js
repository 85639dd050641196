// The browser console (console/*.ts, with the typed client of src/client.ts and the Socket.IO transport) bundled
// by esbuild into public/console.js, which the server serves at GET / with public/index.html. Run by
// `npm run compile` (so `npm start`) and by `npm run test:browser`; nothing is fetched from elsewhere.
const path = require('node:path')
const esbuild = require('esbuild')

const root = path.resolve(__dirname, '..')
esbuild
  .build({
    entryPoints: [path.join(root, 'console/main.ts')],
    outfile: path.join(root, 'public/console.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning'
  })
  .catch(() => process.exit(1))
