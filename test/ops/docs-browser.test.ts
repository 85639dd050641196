// The interactive API reference in a real browser: Debian's chromium (apt-get install -y chromium; .ci/run installs
// it when missing) driven by playwright-core opens /docs and lists every registered service.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { startServer, type TestServer } from '../helpers/app'

const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

describe('/docs in headless Chromium', function () {
  this.timeout(60_000)
  let server: TestServer
  let browser: Browser
  before(async () => {
    assert.ok(fs.existsSync(chromiumPath), `Chromium is needed at ${chromiumPath}: apt-get install -y chromium`)
    server = await startServer()
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })
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
    await page.waitForSelector('.opblock-tag-section', { timeout: 20_000 })
    const tags = await page.$$eval('.opblock-tag', (nodes) => nodes.map((node) => node.getAttribute('data-tag')))
    for (const path of Object.keys(server.app.services)) assert.ok(tags.includes(path), `${path} is not listed (listed: ${tags.join(', ')})`)
    assert.match(await page.title(), /API reference/)
    assert.deepEqual(foreign, [])
  })
})
