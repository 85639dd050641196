// POST /processor/events: checkout outcomes the card processor pushes (Stripe: checkout.session.* events with a
// Stripe-Signature header). The body is read raw — the signature covers its exact bytes — so this middleware runs
// before the JSON body parser. A failed or expired checkout leaves a pending subscription `incomplete` with a new
// checkout to pay (the processor's session is over). A body whose signature does not verify is a 400 and changes nothing; an event about
// anything else is acknowledged and ignored.
import crypto from 'node:crypto'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application } from '../../declarations'
import { depsSlot } from '../../deps'
import { ProcessorEventRejected } from '../../providers/processor'
import { completeCheckout, failCheckout } from '../../subscriptions/lifecycle'

export const PROCESSOR_EVENTS_PATH = '/processor/events'
const LIMIT = 1024 * 1024

const readRaw = (ctx: FeathersKoaContext) =>
  new Promise<string | null>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    ctx.req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > LIMIT) resolve(null)
      else chunks.push(chunk)
    })
    ctx.req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    ctx.req.on('error', reject)
  })

// Registered before the app's dependencies are built (it must come before the body parser): they are read per event.
export const processorEvents =
  (app: Application) => async (ctx: FeathersKoaContext, next: () => Promise<unknown>) => {
    if (ctx.path !== PROCESSOR_EVENTS_PATH || ctx.method !== 'POST') return next()
    const deps = depsSlot.require(app)
    const answer = (status: number, body: Record<string, unknown>) => {
      ctx.status = status
      ctx.body = body
    }
    const payload = await readRaw(ctx)
    if (payload === null)
      return answer(413, { name: 'PayloadTooLarge', code: 413, message: 'The event is too large' })
    const signature = ctx.get('stripe-signature')
    let event
    try {
      event = deps.providers.processor().checkoutEvent(payload, signature)
    } catch (error) {
      if (error instanceof ProcessorEventRejected)
        return answer(400, {
          name: 'BadRequest',
          code: 400,
          message: error.message,
          errors: [{ field: 'Stripe-Signature', message: 'does not verify' }]
        })
      throw error
    }
    if (event) {
      const outcome =
        event.outcome === 'completed'
          ? await completeCheckout(deps, event.session)
          : await failCheckout(deps, event.session, 'the processor reported the checkout failed', true)
      if (!outcome)
        deps.logger.info(
          `Processor event for checkout ${crypto.createHash('sha256').update(event.session).digest('hex').slice(0, 12)} matched no open subscription`
        )
    }
    answer(200, { received: true })
  }
