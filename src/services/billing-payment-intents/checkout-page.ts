// The sandbox gateway's approval page (only while GATEWAYS includes sandbox) and this server's default
// return/cancel pages (plain HTML, no script or inline style: they pass the Content-Security-Policy of src/http.ts):
//   GET  /gateways/sandbox/checkout/:intent?secret=…          the amount and two buttons (forms)
//   POST /gateways/sandbox/checkout/:intent/approve?secret=…  created → approved, 303 to the return URL
//   POST /gateways/sandbox/checkout/:intent/cancel?secret=…   created → cancelled, 303 to the cancel URL
//   GET  /gateways/return, /gateways/cancel                   where the payer lands when no URL was given
// The secret comes with checkout.approvalURL; without it the page is a 404, and so is every sandbox page while
// GATEWAYS does not include sandbox.
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Deps } from '../../deps'
import { answerCheckout, loadCheckout } from '../../billing/intents'

const escape = (text: unknown) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`

const withIntent = (url: string, intent: string) => {
  const target = new URL(url)
  target.searchParams.set('intent', intent)
  return target.toString()
}

export const checkoutPages =
  (deps: Deps) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    const match = /^\/gateways\/sandbox\/checkout\/([A-Za-z0-9]{1,64})(?:\/(approve|cancel))?$/.exec(ctx.path)
    // Served only while GATEWAYS includes sandbox: otherwise these paths are unknown (404), whatever intent they name.
    if (match && deps.settings.get('gateways').enabled.includes('sandbox')) {
      const [, id, answer] = match
      const secret = typeof ctx.query.secret === 'string' ? ctx.query.secret : ''
      ctx.set('Cache-Control', 'no-store')
      if (!answer && ctx.method === 'GET') {
        const intent = await loadCheckout(deps, id, secret)
        const action = (verb: string) =>
          `/gateways/sandbox/checkout/${id}/${verb}?secret=${encodeURIComponent(secret)}`
        const lines = intent.items
          .map(
            (item) =>
              `<li>${escape(item.quantity)} × ${escape(item.name)}: ${escape(item.amount)} ${escape(intent.currency)}</li>`
          )
          .join('')
        // The forms' answers redirect to the return or cancel URL: the page's form-action allows their origins.
        ctx.state.formActions = [intent.gatewayReturnURL, intent.gatewayCancelURL]
          .filter((url) => URL.canParse(url))
          .map((url) => new URL(url).origin)
        ctx.type = 'text/html; charset=utf-8'
        ctx.body = page(
          'Sandbox checkout',
          `<p>Pay <strong id="amount">${escape(intent.netAmount)} ${escape(intent.currency)}</strong> (${escape(intent.gatewayType)}).</p><ul>${lines}</ul>` +
            (intent.status === 'created'
              ? `<form method="post" action="${escape(action('approve'))}"><button type="submit" id="approve">Approve</button></form>` +
                `<form method="post" action="${escape(action('cancel'))}"><button type="submit" id="cancel">Cancel</button></form>`
              : `<p id="status">This payment is ${escape(intent.status)}.</p>`)
        )
        return
      }
      if (answer && ctx.method === 'POST') {
        const { intent } = await answerCheckout(deps, id, secret, answer as 'approve' | 'cancel')
        ctx.status = 303
        ctx.redirect(
          withIntent(
            intent.status === 'cancelled' ? intent.gatewayCancelURL : intent.gatewayReturnURL,
            intent.id
          )
        )
        return
      }
      return next()
    }
    if (ctx.method === 'GET' && (ctx.path === '/gateways/return' || ctx.path === '/gateways/cancel')) {
      ctx.type = 'text/html; charset=utf-8'
      ctx.body = page(
        ctx.path.endsWith('return') ? 'Payment approved' : 'Payment cancelled',
        '<p>You may close this window.</p>'
      )
      return
    }
    await next()
  }
