// The browser console (public/, bundled by scripts/bundle-console.js) in Debian's headless Chromium through
// playwright-core: each scenario against a fresh server on 127.0.0.1, as people use it — sign-up, a record of
// every type through its generated form, two members of one facility seeing each other's changes live, a
// stranger who sees nothing, an MFA login, the server's field message beside the field, a webhook pinged and
// delivered. `npm run test:browser` (not part of the mocha run of `npm test`); screenshots in test-results/.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { type Browser, type BrowserContext, type Page } from 'playwright-core'
import { startServer, http, type TestServer } from '../helpers/app'
import { totp } from '../helpers/auth'
import { startWebhookReceiver } from '../helpers/webhook-receiver'
import { medicalRecordTypes } from '../../src/services/medical-records/medical-records.schema'
import { launchChromium } from '../helpers/browser'

const results = path.resolve(__dirname, '../../test-results')
const password = 'correct horse battery'

/** Saves what the page shows as test-results/<name>.png. */
const screenshot = async (page: Page, name: string) => {
  fs.mkdirSync(results, { recursive: true })
  await page.screenshot({ path: path.join(results, `${name}.png`), fullPage: true })
}

describe('the console in headless Chromium', function () {
  this.timeout(90_000)
  let browser: Browser
  let server: TestServer
  const contexts: BrowserContext[] = []

  before(async () => {
    assert.ok(
      fs.existsSync(path.resolve(__dirname, '../../public/console.js')),
      'public/console.js is built by `node scripts/bundle-console.js` (npm run test:browser does it)'
    )
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
  })
  beforeEach(async () => {
    server = await startServer()
  })
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close()
    await server?.close()
  })

  /** A new browser context (its own storage: another person) on the console; nothing is loaded from elsewhere. */
  const open = async (viewport = { width: 1100, height: 760 }) => {
    const context = await browser.newContext({ viewport })
    contexts.push(context)
    const page = await context.newPage()
    const foreign: string[] = []
    page.on('request', (request) => {
      const url = request.url()
      if (!url.startsWith(server.url) && !url.startsWith('data:') && !url.startsWith('ws://127.0.0.1'))
        foreign.push(url)
    })
    page.on('pageerror', (error) => console.error('page error:', error.message))
    await page.goto(`${server.url}/`)
    return Object.assign(page, { foreign })
  }

  const signUp = async (page: Page, email: string, facility?: string) => {
    const form = page.locator('#signup-form')
    await form.getByLabel('Email').fill(email)
    await form.getByLabel('Password').fill(password)
    await form.getByLabel('First name').fill(email.split('@')[0])
    if (facility) await form.getByLabel(/New facility/).fill(facility)
    await form.getByRole('button', { name: 'Sign up' }).click()
    await page.locator('#signed-in-as').waitFor()
    assert.equal(await page.locator('#signed-in-as').textContent(), email)
  }

  const signIn = async (page: Page, email: string) => {
    const form = page.locator('#login-form')
    await form.getByLabel('Email').fill(email)
    await form.getByLabel('Password').fill(password)
    await form.getByRole('button', { name: 'Sign in' }).click()
  }

  const accountId = async (page: Page) => (await page.locator('#my-account-id').textContent())!.trim()
  const recordsList = (page: Page) => page.locator('#records')

  /**
   * Fills every required field of the current type's create form with a value its kind accepts, and the type's
   * first text field (the summary the list shows) when it is not required.
   */
  const fillForm = async (page: Page, type: string) => {
    const form = page.locator('#record-form')
    for (const control of await form.locator('[aria-required="true"]').all()) {
      const tag = await control.evaluate((element) => element.tagName.toLowerCase())
      if (tag === 'select') continue // a required choice starts on its first option
      const kind = await control.getAttribute('type')
      await control.fill(
        kind === 'number'
          ? '1'
          : kind === 'datetime-local'
            ? '2026-01-02T03:04'
            : `${type} ${await control.getAttribute('name')}`
      )
    }
    const first = form
      .locator(
        '.field:not([data-field="facility"]):not([data-field="patient"]):not([data-field="type"]) input[type="text"]:not([aria-required])'
      )
      .first()
    if ((await first.count()) > 0) await first.fill(`${type} ${await first.getAttribute('name')}`)
  }

  it('signs up, creates a record of every type through its form and lists them newest first', async () => {
    const page = await open()
    await signUp(page, 'ada@example.org', 'Lovelace Clinic')
    await page.locator('#record-form').waitFor()
    const typeOptions = await page.locator('#record-type option').allTextContents()
    assert.deepEqual(typeOptions, [...medicalRecordTypes])
    for (const type of medicalRecordTypes) {
      await page.locator('#record-type').selectOption(type)
      await fillForm(page, type)
      await page.locator('#record-form').getByRole('button', { name: 'Create record' }).click()
      await page
        .locator('#record-form .form-status')
        .filter({ hasText: `Created the ${type} record.` })
        .waitFor()
      await recordsList(page).locator(`li[data-type="${type}"]`).waitFor()
    }
    await page
      .locator('#records-count')
      .filter({ hasText: `${medicalRecordTypes.length} records` })
      .waitFor()
    const listed = await recordsList(page)
      .locator('li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-type')))
    assert.deepEqual(listed, [...medicalRecordTypes].reverse(), 'newest first')
    // The session survives a reload (the authentication client's stored token), and no token is ever shown.
    await page.reload()
    await recordsList(page)
      .locator('li')
      .nth(medicalRecordTypes.length - 1)
      .waitFor()
    const text = await page.locator('body').innerText()
    const token = await page.evaluate<string | null>("localStorage.getItem('feathers-jwt')")
    assert.ok(token && !text.includes(token), 'the access token is kept, never shown')
    assert.deepEqual(page.foreign, [])
    await screenshot(page, 'console-records')
    // The README's screenshot: CONSOLE_SCREENSHOT=docs/console.png npm run test:browser
    if (process.env.CONSOLE_SCREENSHOT)
      await page.screenshot({ path: path.resolve(process.env.CONSOLE_SCREENSHOT), fullPage: false })
  })

  it('returns to the sign-in form saying why when the session is ended elsewhere, and signs in again', async () => {
    const page = await open()
    await signUp(page, 'grace@example.org', 'Hopper Clinic')
    await page.locator('#record-form').waitFor()
    // On another device the same person signs out everywhere.
    const elsewhere = await http(server.url, 'POST', '/authentication', {
      body: { email: 'grace@example.org', password }
    })
    assert.equal(elsewhere.status, 201, JSON.stringify(elsewhere.body))
    const ended = await http(server.url, 'POST', '/authentication', {
      token: elsewhere.body.accessToken,
      body: { action: 'logout-everywhere' }
    })
    assert.equal(ended.status, 201, JSON.stringify(ended.body))

    await page.locator('#login-form').waitFor()
    assert.equal(
      await page.locator('.auth .notice').textContent(),
      'Signed out. This account was signed out everywhere. Sign in again.'
    )
    assert.equal(
      await page.evaluate<string | null>("localStorage.getItem('feathers-jwt')"),
      null,
      'the ended token is forgotten'
    )
    await screenshot(page, 'console-session-ended')
    await signIn(page, 'grace@example.org')
    await page.locator('#signed-in-as').filter({ hasText: 'grace@example.org' }).waitFor()
    await page.locator('#record-form').waitFor()
  })

  it('shows two members of one facility each other’s changes live; a stranger sees nothing', async () => {
    const a = await open()
    await signUp(a, 'ada@example.org', 'Lovelace Clinic')
    const b = await open()
    await signUp(b, 'bea@example.org')
    const beaId = await accountId(b)
    // Ada, the facility's superadmin, adds Bea as a member through the console.
    await a.getByRole('link', { name: 'Organizations' }).click()
    const memberForm = a.locator('#member-form')
    await memberForm.getByLabel(/Account id/).fill(beaId)
    await memberForm.getByLabel(/Roles/).fill('nurse')
    await memberForm.getByRole('button', { name: 'Add member' }).click()
    await a.locator(`#members tr[data-uid="${beaId}"]`).waitFor()
    // Bea reloads (her session survives) and now works in the facility.
    await b.reload()
    await b.locator('#current-organization').filter({ hasText: 'Lovelace Clinic' }).waitFor()
    await b.locator('#records-count').filter({ hasText: '0 records' }).waitFor()

    const stranger = await open()
    await signUp(stranger, 'eve@example.org', 'Elsewhere Clinic')

    // Ada creates an allergy shared with the facility: Bea's list shows it without a reload.
    await a.getByRole('link', { name: 'Records' }).click()
    await a.locator('#record-type').selectOption('allergy')
    await a.locator('#record-form').getByLabel(/^Name/).fill('Penicillin')
    await a.locator('#share-facility').check()
    await a.locator('#record-form').getByRole('button', { name: 'Create record' }).click()
    const onB = recordsList(b).locator('li[data-type="allergy"]')
    await onB.filter({ hasText: 'Penicillin' }).waitFor({ timeout: 2000 })

    // Ada changes it: Bea sees the change.
    await recordsList(a).locator('li[data-type="allergy"]').getByRole('button', { name: 'Edit' }).click()
    await a.locator('#edit-form').getByLabel(/^Name/).fill('Penicillin (severe)')
    await a.locator('#edit-form').getByRole('button', { name: 'Save changes' }).click()
    await onB.filter({ hasText: 'Penicillin (severe)' }).waitFor({ timeout: 2000 })
    await screenshot(a, 'console-member-a')
    await screenshot(b, 'console-member-b')

    // The stranger: no records, no members of the other facility, nothing of Ada's in the page.
    await stranger.reload()
    await stranger.locator('#records-count').filter({ hasText: '0 records' }).waitFor()
    const strangerText = await stranger.locator('body').innerText()
    assert.ok(
      !strangerText.includes('Penicillin') && !strangerText.includes('Lovelace'),
      'nothing of another tenant'
    )
    await stranger.getByRole('link', { name: 'Organizations' }).click()
    await stranger.locator('#members caption').waitFor()
    assert.ok(!(await stranger.locator('body').innerText()).includes(beaId))
    await screenshot(stranger, 'console-stranger')
  })

  it('asks for the MFA code when the server answers mfa-required, then signs in', async () => {
    // Ada turns MFA on through the API (the console asks for the code at login).
    await http(server.url, 'POST', '/accounts', { body: { email: 'ada@example.org', password } })
    const token = (
      await http(server.url, 'POST', '/authentication', { body: { email: 'ada@example.org', password } })
    ).body.accessToken
    const setup = (
      await http(server.url, 'POST', '/authentication', { body: { action: 'setupMFA', password }, token })
    ).body
    const applied = await http(server.url, 'POST', '/authentication', {
      body: { action: 'applyActionCode', code: setup.code, payload: { mfaCode: totp(setup.secret) } },
      token
    })
    assert.equal(applied.status, 201, JSON.stringify(applied.body))

    const page = await open({ width: 390, height: 844 })
    const code = page.locator('#login-form').getByLabel(/MFA code/)
    await page.locator('#login-form').waitFor()
    assert.equal(await code.isVisible(), false, 'no MFA code field before the server asks for one')
    await signIn(page, 'ada@example.org')
    await code.waitFor()
    assert.equal(await page.locator('#signed-in-as').count(), 0, 'not signed in without the code')
    await screenshot(page, 'console-mfa')
    await code.fill(totp(setup.secret))
    await page.locator('#login-form').getByRole('button', { name: 'Sign in' }).click()
    await page.locator('#signed-in-as').filter({ hasText: 'ada@example.org' }).waitFor()
    // Sign out, and the sign-in form is back.
    await page.locator('#logout').click()
    await page.locator('#login-form').waitFor()
  })

  it('shows the server’s 400 message beside the field it names', async () => {
    const page = await open()
    await signUp(page, 'ada@example.org', 'Lovelace Clinic')
    await page.locator('#record-type').selectOption('developmental-milestone')
    await page.locator('#record-form').getByLabel(/^Age/).fill('6 months')
    await page.locator('#record-form').getByRole('button', { name: 'Create record' }).click()
    const error = page.locator('#record-form [data-error-for="milestone"]')
    await error.filter({ hasText: 'milestone is required' }).waitFor()
    assert.equal(await page.locator('#record-form [data-error-for="age"]').textContent(), '')
    await screenshot(page, 'console-field-error')
  })

  it('registers a webhook (secret shown once), pings it and shows delivered in the log', async () => {
    const receiver = await startWebhookReceiver()
    try {
      const page = await open()
      await signUp(page, 'ada@example.org', 'Lovelace Clinic')
      await page.getByRole('link', { name: 'Webhooks' }).click()
      const form = page.locator('#webhook-form')
      await form.getByLabel('URL').fill(receiver.url)
      await form.getByLabel('Events').fill('medical-records')
      await form.getByRole('button', { name: 'Register' }).click()
      const secret = page.locator('#webhook-secret .secret')
      await secret.waitFor()
      assert.match((await secret.textContent())!, /^whsec_/)
      await page.locator('#webhook-secret').getByRole('button', { name: 'Copy secret' }).waitFor()
      await page.locator('#webhooks li').getByRole('button', { name: 'Ping' }).click()
      await page
        .locator('#delivery-log tr[data-status="delivered"]')
        .filter({ hasText: 'ping' })
        .waitFor({ timeout: 10_000 })
      await receiver.waitForCount(1)
      assert.equal(receiver.received[0].body.event, 'ping')
      await screenshot(page, 'console-webhooks')
      // Reloaded, the secret is gone for good.
      await page.reload()
      await page.locator('#webhooks li').first().waitFor()
      assert.equal(await page.locator('#webhook-secret .secret').count(), 0)
    } finally {
      await receiver.close()
    }
  })
})
