// OAuth login (google, facebook) and linking an OAuth identity to an existing account, over HTTP against
// loopback OAuth 2 servers standing in for the providers.
import assert from 'node:assert/strict'
import { http, signUp, startServer, uniqueEmail } from '../helpers/app'
import { startOAuthServer } from '../helpers/oauth-server'
import {
  assertNoSecrets,
  auth,
  mailedCode,
  FACEBOOK_REDIRECT,
  GOOGLE_REDIRECT,
  startAuthTestbed,
  type AuthTestbed
} from '../helpers/auth'

let counter = 0
const providerId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`

describe('authentication: OAuth', () => {
  let bed: AuthTestbed

  before(async () => {
    bed = await startAuthTestbed()
  })
  after(async () => {
    await bed.close()
  })

  describe('google login', () => {
    it('registers an account on first login, exchanging the code with the configured client and the exact redirectURI', async () => {
      const email = uniqueEmail('google')
      const code = bed.google.issueCode(
        { id: providerId('g'), email, name: 'Ada Lovelace' },
        { redirectUri: GOOGLE_REDIRECT }
      )
      const res = await auth(bed.url, { strategy: 'google', redirectURI: GOOGLE_REDIRECT, code })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.equal(typeof res.body.accessToken, 'string')
      const renewed = await auth(bed.url, {
        action: 'refreshAccessToken',
        refreshToken: res.body.refreshToken
      })
      assert.equal(renewed.status, 201, 'an OAuth login answers a refresh token of its session too')
      assert.equal(res.body.authentication.strategy, 'google')
      assert.equal(res.body.account.email, email)
      assert.equal(res.body.account.firstName, 'Ada')
      assert.equal(res.body.account.lastName, 'Lovelace')
      assertNoSecrets(res.body)
      const request = bed.google.tokenRequests.at(-1)!
      assert.equal(request.params.client_id, 'google-client')
      assert.equal(request.params.client_secret, 'google-secret')
      assert.equal(request.params.redirect_uri, GOOGLE_REDIRECT)
      assert.equal(request.params.grant_type, 'authorization_code')

      const me = await http(bed.url, 'GET', `/accounts/${res.body.account.id}`, {
        token: res.body.accessToken
      })
      assert.equal(me.status, 200)
      assertNoSecrets(me.body)
    })

    it('logs the same account in on the next login with the same google identity', async () => {
      const profile = { id: providerId('g'), email: uniqueEmail('google') }
      const first = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode(profile)
      })
      const second = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode(profile)
      })
      assert.equal(first.status, 201)
      assert.equal(second.status, 201)
      assert.equal(second.body.account.id, first.body.account.id)
    })

    it('refuses a reused authorization code with a 401', async () => {
      const code = bed.google.issueCode({ id: providerId('g'), email: uniqueEmail('google') })
      assert.equal(
        (await auth(bed.url, { strategy: 'google', redirectURI: GOOGLE_REDIRECT, code })).status,
        201
      )
      const again = await auth(bed.url, { strategy: 'google', redirectURI: GOOGLE_REDIRECT, code })
      assert.equal(again.status, 401)
      assert.match(again.body.message, /did not accept the authorization code/)
      assert.equal(again.body.data.reason, 'oauth-code-rejected')
    })

    it('refuses a code issued for another redirectURI, and an unknown code, with a 401', async () => {
      const code = bed.google.issueCode(
        { id: providerId('g'), email: uniqueEmail('google') },
        { redirectUri: 'https://elsewhere.example.test/cb' }
      )
      assert.equal(
        (await auth(bed.url, { strategy: 'google', redirectURI: GOOGLE_REDIRECT, code })).status,
        401
      )
      assert.equal(
        (await auth(bed.url, { strategy: 'google', redirectURI: GOOGLE_REDIRECT, code: 'made-up' })).status,
        401
      )
    })

    it('refuses a profile without email with a 400 saying the email scope is missing, creating no account', async () => {
      const id = providerId('g')
      const res = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id })
      })
      assert.equal(res.status, 400)
      assert.match(res.body.message, /email scope is missing/)
      assert.equal(res.body.data.reason, 'email-scope-missing')
      // The same identity with the email scope then registers normally.
      const ok = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id, email: uniqueEmail('google') })
      })
      assert.equal(ok.status, 201)
    })

    it('answers 409 "sign in and link" when the profile email belongs to another account, and neither logs in nor links', async () => {
      const owner = await signUp(bed.url)
      const id = providerId('g')
      const res = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id, email: owner.email.toUpperCase() })
      })
      assert.equal(res.status, 409)
      assert.match(res.body.message, /Sign in to it .* and link your google account/)
      assert.equal(res.body.data.reason, 'sign-in-and-link')
      assert.equal(res.body.accessToken, undefined)
      const again = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id, email: owner.email })
      })
      assert.equal(again.status, 409, 'the identity was not linked to the owner')
      assert.equal((await auth(bed.url, { email: owner.email, password: owner.password })).status, 201)
    })

    it('answers 400 naming the fields when redirectURI or code is missing or malformed, without calling the provider', async () => {
      const before = bed.google.tokenRequests.length
      const missing = await auth(bed.url, { strategy: 'google' })
      assert.equal(missing.status, 400)
      assert.match(missing.body.message, /'redirectURI'/)
      const noCode = await auth(bed.url, { strategy: 'google', redirectURI: GOOGLE_REDIRECT })
      assert.equal(noCode.status, 400)
      assert.match(noCode.body.message, /'code'/)
      const notUrl = await auth(bed.url, {
        strategy: 'google',
        redirectURI: 'javascript:alert(1)',
        code: 'x'
      })
      assert.equal(notUrl.status, 400)
      const objectCode = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: { $ne: '' }
      })
      assert.equal(objectCode.status, 400)
      assert.equal(bed.google.tokenRequests.length, before)
    })

    it('answers 401 for a strategy that does not exist', async () => {
      const res = await auth(bed.url, { strategy: 'github', redirectURI: GOOGLE_REDIRECT, code: 'x' })
      assert.equal(res.status, 401)
    })

    it('answers 502 when the provider is down, and 502 (not a hang) when it does not answer in time', async () => {
      const email = uniqueEmail('google')
      bed.google.setDown(true)
      try {
        const down = await auth(bed.url, {
          strategy: 'google',
          redirectURI: GOOGLE_REDIRECT,
          code: bed.google.issueCode({ id: providerId('g'), email })
        })
        assert.equal(down.status, 502)
        assert.match(down.body.message, /Google/)
      } finally {
        bed.google.setDown(false)
      }
      const slow = await startOAuthServer()
      const app = await startServer({
        oauth: {
          google: {
            clientId: 'google-client',
            tokenURL: slow.tokenUrl,
            profileURL: slow.profileUrl,
            timeoutMs: 200
          }
        }
      })
      try {
        slow.setDelay(5000)
        const res = await auth(app.url, {
          strategy: 'google',
          redirectURI: GOOGLE_REDIRECT,
          code: slow.issueCode({ id: providerId('g'), email })
        })
        assert.equal(res.status, 502)
        assert.match(res.body.message, /did not answer within 200 ms/)
      } finally {
        await app.close()
        await slow.close()
      }
    })

    it('answers 502 when the provider refuses the configured client credentials', async () => {
      const provider = await startOAuthServer({ clientId: 'google-client', clientSecret: 'the-real-secret' })
      const app = await startServer({
        oauth: {
          google: {
            clientId: 'google-client',
            clientSecret: 'a-wrong-secret',
            tokenURL: provider.tokenUrl,
            profileURL: provider.profileUrl
          }
        }
      })
      try {
        const res = await auth(app.url, {
          strategy: 'google',
          redirectURI: GOOGLE_REDIRECT,
          code: provider.issueCode({ id: 'g', email: uniqueEmail() })
        })
        assert.equal(res.status, 502)
        assert.match(res.body.message, /invalid_client/)
      } finally {
        await app.close()
        await provider.close()
      }
    })
  })

  describe('accounts registered through OAuth', () => {
    it('have no password until one is set with changePassword (no current password needed, confirmed by mail)', async () => {
      const email = uniqueEmail('oauth-only')
      const login = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id: providerId('g'), email })
      })
      assert.equal(login.status, 201)
      const token = login.body.accessToken
      assert.equal((await auth(bed.url, { email, password: 'Any password 1' })).status, 401)
      const mfa = await auth(bed.url, { action: 'setupMFA', password: 'Any password 1' }, token)
      assert.equal(mfa.status, 400)
      assert.equal(mfa.body.data.reason, 'no-password')

      const seen = bed.smtp.messages.length
      const change = await auth(
        bed.url,
        { action: 'changePassword', newPassword: 'My first password 1' },
        token
      )
      assert.equal(change.status, 201, JSON.stringify(change.body))
      const code = await mailedCode(bed.smtp, email, 'Confirm Password Change', seen)
      assert.equal((await auth(bed.url, { action: 'applyActionCode', code })).status, 201)
      const password = await auth(bed.url, { email, password: 'My first password 1' })
      assert.equal(password.status, 201)
      assert.equal(password.body.account.id, login.body.account.id)
    })

    it('cannot be claimed by writing a provider id through the accounts API (400)', async () => {
      const signup = await http(bed.url, 'POST', '/accounts', {
        body: { email: uniqueEmail(), password: 'correct horse battery', googleId: 'victim' }
      })
      assert.equal(signup.status, 400)
      const user = await signUp(bed.url)
      const patch = await http(bed.url, 'PATCH', `/accounts/${user.account.id}`, {
        body: { facebookId: 'victim' },
        token: user.token
      })
      assert.equal(patch.status, 400)
      const query = await http(bed.url, 'GET', '/accounts?googleId=victim', { token: user.token })
      assert.equal(query.status, 400)
    })
  })

  describe('facebook login', () => {
    it("answers 400 saying the redirectURI must end with '/', before any call to facebook", async () => {
      const before = bed.facebook.tokenRequests.length
      const code = bed.facebook.issueCode({ id: providerId('f'), email: uniqueEmail('fb') })
      const res = await auth(bed.url, {
        strategy: 'facebook',
        redirectURI: FACEBOOK_REDIRECT.slice(0, -1),
        code
      })
      assert.equal(res.status, 400)
      assert.match(res.body.message, /must end with '\/'/)
      assert.equal(res.body.errors[0].field, 'redirectURI')
      assert.equal(bed.facebook.tokenRequests.length, before)
    })

    it('registers on first login and logs the same account in afterwards', async () => {
      const profile = { id: providerId('f'), email: uniqueEmail('fb'), name: 'Grace Hopper' }
      const first = await auth(bed.url, {
        strategy: 'facebook',
        redirectURI: FACEBOOK_REDIRECT,
        code: bed.facebook.issueCode(profile, { redirectUri: FACEBOOK_REDIRECT })
      })
      assert.equal(first.status, 201, JSON.stringify(first.body))
      assert.equal(first.body.account.email, profile.email)
      assert.equal(bed.facebook.tokenRequests.at(-1)!.params.client_id, 'facebook-client')
      assertNoSecrets(first.body)
      const second = await auth(bed.url, {
        strategy: 'facebook',
        redirectURI: FACEBOOK_REDIRECT,
        code: bed.facebook.issueCode(profile)
      })
      assert.equal(second.body.account.id, first.body.account.id)
    })

    it('answers 400 when a first login profile carries no email', async () => {
      const res = await auth(bed.url, {
        strategy: 'facebook',
        redirectURI: FACEBOOK_REDIRECT,
        code: bed.facebook.issueCode({ id: providerId('f') })
      })
      assert.equal(res.status, 400)
      assert.match(res.body.message, /no email/)
    })
  })

  describe('linking an OAuth identity to an existing account', () => {
    it('links google through connectOAuthAccount and applyActionCode; the google login then opens that account', async () => {
      const user = await signUp(bed.url)
      const connect = await auth(bed.url, { action: 'connectOAuthAccount', provider: 'google' }, user.token)
      assert.equal(connect.status, 201, JSON.stringify(connect.body))
      assert.equal(typeof connect.body.code, 'string')
      assert.ok(connect.body.code.length >= 30, 'a link code carries at least 128 random bits')

      const id = providerId('g')
      // The provider's email differs from the account's: linking does not depend on it.
      const oauthCode = bed.google.issueCode(
        { id, email: uniqueEmail('other') },
        { redirectUri: GOOGLE_REDIRECT }
      )
      const link = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: connect.body.code,
          payload: { code: oauthCode, redirectURI: GOOGLE_REDIRECT }
        },
        user.token
      )
      assert.equal(link.status, 201, JSON.stringify(link.body))
      assert.equal(link.body.account.id, user.account.id)
      assertNoSecrets(link.body, [id])

      const login = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id, email: uniqueEmail('other') })
      })
      assert.equal(login.status, 201)
      assert.equal(login.body.account.id, user.account.id)

      const reused = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: connect.body.code,
          payload: { code: bed.google.issueCode({ id }), redirectURI: GOOGLE_REDIRECT }
        },
        user.token
      )
      assert.equal(reused.status, 400)
      assert.match(reused.body.message, /already been used/)
    })

    it('links a password account to facebook even when the profile email is the account email', async () => {
      const user = await signUp(bed.url)
      const id = providerId('f')
      const takeover = await auth(bed.url, {
        strategy: 'facebook',
        redirectURI: FACEBOOK_REDIRECT,
        code: bed.facebook.issueCode({ id, email: user.email })
      })
      assert.equal(takeover.status, 409)
      const { body } = await auth(
        bed.url,
        { action: 'connectOAuthAccount', provider: 'facebook' },
        user.token
      )
      const link = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: body.code,
          payload: { code: bed.facebook.issueCode({ id, email: user.email }), redirectURI: FACEBOOK_REDIRECT }
        },
        user.token
      )
      assert.equal(link.status, 201)
      const login = await auth(bed.url, {
        strategy: 'facebook',
        redirectURI: FACEBOOK_REDIRECT,
        code: bed.facebook.issueCode({ id, email: user.email })
      })
      assert.equal(login.status, 201)
      assert.equal(login.body.account.id, user.account.id)
    })

    it('needs the Bearer token for connectOAuthAccount (401) and a known provider (400)', async () => {
      const user = await signUp(bed.url)
      assert.equal((await auth(bed.url, { action: 'connectOAuthAccount', provider: 'google' })).status, 401)
      assert.equal(
        (await auth(bed.url, { action: 'connectOAuthAccount', provider: 'google' }, 'not-a-token')).status,
        401
      )
      const bad = await auth(bed.url, { action: 'connectOAuthAccount', provider: 'github' }, user.token)
      assert.equal(bad.status, 400)
      assert.match(bad.body.message, /'provider'/)
      assert.equal((await auth(bed.url, { action: 'connectOAuthAccount' }, user.token)).status, 400)
    })

    it('refuses a link code without the Bearer token (401) or with the token of another account (400)', async () => {
      const user = await signUp(bed.url)
      const other = await signUp(bed.url)
      const { body } = await auth(bed.url, { action: 'connectOAuthAccount', provider: 'google' }, user.token)
      const id = providerId('g')
      const withoutToken = await auth(bed.url, {
        action: 'applyActionCode',
        code: body.code,
        payload: { code: bed.google.issueCode({ id }), redirectURI: GOOGLE_REDIRECT }
      })
      assert.equal(withoutToken.status, 401)
      const otherToken = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: body.code,
          payload: { code: bed.google.issueCode({ id }), redirectURI: GOOGLE_REDIRECT }
        },
        other.token
      )
      assert.equal(otherToken.status, 400)
      assert.match(otherToken.body.message, /another account/)
      // Neither call linked anything: the identity is still unknown and logs in as a new account.
      const login = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id, email: uniqueEmail() })
      })
      assert.equal(login.status, 201)
      assert.notEqual(login.body.account.id, user.account.id)
      assert.notEqual(login.body.account.id, other.account.id)
    })

    it('answers 409 when the identity is already linked to another account', async () => {
      const id = providerId('g')
      const existing = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id, email: uniqueEmail() })
      })
      assert.equal(existing.status, 201)
      const user = await signUp(bed.url)
      const { body } = await auth(bed.url, { action: 'connectOAuthAccount', provider: 'google' }, user.token)
      const link = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: body.code,
          payload: { code: bed.google.issueCode({ id }), redirectURI: GOOGLE_REDIRECT }
        },
        user.token
      )
      assert.equal(link.status, 409)
      assert.match(link.body.message, /already linked to another account/)
      const login = await auth(bed.url, {
        strategy: 'google',
        redirectURI: GOOGLE_REDIRECT,
        code: bed.google.issueCode({ id, email: uniqueEmail() })
      })
      assert.equal(login.body.account.id, existing.body.account.id)
    })

    it("answers 400 for a facebook link whose redirectURI lacks the final '/', and the link code still works afterwards", async () => {
      const user = await signUp(bed.url)
      const { body } = await auth(
        bed.url,
        { action: 'connectOAuthAccount', provider: 'facebook' },
        user.token
      )
      const before = bed.facebook.tokenRequests.length
      const id = providerId('f')
      const wrong = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: body.code,
          payload: { code: bed.facebook.issueCode({ id }), redirectURI: FACEBOOK_REDIRECT.slice(0, -1) }
        },
        user.token
      )
      assert.equal(wrong.status, 400)
      assert.match(wrong.body.message, /'payload.redirectURI'.*must end with '\/'/)
      assert.equal(bed.facebook.tokenRequests.length, before)
      const missing = await auth(
        bed.url,
        { action: 'applyActionCode', code: body.code, payload: { redirectURI: FACEBOOK_REDIRECT } },
        user.token
      )
      assert.equal(missing.status, 400)
      assert.match(missing.body.message, /'payload.code'/)
      const ok = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: body.code,
          payload: { code: bed.facebook.issueCode({ id }), redirectURI: FACEBOOK_REDIRECT }
        },
        user.token
      )
      assert.equal(ok.status, 201)
    })

    it('answers 401 when the provider refuses the OAuth code of a link, keeping the link code usable', async () => {
      const user = await signUp(bed.url)
      const { body } = await auth(bed.url, { action: 'connectOAuthAccount', provider: 'google' }, user.token)
      const refused = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: body.code,
          payload: { code: 'made-up', redirectURI: GOOGLE_REDIRECT }
        },
        user.token
      )
      assert.equal(refused.status, 401)
      const ok = await auth(
        bed.url,
        {
          action: 'applyActionCode',
          code: body.code,
          payload: { code: bed.google.issueCode({ id: providerId('g') }), redirectURI: GOOGLE_REDIRECT }
        },
        user.token
      )
      assert.equal(ok.status, 201)
    })
  })
})
