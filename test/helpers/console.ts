// The console in headless Chromium for the browser tests: a new browser context per person, sign-up and sign-in
// through the console's own forms, and `checkView` — axe-core on the page as it is (fails on any serious or
// critical violation, listing them), then full-page screenshots at 390 and 1280 px in test-results/.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { Browser, BrowserContext, Page } from 'playwright-core'

export const results = path.resolve(__dirname, '../../test-results')
export const consolePassword = 'correct horse battery'

export interface ConsolePage {
  context: BrowserContext
  page: Page
  /** Requests the page made to any other origin than the server's (the console loads nothing from elsewhere). */
  foreign: string[]
}

/** A new browser context (its own storage: another person) on the console at `baseUrl`. */
export const openConsole = async (
  browser: Browser,
  baseUrl: string,
  viewport = { width: 1280, height: 800 }
): Promise<ConsolePage> => {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  // A console step answers in well under a second: a wait that long means the step failed.
  page.setDefaultTimeout(20_000)
  const foreign: string[] = []
  page.on('request', (request) => {
    const url = request.url()
    // (data: and blob: URLs are the page's own bytes; chrome-extension: and chrome: are the browser's built-in PDF viewer)
    if (
      !url.startsWith(baseUrl) &&
      !/^(data|blob|chrome-extension|chrome):/.test(url) &&
      !url.startsWith('ws://127.0.0.1')
    )
      foreign.push(url)
  })
  page.on('pageerror', (error) => console.error('page error:', error.message))
  await page.goto(`${baseUrl}/`)
  return { context, page, foreign }
}

/** Signs up through the console's form (optionally creating a facility), and waits for the signed-in shell. */
export const signUpInConsole = async (
  page: Page,
  who: { email: string; password?: string; name?: string; lastName?: string; facility?: string }
) => {
  const form = page.locator('#signup-form')
  await form.getByLabel('Email').fill(who.email)
  await form.getByLabel('Password').fill(who.password ?? consolePassword)
  await form.getByLabel('First name').fill(who.name ?? who.email.split('@')[0])
  if (who.lastName) await form.getByLabel('Last name').fill(who.lastName)
  if (who.facility) await form.getByLabel(/New facility/).fill(who.facility)
  await form.getByRole('button', { name: 'Sign up' }).click()
  await page.locator('#signed-in-as').filter({ hasText: who.email }).waitFor()
}

/** Signs in through the console's form (no waiting: an MFA code may be asked next). */
export const signInInConsole = async (page: Page, email: string, password = consolePassword) => {
  const form = page.locator('#login-form')
  await form.getByLabel('Email').fill(email)
  await form.getByLabel('Password').fill(password)
  await form.getByRole('button', { name: 'Sign in' }).click()
}

/** Full-page screenshot as test-results/<name>.png. */
export const screenshot = async (page: Page, name: string) => {
  fs.mkdirSync(results, { recursive: true })
  await page.screenshot({ path: path.join(results, `${name}.png`), fullPage: true })
}

/**
 * axe-core on the page as it is now: fails listing every violation of impact serious or critical; then full-page
 * screenshots at 390 and 1280 px wide (test-results/<name>-390.png, -1280.png), the viewport restored afterwards.
 */
export const checkView = async (page: Page, name: string) => {
  const analysis = await new AxeBuilder({ page }).analyze()
  const grave = analysis.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  assert.deepEqual(
    grave.map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `accessibility of the ${name} view`
  )
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 }
  fs.mkdirSync(results, { recursive: true })
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 800 })
    await page.screenshot({ path: path.join(results, `${name}-${width}.png`), fullPage: true })
  }
  await page.setViewportSize(viewport)
}
