// The audit chain's head handed to outside witnesses: every anchor (src/audit/log.ts) is delivered as the webhook
// event `audit.anchor` with `{ seq, hash, at }` to the active webhooks subscribed to it, which only application
// admins may register, on their own account (checked at registration, and again here: a webhook whose account is no
// longer an admin gets nothing). A witness that keeps the last head it received can later ask
// GET /audit-events/verify?seq=…&hash=… whether the log still holds that event unchanged: a truncated tail is missing.
import { enqueueDeliveries, type QueueDeps, type StoredWebhook } from '../jobs/webhook-queue'
import { ANCHOR_EVENT } from '../jobs/webhook-topics'

export interface ChainHead {
  seq: number
  hash: string
  at: number
}

/** Queues the `audit.anchor` delivery of `head` to every active subscribed webhook of a current application admin. */
export const deliverAnchor = async (deps: QueueDeps, head: ChainHead) => {
  const webhooks: StoredWebhook[] = await deps.stores.webhooks._find({
    query: { active: true, topics: { $in: [ANCHOR_EVENT] } },
    paginate: false
  })
  let queued = 0
  for (const webhook of webhooks) {
    if (!webhook.account) continue
    const owner = await deps.stores.accounts._get(webhook.account).catch(() => null)
    if (owner?.admin !== true) continue
    await enqueueDeliveries(deps, webhook, ANCHOR_EVENT, [{ seq: head.seq, hash: head.hash, at: head.at }])
    queued += 1
  }
  return queued
}
