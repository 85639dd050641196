// Outgoing webhook delivery over HTTP(S), signed per the Standard Webhooks spec
// (https://www.standardwebhooks.com), with a guard against requests to private networks (SSRF).
import { createHmac, randomBytes } from 'node:crypto'
import { promises as dns, type LookupAddress } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'

const SECRET_PREFIX = 'whsec_'

export interface WebhookDeliveryOptions {
  url: string
  secret: string
  id: string
  body: string
  timeoutMs: number
  allowPrivate: boolean
}

export interface WebhookDeliveryResult {
  ok: boolean
  status?: number
  error?: string
  durationMs: number
}

// Signs `${id}.${timestamp}.${body}` with HMAC-SHA256 under the whsec_ secret, giving the `webhook-signature` value `v1,<base64>`.
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const encodedKey = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret
  const key = Buffer.from(encodedKey, 'base64')
  if (key.length === 0) throw new Error('Webhook secret is empty or not base64')
  const signature = createHmac('sha256', key)
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64')
  return `v1,${signature}`
}

// Creates a new signing secret: `whsec_` + base64 of 32 random bytes.
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}

// Splits a dotted-quad IPv4 address into its four bytes (undefined if it is not one).
const ipv4Bytes = (ip: string): number[] | undefined => {
  if (net.isIPv4(ip) === false) return undefined
  return ip.split('.').map(Number)
}

// Tells whether four IPv4 bytes are loopback, private, link-local, CGNAT, "this network", multicast or reserved.
const isPrivateIpv4 = ([a, b]: number[]): boolean =>
  a === 0 || // 0.0.0.0/8, "this network" (0.0.0.0 is the unspecified address)
  a === 10 || // 10/8
  a === 127 || // 127/8 loopback
  (a === 100 && b >= 64 && b <= 127) || // 100.64/10 CGNAT
  (a === 169 && b === 254) || // 169.254/16 link-local (cloud metadata endpoints live here)
  (a === 172 && b >= 16 && b <= 31) || // 172.16/12
  (a === 192 && b === 168) || // 192.168/16
  a >= 224 // 224/4 multicast, 240/4 reserved, 255.255.255.255 broadcast

// Expands an IPv6 address (optionally with a trailing dotted IPv4 part or a %zone) into eight 16-bit groups.
const ipv6Groups = (ip: string): number[] | undefined => {
  let text = ip.split('%')[0]
  if (net.isIPv6(text) === false) return undefined
  const lastColon = text.lastIndexOf(':')
  const v4 = ipv4Bytes(text.slice(lastColon + 1))
  if (v4) {
    text = `${text.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`
  }
  const [head, tail] = text.split('::')
  const parse = (part: string | undefined): number[] =>
    part ? part.split(':').map((group) => parseInt(group, 16)) : []
  const headGroups = parse(head)
  const tailGroups = parse(tail)
  const fill = tail === undefined ? [] : new Array<number>(8 - headGroups.length - tailGroups.length).fill(0)
  const groups = [...headGroups, ...fill, ...tailGroups]
  return groups.length === 8 ? groups : undefined
}

// Tells whether an IP literal must not receive webhooks: loopback, private, link-local, unspecified, CGNAT,
// multicast, and IPv6 forms embedding such an IPv4 address (IPv4-mapped ::ffff:a.b.c.d and similar).
// Anything that is not a valid IP literal counts as private (fail closed).
export function isPrivateIp(ip: string): boolean {
  const v4 = ipv4Bytes(ip)
  if (v4) return isPrivateIpv4(v4)
  const g = ipv6Groups(ip)
  if (!g) return true
  const embeddedV4 = (): number[] => [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff]
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((group) => group === 0)
  if (zero(0, 6)) return (g[6] === 0 && g[7] <= 1) || isPrivateIpv4(embeddedV4()) // ::, ::1, IPv4-compatible ::a.b.c.d
  if (zero(0, 5) && g[5] === 0xffff) return isPrivateIpv4(embeddedV4()) // IPv4-mapped ::ffff:a.b.c.d
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return isPrivateIpv4(embeddedV4()) // IPv4-translated ::ffff:0:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return isPrivateIpv4(embeddedV4()) // NAT64 64:ff9b::a.b.c.d
  return (
    (g[0] & 0xfe00) === 0xfc00 || // fc00::/7 unique local
    (g[0] & 0xffc0) === 0xfe80 || // fe80::/10 link-local
    (g[0] & 0xffc0) === 0xfec0 || // fec0::/10 site-local (deprecated)
    (g[0] & 0xff00) === 0xff00 // ff00::/8 multicast
  )
}

