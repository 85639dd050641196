// A webhook URL must be absolute http(s); unless private addresses are allowed, a host that resolves to a
// private, loopback or link-local address is refused (and again at every delivery, by the provider).
import { isPrivateAddress } from '../../providers/webhook-http'
import type { FieldError } from '../../schema/validators'

/** Problems with `value` as a webhook URL (empty when it is fine). */
export const checkWebhookUrl = async (value: string, allowPrivate: boolean, field = 'url'): Promise<FieldError[]> => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return [{ field, message: 'must be an absolute http(s) URL' }]
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [{ field, message: 'must use http or https' }]
  if (allowPrivate) return []
  try {
    if (await isPrivateAddress(url.hostname)) return [{ field, message: 'points to a private, loopback or link-local address' }]
  } catch {
    return [{ field, message: `host cannot be resolved: ${url.hostname}` }]
  }
  return []
}
