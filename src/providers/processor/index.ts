// The card processor: where customers and their saved cards live. No card number ever reaches this server —
// clients tokenize cards with the processor and send the token. One interface (types.ts), two adapters chosen once
// at start-up from config `processor.kind` (PROCESSOR): `sandbox` (default; in-process, deterministic test
// tokens) and `stripe` (the official SDK; src/providers/processor/stripe.ts is the only file importing it).
// Adapters throw the three errors of types.ts; the billing domain maps them to 402, 400 and 502.
import { createSandboxProcessor } from './sandbox'
import { createStripeProcessor } from './stripe'
import type { CardProcessor, ProcessorSettings } from './types'

export * from './types'

/** The processor settings (config `processor`) checked: a Stripe processor without its key stops the start. */
export const checkProcessorSettings = (settings: ProcessorSettings): ProcessorSettings => {
  if (settings.kind === 'stripe' && !settings.stripe.secretKey)
    throw new Error('Invalid processor configuration: PROCESSOR=stripe needs STRIPE_SECRET_KEY')
  return settings
}

/** The processor `settings` name. */
export const createProcessor = (settings: ProcessorSettings): CardProcessor => {
  const checked = checkProcessorSettings(settings)
  return checked.kind === 'stripe' ? createStripeProcessor(checked) : createSandboxProcessor()
}