// Removes the brackets a URL puts around an IPv6 host.
const bareHost = (hostname: string): string =>
  hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname

// Resolves a host name to all its addresses (an IP literal resolves to itself, without DNS).
const resolveHost = async (hostname: string): Promise<LookupAddress[]> => {
  const host = bareHost(hostname)
  const family = net.isIP(host)
  if (family !== 0) return [{ address: host, family }]
  const addresses = await dns.lookup(host, { all: true })
  if (addresses.length === 0) throw new Error(`host not found: ${host}`)
  return addresses
}

// Tells whether a host name or IP literal points at a private network address (one of its DNS answers
// counting); IP literals are checked without DNS, and a name that cannot be resolved rejects.
export async function isPrivateAddress(hostname: string): Promise<boolean> {
  const addresses = await resolveHost(hostname)
  return addresses.some(({ address }) => isPrivateIp(address))
}

// Turns a network or HTTP client error into a short reason for the delivery log.
const describeError = (error: unknown, host: string): string => {
  if (!(error instanceof Error)) return String(error)
  const code = (error as NodeJS.ErrnoException).code
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused'
    case 'ECONNRESET':
      return 'connection reset by the receiver'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found: ${host}`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'receiver unreachable'
    default:
      return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message
  }
}

// Rejects after `ms` with a timeout error unless `promise` settles first.
const withDeadline = <T>(promise: Promise<T>, ms: number, reason: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(reason)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      }
    )
  })

// POSTs one signed webhook (Standard Webhooks headers) and reports the outcome; never throws.
// Only 2xx counts as delivered; redirects are not followed and count as failures. Unless allowPrivate,
// the host is resolved at this delivery, refused if an address is private, and the connection is pinned
// to the checked addresses (so a DNS answer changing between check and connect cannot bypass the check).
export async function deliverWebhook(opts: WebhookDeliveryOptions): Promise<WebhookDeliveryResult> {
  const started = Date.now()
  const result = (outcome: Omit<WebhookDeliveryResult, 'durationMs'>): WebhookDeliveryResult => ({
    ...outcome,
    durationMs: Date.now() - started
  })
  const timeoutMs = Math.max(1, opts.timeoutMs)
  const timeoutReason = `timed out after ${timeoutMs} ms`

  let url: URL
  try {
    url = new URL(opts.url)
  } catch {
    return result({ ok: false, error: 'invalid URL' })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return result({ ok: false, error: `unsupported URL scheme: ${url.protocol.replace(/:$/, '')}` })
  }
  const host = bareHost(url.hostname)

  try {
    let lookup: net.LookupFunction | undefined
    if (!opts.allowPrivate) {
      const addresses = await withDeadline(resolveHost(host), timeoutMs, timeoutReason)
      const privateAddress = addresses.find(({ address }) => isPrivateIp(address))
      if (privateAddress) return result({ ok: false, error: `address is private: ${privateAddress.address}` })
      lookup = (_hostname, options, callback) => {
        if (options.all) callback(null, addresses)
        else callback(null, addresses[0].address, addresses[0].family)
      }
    }

    const timestamp = Math.floor(Date.now() / 1000)
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(opts.body)),
      'webhook-id': opts.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(opts.secret, opts.id, timestamp, opts.body)
    }
    const remainingMs = Math.max(1, timeoutMs - (Date.now() - started))
    const client = url.protocol === 'https:' ? https : http

    return await new Promise<WebhookDeliveryResult>((resolve) => {
      let settled = false
      const finish = (outcome: Omit<WebhookDeliveryResult, 'durationMs'>): void => {
        if (settled) return
        settled = true
        resolve(result(outcome))
      }
      const request = client.request(
        url,
        { method: 'POST', headers, agent: false, ...(lookup ? { lookup } : {}) },
        (response) => {
          const status = response.statusCode ?? 0
          response.on('error', () => undefined)
          response.on('end', () => clearTimeout(timer))
          response.resume()
          if (status >= 200 && status < 300) finish({ ok: true, status })
          else if (status >= 300 && status < 400)
            finish({ ok: false, status, error: `redirect (HTTP ${status}) not followed` })
          else finish({ ok: false, status, error: `receiver answered HTTP ${status}` })
        }
      )
      // One deadline for connect + response headers; it also cuts off a response body that never ends.
      const timer = setTimeout(() => {
        finish({ ok: false, error: timeoutReason })
        request.destroy()
      }, remainingMs)
      request.on('error', (error) => {
        clearTimeout(timer)
        finish({ ok: false, error: describeError(error, host) })
      })
      request.end(opts.body)
    })
  } catch (error) {
    return result({ ok: false, error: describeError(error, host) })
  }
}
