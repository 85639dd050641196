// The console's sessions and sharing in headless Chromium through playwright-core, as people use it: sign-up (the
// session survives a reload, the token is never shown), a session ended elsewhere (back to the sign-in form
// saying why), an MFA sign-in, two members of one facility seeing each other's changes live while a stranger sees
// nothing, and the server's 400 message beside the field it names. `npm run test:browser`; screenshots and the
// accessibility check of each view through `checkView` (test-results/).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { startServer, http, type TestServer } from '../helpers/app'
import { totp } from '../helpers/auth'
import { launchChromium } from '../helpers/browser'
import {
  checkView,
  consolePassword as password,
  openConsole,
  signInInConsole,
  signUpInConsole
} from '../helpers/console'

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name })

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
    server = await startServer()
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close()
  })

  /** Another person: a new browser context on the console. */
  const open = async (viewport?: { width: number; height: number }) => {
    const opened = await openConsole(browser, server.url, viewport)
    contexts.push(opened.context)
    return opened
  }
  const tokenOf = async (email: string) => {
    const login = await http(server.url, 'POST', '/authentication', { body: { email, password } })
    assert.equal(login.status, 201, JSON.stringify(login.body))
    return { token: login.body.accessToken as string, id: login.body.account.id as string }
  }

  it('signs up; the session survives a reload and its token is never shown', async () => {
    const { page, foreign } = await open()
    await signUpInConsole(page, { email: 'ada@example.org', facility: 'Lovelace Clinic' })
    await page.reload()
    await page.locator('#signed-in-as').filter({ hasText: 'ada@example.org' }).waitFor()
    await page.getByRole('heading', { name: 'Patients', level: 1 }).waitFor()
    const token = await page.evaluate<string | null>("localStorage.getItem('feathers-jwt')")
    assert.ok(
      token && !(await page.locator('body').innerText()).includes(token),
      'the token is kept, never shown'
    )
    assert.deepEqual(foreign, [])
  })

  it('returns to the sign-in form saying why when the session is ended elsewhere, and signs in again', async () => {
    const { page } = await open()
    await signUpInConsole(page, { email: 'grace@example.org', facility: 'Hopper Clinic' })
    // On another device the same person signs out everywhere.
    const elsewhere = await tokenOf('grace@example.org')
    const ended = await http(server.url, 'POST', '/authentication', {
      token: elsewhere.token,
      body: { action: 'logout-everywhere' }
    })
    assert.equal(ended.status, 201, JSON.stringify(ended.body))
    await page.locator('#login-form').waitFor()
    assert.equal(
      await page.locator('.auth .notice').textContent(),
      'Signed out. This account was signed out everywhere. Sign in again.'
    )
    assert.equal(await page.evaluate<string | null>("localStorage.getItem('feathers-jwt')"), null)
    await checkView(page, 'console-session-ended')
    await signInInConsole(page, 'grace@example.org')
    await page.locator('#signed-in-as').filter({ hasText: 'grace@example.org' }).waitFor()
  })

  it('asks for the MFA code when the server answers mfa-required, then signs in', async () => {
    await http(server.url, 'POST', '/accounts', { body: { email: 'mfa@example.org', password } })
    const { token } = await tokenOf('mfa@example.org')
    const setup = (
      await http(server.url, 'POST', '/authentication', { body: { action: 'setupMFA', password }, token })
    ).body
    const applied = await http(server.url, 'POST', '/authentication', {
      body: { action: 'applyActionCode', code: setup.code, payload: { mfaCode: totp(setup.secret) } },
      token
    })
    assert.equal(applied.status, 201, JSON.stringify(applied.body))

    const { page } = await open({ width: 390, height: 844 })
    const code = page.locator('#login-form').getByLabel(/MFA code/)
    await page.locator('#login-form').waitFor()
    assert.equal(await code.isVisible(), false, 'no MFA code field before the server asks for one')
    await signInInConsole(page, 'mfa@example.org')
    await code.waitFor()
    assert.equal(await page.locator('#signed-in-as').count(), 0, 'not signed in without the code')
    await page.locator('#login-form .form-error').filter({ hasText: 'Enter the code' }).waitFor()
    await checkView(page, 'console-mfa')
    await code.fill(totp(setup.secret))
    await page.locator('#login-form').getByRole('button', { name: 'Sign in' }).click()
    await page.locator('#signed-in-as').filter({ hasText: 'mfa@example.org' }).waitFor()
    // Without a facility, the account sees the views every account has.
    await checkView(page, 'console-no-facility')
    await page.locator('#logout').click()
    await page.locator('#login-form').waitFor()
  })

  it('shows two members of one facility each other’s changes live; a stranger sees nothing', async () => {
    const a = await open()
    await signUpInConsole(a.page, { email: 'lin@example.org', facility: 'Lin Clinic' })
    const b = await open()
    await signUpInConsole(b.page, { email: 'bea@example.org' })
    // Lin, the facility's superadmin, adds Bea as a member (by the API here; the members view has its own test).
    const lin = await tokenOf('lin@example.org')
    const bea = await tokenOf('bea@example.org')
    const organizations = await http(server.url, 'GET', '/organization-members?uid=' + lin.id, {
      token: lin.token
    })
    const facility = organizations.body.data[0].organization as string
    const joined = await http(server.url, 'POST', '/organization-members', {
      token: lin.token,
      body: { organization: facility, uid: bea.id, roles: ['nurse'] }
    })
    assert.equal(joined.status, 201, JSON.stringify(joined.body))
    // Bea reloads (her session survives) and now works in the facility.
    await b.page.reload()
    await b.page.locator('#current-organization').filter({ hasText: 'Lin Clinic' }).waitFor()
    await nav(b.page, 'Patients').click()
    await b.page.locator('#patient-count').filter({ hasText: '0 patients' }).waitFor()

    const stranger = await open()
    await signUpInConsole(stranger.page, { email: 'eve@example.org', facility: 'Elsewhere Clinic' })

    // Lin registers a patient: Bea's list shows her without a reload.
    const form = a.page.locator('#register-patient')
    await form.getByLabel('First name').fill('Penelope')
    await form.getByLabel('Last name').fill('Fitzgerald')
    await form.getByLabel('Email').fill('penelope@example.org')
    await form.getByRole('button', { name: 'Register patient' }).click()
    await a.page.locator('#patient-name').filter({ hasText: 'Penelope Fitzgerald' }).waitFor()
    await b.page.locator('#patients').getByRole('link', { name: 'Penelope Fitzgerald' }).click()
    await b.page.getByRole('heading', { name: 'Records' }).waitFor()

    // Lin adds an allergy shared with the facility: Bea's records show it without a reload.
    await a.page.getByRole('tab', { name: 'New record' }).click()
    await a.page.locator('#record-form').getByLabel('Type of record').selectOption({ label: 'Allergy' })
    await a.page.locator('#record-form').getByLabel('Allergen').fill('Penicillin')
    await a.page.locator('#record-form').getByRole('button', { name: 'Save record' }).click()
    await b.page.locator('#records > li[data-type="allergy"]').filter({ hasText: 'Penicillin' }).waitFor()
    await checkView(b.page, 'console-member-live')

    // The stranger: no patients of Lin Clinic, not even by the patient's address.
    const patientUrl = a.page.url()
    await stranger.page.locator('#patient-count').filter({ hasText: '0 patients' }).waitFor()
    await stranger.page.goto(patientUrl)
    await stranger.page.getByText('This patient is not one of this facility’s.').waitFor()
    const text = await stranger.page.locator('body').innerText()
    for (const secret of ['Penelope', 'Penicillin', 'Lin Clinic']) assert.ok(!text.includes(secret), secret)
    await checkView(stranger.page, 'console-stranger')
  })

  it('shows the server’s 400 message beside the field it names', async () => {
    const { page } = await open()
    await signUpInConsole(page, { email: 'kim@example.org', facility: 'Kim Clinic' })
    const form = page.locator('#register-patient')
    await form.getByLabel('First name').fill('Jo')
    await form.getByLabel('Email').fill('jo@example.org')
    await form.getByRole('button', { name: 'Register patient' }).click()
    await page.getByRole('tab', { name: 'New record' }).click()
    const record = page.locator('#record-form')
    await record.getByLabel('Type of record').selectOption({ label: 'Developmental milestone' })
    await record.getByLabel('Age').fill('6 months')
    await record.getByRole('button', { name: 'Save record' }).click()
    await record
      .locator('[data-error-for="milestone"]')
      .filter({ hasText: 'milestone is required' })
      .waitFor()
    assert.equal(await record.locator('[data-error-for="age"]').textContent(), '')
    assert.equal(await record.getByLabel('Milestone').getAttribute('aria-invalid'), 'true')
    await checkView(page, 'console-field-error')
  })
})
