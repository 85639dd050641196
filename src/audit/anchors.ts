// The audit chain's head handed to outside witnesses: every anchor (src/audit/log.ts) is delivered as the webhook
// event `audit.anchor` with `{ seq, hash, at }` to the active webhooks subscribed to it, which only application
// admins may register, on their own account (checked at registration, and again here: a webhook whose account is no
// longer an admin gets nothing). A witness that keeps the last head it received can later ask
// GET /audit-events/verify?seq=…&hash=… whether the log still holds that event unchanged: a truncated tail is missing.
import type { Application } from '../declarations'
import { accountsStore } from '../auth/accounts'
import { enqueueDeliveries, webhookStore } from '../jobs/webhook-queue'
import { ANCHOR_EVENT } from '../services/webhooks/webhook-patterns'

export interface ChainHead {
  seq: number
  hash: string
  at: number
}

/** Queues the `audit.anchor` delivery of `head` to every active subscribed webhook of a current application admin. */
export const deliverAnchor = async (app: Application, head: ChainHead) => {
  if (!app.services.webhooks) return 0
  const webhooks: any[] = await webhookStore(app)._find({
    query: { active: true, topics: { $in: [ANCHOR_EVENT] } },
    paginate: false
  })
  let queued = 0
  for (const webhook of webhooks) {
    if (!webhook.account) continue
    const owner = await accountsStore(app)
      ._get(webhook.account)
      .catch(() => null)
    if (owner?.admin !== true) continue
    await enqueueDeliveries(app, webhook, ANCHOR_EVENT, [{ seq: head.seq, hash: head.hash, at: head.at }])
    queued += 1
  }
  return queued
}
