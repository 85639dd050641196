// The one-click unsubscribe link of notification emails (RFC 8058), no sign-in (the signed token is the proof):
//   POST /notifications/unsubscribe?token=…   turns the token's channel off for its account (idempotent); mail
//                                             clients post `List-Unsubscribe=One-Click` (form-encoded) here
//   GET  /notifications/unsubscribe?token=…   a small page with a confirm button (a POST form): a GET never
//                                             unsubscribes, since mail scanners fetch links
// A malformed or altered token is a 400, an expired one a 403, each with a message and nothing changed. Plain HTML,
// no script or inline style (the Content-Security-Policy of src/http.ts). Registered before the JSON-only body
// check: a mail client's form-encoded body is read (and ignored) here.
import type { FeathersKoaContext } from '@feathersjs/koa'
import { FeathersError } from '@feathersjs/errors'
import type { Application } from '../../declarations'
import { depsSlot } from '../../deps'
import { orNull } from '../../billing/store-calls'
import { maskEmail } from '../../notifications/queue'
import { UNSUBSCRIBE_PATH, optOut, readUnsubscribeToken } from '../../notifications/unsubscribe'

const escape = (text: unknown) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`

// A one-click body is one short field; anything longer is not read.
const MAX_BODY = 4096

/** Reads and drops the request body (up to MAX_BODY bytes). */
const drain = (ctx: FeathersKoaContext) =>
  new Promise<void>((resolve) => {
    let size = 0
    const req = ctx.req
    if (req.readableEnded) return resolve()
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) req.destroy()
    })
    req.on('end', () => resolve())
    req.on('close', () => resolve())
    req.on('error', () => resolve())
  })

export const unsubscribePage =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (ctx.path !== UNSUBSCRIBE_PATH || (ctx.method !== 'GET' && ctx.method !== 'POST')) return next()
    const deps = depsSlot.require(app)
    ctx.set('Cache-Control', 'no-store')
    ctx.type = 'text/html; charset=utf-8'
    if (ctx.method === 'POST') await drain(ctx)
    const token = ctx.query.token
    let target: ReturnType<typeof readUnsubscribeToken>
    try {
      target = readUnsubscribeToken(deps, token)
    } catch (error) {
      if (!(error instanceof FeathersError)) throw error
      ctx.status = error.code
      ctx.body = page('Unsubscribe', `<p id="error">${escape(error.message)}.</p>`)
      return
    }
    const what = target.channel === 'email' ? 'emails' : 'text messages'
    if (ctx.method === 'GET') {
      const account = await orNull(deps.stores.accounts._get(target.account))
      if (!account) {
        ctx.status = 404
        ctx.body = page('Unsubscribe', '<p id="error">This account no longer exists.</p>')
        return
      }
      const action = `${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(String(token))}`
      ctx.body = page(
        'Unsubscribe',
        account.notifications?.[target.channel] === false
          ? `<p id="status">${escape(maskEmail(account.email))} no longer receives ${what} from us.</p>`
          : `<p>Stop ${what} about appointments, queues, results and invoices to ${escape(maskEmail(account.email))}? ` +
              'Sign-in and security codes are still sent.</p>' +
              `<form method="post" action="${escape(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
              '<button type="submit" id="confirm">Unsubscribe</button></form>'
      )
      return
    }
    const account = await optOut(deps, target.account, target.channel)
    if (!account) {
      ctx.status = 404
      ctx.body = page('Unsubscribe', '<p id="error">This account no longer exists.</p>')
      return
    }
    ctx.body = page(
      'Unsubscribed',
      `<p id="status">${escape(maskEmail(account.email))} no longer receives ${what} from us. ` +
        'You can turn them on again in your account settings.</p>'
    )
  }
