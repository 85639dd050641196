// A patient registered by the clinic's staff claims the account in the console: staff register her by email; in
// another browser (her own), "First time here? Set your password" asks for a code by email, she types the code
// from the mail (a real SMTP server receives it) and a new password, and is signed in to the patient's view.
// Every step passes `checkView` (axe: no serious or critical violation; screenshots at 390 and 1280 px).
import assert from 'node:assert/strict'
import type { Browser, Page } from 'playwright-core'
import { startServer, type TestServer } from '../helpers/app'
import { launchChromium } from '../helpers/browser'
import { checkView, openConsole, signUpInConsole, type ConsolePage } from '../helpers/console'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp'

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name })

describe('the console: a registered patient sets her password', function () {
  this.timeout(120_000)
  let browser: Browser
  let server: TestServer
  let smtp: TestSmtpServer
  const opened: ConsolePage[] = []

  before(async () => {
    browser = await launchChromium()
    smtp = await startSmtpServer()
    server = await startServer({ messaging: { smtpUrl: smtp.url, mailFrom: 'clinic@example.test' } })
  })
  after(async () => {
    for (const { context } of opened) await context.close()
    await browser?.close()
    await server?.close()
    await smtp?.close()
  })

  it('staff register her by email; she claims the account from the mail and sees her own view', async () => {
    const staff = await openConsole(browser, server.url)
    opened.push(staff)
    await staff.page.locator('#login-form').waitFor()
    await signUpInConsole(staff.page, { email: 'mary@example.org', name: 'Mary', facility: 'Jackson Clinic' })
    await nav(staff.page, 'Patients').click()
    const form = staff.page.locator('#register-patient')
    await form.getByLabel('First name').fill('Katherine')
    await form.getByLabel('Last name').fill('Johnson')
    await form.getByLabel('Email').fill('katherine@example.org')
    await form.getByRole('button', { name: 'Register patient' }).click()
    await staff.page.locator('#patient-name').filter({ hasText: 'Katherine Johnson' }).waitFor()

    const patient = await openConsole(browser, server.url)
    opened.push(patient)
    const { page } = patient
    await page.getByRole('button', { name: 'First time here? Set your password' }).click()
    const request = page.locator('#claim-request-form')
    await checkView(page, 'console-claim-request')
    const seen = smtp.messages.length
    await request.getByLabel('Email').fill('katherine@example.org')
    await request.getByRole('button', { name: 'Send me a code' }).click()
    const choose = page.locator('#claim-password-form')
    await choose.waitFor()
    const mail = await smtp.waitFor(
      (m) =>
        smtp.messages.indexOf(m) >= seen &&
        m.to === 'katherine@example.org' &&
        m.subject === 'Set Your Password'
    )
    const code = /^code: (\S+)$/m.exec(mail.text)?.[1]
    assert.ok(code, mail.text)
    assert.equal(await choose.getByLabel('Code from the email').inputValue(), '', 'a fresh form')
    await checkView(page, 'console-claim-password')
    // A weak password is refused beside its field; the code stays usable.
    await choose.getByLabel('Code from the email').fill(code)
    await choose.getByLabel('New password').fill('short')
    await choose.getByRole('button', { name: 'Set password and sign in' }).click()
    await choose.getByRole('alert').first().waitFor()
    await choose.getByLabel('New password').fill('Katherine horse 42')
    await choose.getByRole('button', { name: 'Set password and sign in' }).click()
    await page.locator('#signed-in-as').filter({ hasText: 'katherine@example.org' }).waitFor()
    // Her own view: not the facility's patient list.
    await nav(page, 'My account').waitFor()
    assert.equal(await nav(page, 'Patients').count(), 0)
    await checkView(page, 'console-claim-signed-in')
  })
})
