// The interactive API reference in a real browser: Debian's chromium (apt-get install -y chromium; .ci/run installs
// it when missing) driven by playwright-core opens /docs and lists every registered service.
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { startServer, type TestServer } from '../helpers/app'
import { watchPolicyViolations } from '../helpers/policy-violations'
import { launchChromium } from '../helpers/browser'

describe('/docs in headless Chromium', function () {
  this.timeout(60_000)
  let server: TestServer
  let browser: Browser
  before(async () => {
    server = await startServer()
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  it('renders the reference with every registered service as a section, loading nothing from elsewhere', async () => {
    const page = await browser.newPage()
    const foreign: string[] = []
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url)) foreign.push(request.url())
    })
    await page.goto(`${server.url}/docs`)
    // (past 150 operations Swagger UI renders the list virtualized: only the sections in view are in the page, so
    // the sections listed are read from the UI's own state, which the page renders from)
    await page.waitForSelector('.opblock-tag', { timeout: 20_000 })
    const tags: string[] = await page.evaluate(() => {
      // (Swagger UI's global, read through the little of its shape used here)
      const swagger = globalThis as unknown as {
        ui: { specSelectors: { taggedOperations(): { keySeq(): { toArray(): string[] } } } }
      }
      return swagger.ui.specSelectors.taggedOperations().keySeq().toArray()
    })
    for (const path of Object.keys(server.app.services))
      assert.ok(tags.includes(path), `${path} is not listed (listed: ${tags.join(', ')})`)
    assert.match(await page.title(), /API reference/)
    assert.deepEqual(foreign, [])
  })

  it('works under the server’s Content-Security-Policy: operations open and run with no policy violation', async () => {
    const page = await browser.newPage()
    const violations = await watchPolicyViolations(page)
    const answer = await page.goto(`${server.url}/docs`)
    assert.match(answer?.headers()['content-security-policy'] ?? '', /script-src 'self'/)
    await page.waitForSelector('.opblock-tag', { timeout: 20_000 })
    // Open one operation, try it out and run it: rendering its schema and calling the API from the page (no token:
    // the server's 401 is shown).
    const operation = page
      .locator('.opblock-get')
      .filter({ has: page.locator('[data-path="/accounts"]') })
      .first()
    await operation.locator('.opblock-summary').click()
    await operation.getByRole('button', { name: 'Try it out' }).click()
    await operation.getByRole('button', { name: 'Execute' }).click()
    const status = operation.locator('.live-responses-table tbody .response-col_status').first()
    await status.waitFor({ timeout: 20_000 })
    assert.equal((await status.textContent())?.trim(), '401')
    assert.match(
      (await operation
        .locator('.live-responses-table tbody .response-col_description')
        .first()
        .textContent()) ?? '',
      /NotAuthenticated/
    )
    assert.deepEqual(violations, [])
  })
})
