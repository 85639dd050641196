// A small OAuth 2 provider on loopback for tests: authorization codes issued by the test,
// a token endpoint exchanging them once, and a profile endpoint answering for the issued token.
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { listenOnLoopback } from './loopback'

export interface OAuthProfile {
  id: string
  email?: string
  name?: string
}

export interface TokenRequest {
  /** The decoded token request parameters (form or JSON body, plus HTTP Basic client credentials) */
  params: Record<string, string>
  status: number
  at: number
}

export interface TestOAuthServer {
  url: string
  tokenUrl: string
  profileUrl: string
  /** Every call to the token endpoint, in order */
  tokenRequests: TokenRequest[]
  issueCode(profile: OAuthProfile, opts?: { redirectUri?: string }): string
  setDown(down: boolean): void
  setDelay(ms: number): void
  close(): Promise<void>
}

const TOKEN_PATH = '/oauth/token'
const PROFILE_PATH = '/oauth/profile'

// Reads a request body as text.
const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })

// Parses a token request body (JSON or form-urlencoded) into string parameters.
const parseParams = (raw: string, contentType: string | undefined): Record<string, string> => {
  const params: Record<string, string> = {}
  if (contentType?.includes('application/json')) {
    try {
      const json: unknown = JSON.parse(raw)
      if (json && typeof json === 'object') {
        for (const [key, value] of Object.entries(json))
          if (value !== undefined && value !== null) params[key] = String(value)
      }
    } catch {
      // an unparseable body simply carries no parameters
    }
    return params
  }
  for (const [key, value] of new URLSearchParams(raw)) params[key] = value
  return params
}

// Sends a JSON answer.
const sendJson = (
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers
  })
  res.end(text)
}

// Starts the OAuth 2 provider on 127.0.0.1 (random port); tokenUrl and profileUrl go into the app's provider config.
export async function startOAuthServer(
  opts: { clientId?: string; clientSecret?: string } = {}
): Promise<TestOAuthServer> {
  const codes = new Map<string, { profile: OAuthProfile; redirectUri?: string; used: boolean }>()
  const tokens = new Map<string, OAuthProfile>()
  const tokenRequests: TokenRequest[] = []
  const pendingTimers = new Set<NodeJS.Timeout>()
  let down = false
  let delayMs = 0

  const handleToken = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const params = parseParams(await readBody(req), req.headers['content-type'])
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '')
    if (basic) {
      const [id, ...secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':')
      params.client_id ??= decodeURIComponent(id)
      params.client_secret ??= decodeURIComponent(secret.join(':'))
    }
    const answer = (status: number, body: unknown): void => {
      tokenRequests.push({ params, status, at: Date.now() })
      sendJson(res, status, body)
    }
    if (params.grant_type !== 'authorization_code') return answer(400, { error: 'unsupported_grant_type' })
    if (
      (opts.clientId && params.client_id !== opts.clientId) ||
      (opts.clientSecret && params.client_secret !== opts.clientSecret)
    ) {
      return answer(401, { error: 'invalid_client' })
    }
    const grant = codes.get(params.code ?? '')
    if (
      !grant ||
      grant.used ||
      (grant.redirectUri !== undefined && grant.redirectUri !== params.redirect_uri)
    ) {
      return answer(400, { error: 'invalid_grant' })
    }
    grant.used = true
    const accessToken = randomBytes(24).toString('hex')
    tokens.set(accessToken, grant.profile)
    answer(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600 })
  }

  const handleProfile = (req: http.IncomingMessage, res: http.ServerResponse, url: URL): void => {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')
    const token = bearer ? bearer[1].trim() : (url.searchParams.get('access_token') ?? '')
    const profile = tokens.get(token)
    if (!profile)
      return sendJson(
        res,
        401,
        { error: 'invalid_token' },
        { 'www-authenticate': 'Bearer error="invalid_token"' }
      )
    const body: OAuthProfile = { id: profile.id }
    if (profile.email !== undefined) body.email = profile.email
    if (profile.name !== undefined) body.name = profile.name
    sendJson(res, 200, body)
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          pendingTimers.delete(timer)
          resolve()
        }, delayMs)
        pendingTimers.add(timer)
      })
    }
    if (res.destroyed) return
    if (down) return sendJson(res, 503, { error: 'temporarily_unavailable' })
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'POST' && url.pathname === TOKEN_PATH) return handleToken(req, res)
    if (req.method === 'GET' && url.pathname === PROFILE_PATH) return handleProfile(req, res, url)
    sendJson(res, 404, { error: 'not_found' })
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: 'server_error' })
      else res.destroy()
    })
  })
  const listening = await listenOnLoopback(server)
  const { port } = listening
  const url = `http://127.0.0.1:${port}`

  return {
    url,
    tokenUrl: url + TOKEN_PATH,
    profileUrl: url + PROFILE_PATH,
    tokenRequests,
    issueCode(profile, codeOpts = {}) {
      const code = randomBytes(16).toString('hex')
      codes.set(code, { profile: { ...profile }, redirectUri: codeOpts.redirectUri, used: false })
      return code
    },
    setDown(value) {
      down = value
    },
    setDelay(ms) {
      delayMs = Math.max(0, ms)
    },
    close() {
      for (const timer of pendingTimers) clearTimeout(timer)
      pendingTimers.clear()
      return listening.close()
    }
  }
}
