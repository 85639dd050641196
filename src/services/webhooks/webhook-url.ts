// A webhook URL must be absolute http(s); unless private addresses are allowed, a host that resolves to a
// private, loopback or link-local address is refused (and again at every delivery, by the provider); outside
// production the refusal names WEBHOOK_ALLOW_PRIVATE, the setting that allows such targets.
import { isPrivateAddress } from '../../providers/webhook-http'
import type { FieldError } from '../../schema/validators'

// Outside production the refusal says how a developer allows local receivers; production keeps it to the rule.
const developmentHint = () =>
  process.env.NODE_ENV === 'production'
    ? ''
    : ' (to allow private targets in development, start the server with WEBHOOK_ALLOW_PRIVATE=true)'

/** Problems with `value` as a webhook URL (empty when it is fine). */
export const checkWebhookUrl = async (
  value: string,
  allowPrivate: boolean,
  field = 'url'
): Promise<FieldError[]> => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return [{ field, message: 'must be an absolute http(s) URL' }]
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return [{ field, message: 'must use http or https' }]
  if (allowPrivate) return []
  try {
    if (await isPrivateAddress(url.hostname))
      return [{ field, message: `points to a private, loopback or link-local address${developmentHint()}` }]
  } catch {
    return [{ field, message: `host cannot be resolved: ${url.hostname}` }]
  }
  return []
}
