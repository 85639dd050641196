// Tests that can only hold on a real MongoDB, left out of `npm run test:mongo` when it runs on the emulator
// (never out of the embedded run, nor out of a run against a real MONGODB_URL). Each entry is a test's full title
// (describe titles and the `it`, joined by spaces) and the capability the emulator lacks; the README lists them.
export const emulatorExclusions: { title: string; missing: string }[] = [
  {
    title:
      'accounts sign-up creates one account when the same email signs up several times at once, answering the others 409',
    missing:
      'unique index enforcement (the accounts `email` index decides between concurrent sign-ups that all passed the service-level check)'
  },
  {
    title:
      'billing/customers (sandbox processor) creating lets only one of twenty simultaneous creates for one owner through',
    missing:
      'unique index enforcement (the customers `ownerKey` index decides between concurrent creates that all passed the service-level check)'
  },
  {
    title:
      'billing-payment-intents Idempotency-Key captures once for twenty simultaneous captures with one key, all answered alike',
    missing:
      "unique index enforcement (the idempotency keys' `key` index decides which of the simultaneous requests runs)"
  },
  {
    title:
      'subscriptions (sandbox processor) POST /subscriptions lets only one of ten simultaneous subscriptions for one facility through, answering the others 409',
    missing:
      'unique index enforcement (the subscriptions `liveKey` index decides between concurrent creates that all passed the service-level check)'
  }
]
