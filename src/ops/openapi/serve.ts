// GET /openapi.json (the document) and GET /docs (Swagger UI from the swagger-ui-dist package, served from
// node_modules by this process: no CDN).
import fs from 'node:fs'
import path from 'node:path'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application } from '../../declarations'
import { openApiOf } from './document'

// swagger-ui-dist's folder (its package main is an index that only exports this path).
const assetsDir = path.dirname(require.resolve('swagger-ui-dist/package.json'))
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png'
}

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Clinic back end — API reference</title>
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png">
  <link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`

const init = `window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 })\n`

export const openApiEndpoints =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next()
    if (ctx.path === '/openapi.json') {
      ctx.body = openApiOf(app)
      return
    }
    if (ctx.path === '/docs/') return ctx.redirect('/docs')
    if (ctx.path === '/docs') {
      ctx.type = 'text/html; charset=utf-8'
      ctx.body = page
      return
    }
    if (ctx.path === '/docs/init.js') {
      ctx.type = 'application/javascript; charset=utf-8'
      ctx.body = init
      return
    }
    const file = ctx.path.startsWith('/docs/') ? ctx.path.slice('/docs/'.length) : ''
    if (Object.hasOwn(assets, file)) {
      ctx.type = assets[file]
      ctx.set('Cache-Control', 'public, max-age=3600')
      ctx.body = fs.createReadStream(path.join(assetsDir, file))
      return
    }
    await next()
  }
