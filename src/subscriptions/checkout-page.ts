// The sandbox processor's checkout pages (plain HTML, no script or inline style: they pass the
// Content-Security-Policy of src/http.ts), served only while PROCESSOR=sandbox:
//   GET  /processor/sandbox/checkout/:session        the amount and two buttons (forms)
//   POST /processor/sandbox/checkout/:session/pay    the checkout completes (303 to the success URL)
//   POST /processor/sandbox/checkout/:session/fail   the payment fails (303 to the cancel URL)
//   GET  /processor/checkout/done, /processor/checkout/cancel   where the payer lands when no URL is configured
// The session id (random, unguessable) is the capability: it reaches only the facility's members.
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Deps } from '../deps'
import { originOf } from '../providers/registry'
import { checkoutOf, completeCheckout, failCheckout } from './lifecycle'
import { subscriptionSettings } from './settings'

const escape = (text: unknown) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`

export const checkoutPages =
  (deps: Deps) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    const match = /^\/processor\/sandbox\/checkout\/(cs_sandbox_[a-f0-9]{32})(?:\/(pay|fail))?$/.exec(
      ctx.path
    )
    if (match && deps.providers.processor().kind === 'sandbox') {
      const [, session, answer] = match
      ctx.set('Cache-Control', 'no-store')
      const found = await checkoutOf(deps, session)
      if (!found) return next()
      const open =
        found.subscription.checkoutSession?.id === session &&
        found.subscription.checkoutSession.expiresAt > deps.clock.now()
      if (!answer && ctx.method === 'GET') {
        const action = (verb: string) => `/processor/sandbox/checkout/${session}/${verb}`
        // The forms' answers redirect to the configured success or cancel page: form-action allows their origins.
        const settings = subscriptionSettings(deps)
        ctx.state.formActions = [settings.successURL, settings.cancelURL]
          .filter((url) => URL.canParse(url))
          .map((url) => new URL(url).origin)
        ctx.type = 'text/html; charset=utf-8'
        ctx.body = page(
          'Sandbox checkout',
          `<p>Pay <strong id="amount">${escape(found.amount)} ${escape(found.currency)}</strong> (smallest currency unit) for subscription ${escape(found.subscription.id)}.</p>` +
            (open
              ? `<form method="post" action="${escape(action('pay'))}"><button type="submit" id="pay">Pay</button></form>` +
                `<form method="post" action="${escape(action('fail'))}"><button type="submit" id="fail">Fail the payment</button></form>`
              : '<p id="status">This checkout is closed.</p>')
        )
        return
      }
      if (answer && ctx.method === 'POST') {
        const settings = subscriptionSettings(deps)
        // The Host header, as the REST transport would hand it over.
        const origin = originOf(deps.settings, ctx.headers)
        if (!open) {
          ctx.status = 409
          ctx.type = 'text/html; charset=utf-8'
          ctx.body = page('Checkout closed', '<p>This checkout is closed.</p>')
          return
        }
        if (answer === 'pay') await completeCheckout(deps, session)
        else await failCheckout(deps, session, 'the payment was declined at checkout')
        ctx.status = 303
        ctx.redirect(
          answer === 'pay'
            ? settings.successURL || `${origin}/processor/checkout/done`
            : settings.cancelURL || `${origin}/processor/checkout/cancel`
        )
        return
      }
      return next()
    }
    if (
      ctx.method === 'GET' &&
      (ctx.path === '/processor/checkout/done' || ctx.path === '/processor/checkout/cancel')
    ) {
      ctx.type = 'text/html; charset=utf-8'
      ctx.body = page(
        ctx.path.endsWith('done') ? 'Payment complete' : 'Payment not made',
        '<p>You may close this window.</p>'
      )
      return
    }
    await next()
  }
