// The sandbox gateway: no network. Its approval page is served by this app at
// /gateways/sandbox/checkout/:intent (src/services/billing-payment-intents/checkout-page.ts), which moves the
// intent to approved or cancelled itself, so the intent document holds the state. A capture succeeds, except
// for an amount of exactly 402 (in every currency), which the sandbox declines — to try the `failed` state.
import type { PaymentGateway } from './types'

export const createSandboxGateway = (): PaymentGateway => ({
  name: 'sandbox',
  methods: ['card', 'wallet'],
  async createOrder({ intent, origin, checkoutSecret }) {
    return {
      orderId: `sandbox_${intent}`,
      approvalURL: `${origin}/gateways/sandbox/checkout/${intent}?secret=${checkoutSecret}`
    }
  },
  async orderStatus() {
    return null
  },
  async capture(_orderId, { amount }) {
    if (Number(amount) === 402)
      return { status: 'failed', reason: 'The sandbox declined the capture (amount 402)' }
    return { status: 'captured' }
  }
})
