// The browser console (Preact components in console/**/*.tsx, with the typed client of src/client.ts and the Socket.IO transport) bundled
// by esbuild into public/console.js, which the server serves at GET / with public/index.html. Run by
// `npm run build` (so `npm start` in development) and by `npm run test:browser`; nothing is fetched from elsewhere.
// `node scripts/bundle-console.js <file>` writes the bundle to <file> instead.
const path = require('node:path')
const esbuild = require('esbuild')

const root = path.resolve(__dirname, '..')
esbuild
  .build({
    entryPoints: [path.join(root, 'console/main.tsx')],
    outfile: process.argv[2] ? path.resolve(process.argv[2]) : path.join(root, 'public/console.js'),
    bundle: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning'
  })
  .catch(() => process.exit(1))
