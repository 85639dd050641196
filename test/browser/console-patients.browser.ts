// The console's patient views in headless Chromium, as a facility's staff use them: sign up with a new facility,
// register two patients, find one by typing the start of her name (the list follows as you type), add records of
// three types through their forms (rows added and removed, a yes/no answer, dates), see them by type, newest
// first, upload a file by dropping it and see its preview, and the account page. Every view passes `checkView`
// (axe: no serious or critical violation; screenshots at 390 and 1280 px in test-results/).
// CONSOLE_SCREENSHOT=docs/console.png npm run test:browser also writes the README's picture (the patient list).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startServer, type TestServer } from '../helpers/app'
import { launchChromium } from '../helpers/browser'
import { checkView, openConsole, results, signUpInConsole, type ConsolePage } from '../helpers/console'
import { watchPolicyViolations } from '../helpers/policy-violations'

/** A link of the console's navigation. */
const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name })

// A 2×2 PNG (red, green, blue, white).
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64'
)

describe('the console’s patient views in headless Chromium', function () {
  this.timeout(120_000)
  let browser: Browser
  let server: TestServer
  let staff: ConsolePage

  before(async () => {
    assert.ok(
      fs.existsSync(path.resolve(__dirname, '../../public/console.js')),
      'public/console.js is built by `node scripts/bundle-console.js` (npm run test:browser does it)'
    )
    browser = await launchChromium()
    server = await startServer()
    staff = await openConsole(browser, server.url)
  })
  after(async () => {
    await staff?.context.close()
    await browser?.close()
    await server?.close()
  })

  it('signs up with a new facility and lands on its (empty) patient list', async () => {
    const { page } = staff
    await page.locator('#login-form').waitFor()
    await checkView(page, 'console-sign-in')
    await signUpInConsole(page, { email: 'nina@example.org', name: 'Nina', facility: 'Lovelace Clinic' })
    await page.getByRole('heading', { name: 'Patients', level: 1 }).waitFor()
    await page.locator('#patient-count').filter({ hasText: '0 patients in Lovelace Clinic' }).waitFor()
    await checkView(page, 'console-patients-empty')
  })

  it('registers patients and finds one by typing the start of her name', async () => {
    const { page } = staff
    for (const [first, last, email] of [
      ['Grace', 'Hopper', 'grace@example.org'],
      ['Ada', 'Lovelace', 'ada@example.org']
    ]) {
      await nav(page, 'Patients').click()
      const form = page.locator('#register-patient')
      await form.getByLabel('First name').fill(first)
      await form.getByLabel('Last name').fill(last)
      await form.getByLabel('Email').fill(email)
      await form.getByRole('button', { name: 'Register patient' }).click()
      await page
        .locator('#patient-name')
        .filter({ hasText: `${first} ${last}` })
        .waitFor()
    }
    await nav(page, 'Patients').click()
    await page.locator('#patient-count').filter({ hasText: '2 patients' }).waitFor()
    // Typed letter by letter: the list follows the search (the server's), without pressing anything.
    await page.getByLabel('Find a patient').pressSequentially('lov', { delay: 60 })
    await page.locator('#patient-count').filter({ hasText: '1 patient matches “lov”' }).waitFor()
    const rows = page.locator('#patients tbody tr')
    assert.equal(await rows.count(), 1)
    assert.match(await rows.first().innerText(), /Ada Lovelace/)
    assert.doesNotMatch(await page.locator('#patients').innerText(), /Grace/)
    await checkView(page, 'console-patients')
    if (process.env.CONSOLE_SCREENSHOT) {
      await page.setViewportSize({ width: 1280, height: 720 })
      await page.screenshot({ path: path.resolve(process.env.CONSOLE_SCREENSHOT) })
    }
    await page.getByRole('link', { name: 'Ada Lovelace' }).click()
    await page.locator('#patient-name').filter({ hasText: 'Ada Lovelace' }).waitFor()
    await checkView(page, 'console-patient')
  })

  it('adds records of three types through their forms and lists them by type, newest first', async () => {
    const { page } = staff
    await page.getByRole('tab', { name: 'New record' }).click()
    const form = page.locator('#record-form')
    const typeSelect = form.getByLabel('Type of record')
    const labels = await typeSelect.locator('option').allTextContents()
    assert.equal(labels.length, 15)
    assert.ok(labels.includes('Annual physical exam report') && !labels.some((l) => /ape-report|-/.test(l)))
    const save = async (label: string) => {
      await form.getByRole('button', { name: 'Save record' }).click()
      await form
        .locator('.form-status')
        .filter({ hasText: `Saved the ${label} record.` })
        .waitFor()
    }

    // An allergy: a required text, a long text, a date.
    await typeSelect.selectOption({ label: 'Allergy' })
    await form.getByLabel('Allergen').fill('Penicillin')
    await form.getByLabel('Reaction').fill('Hives within an hour')
    await form.getByLabel('Since').fill('2019-04-02')
    await save('allergy')

    // A family history: a yes/no answer as a choice.
    await typeSelect.selectOption({ label: 'Family history' })
    await form.getByLabel('Relationship').fill('Mother')
    await form.getByLabel('Medical condition').fill('Type 2 diabetes')
    await form.getByLabel('Deceased').selectOption({ label: 'No' })
    await save('family history')

    // A discharge note: lists as rows added and removed, no JSON box anywhere.
    await typeSelect.selectOption({ label: 'Discharge note' })
    await form.getByLabel('Diagnosis').fill('Community-acquired pneumonia')
    await form.getByRole('button', { name: /Add resident/ }).click()
    await form.getByRole('button', { name: /Add resident/ }).click()
    await form.getByRole('button', { name: /Add resident/ }).click()
    await form.getByLabel('Resident 1').fill('Dr. Wrong')
    await form.getByLabel('Resident 2').fill('Dr. Osler')
    await form.getByRole('button', { name: 'Remove residents row 1' }).click()
    await form.getByLabel('Resident 1').waitFor()
    assert.equal(await form.getByLabel('Resident 1').inputValue(), 'Dr. Osler')
    assert.equal(await form.locator('textarea.mono, [name="data"]').count(), 0, 'no JSON box')
    await checkView(page, 'console-new-record')
    await save('discharge note')

    await page.getByRole('tab', { name: 'Records' }).click()
    await page.locator('#records-count').filter({ hasText: '3 records' }).waitFor()
    const types = await page
      .locator('#records > li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-type')))
    assert.deepEqual(types, ['discharge-note', 'family-history', 'allergy'], 'newest first')
    const text = await page.locator('#records').innerText()
    for (const shown of ['Discharge note', 'Family history', 'Allergy', 'Penicillin', 'Type 2 diabetes'])
      assert.ok(text.includes(shown), shown)
    const discharge = page.locator('#records > li[data-type="discharge-note"]')
    await discharge.getByText('All fields').click()
    assert.match(await discharge.innerText(), /Residents\s+Dr\. Osler/)
    assert.doesNotMatch(await discharge.innerText(), /Dr\. Wrong/)
    await checkView(page, 'console-records')
    // By type.
    await page.getByLabel('Show').selectOption({ label: 'Allergy' })
    await page.locator('#records-count').filter({ hasText: '1 record' }).waitFor()
    assert.equal(await page.locator('#records > li').getAttribute('data-type'), 'allergy')
  })

  it('uploads a file dropped on the files area or chosen with the button and shows its preview', async () => {
    const { page } = staff
    await page.getByRole('tab', { name: 'Files' }).click()
    await page.locator('#dropzone').waitFor()
    await checkView(page, 'console-files-empty')
    // A drop carrying one file, as the browser makes it when a file is dragged in from the desktop.
    const dataTransfer = await page.evaluateHandle(`(() => {
      const bytes = Uint8Array.from(atob('${png.toString('base64')}'), (c) => c.charCodeAt(0))
      const transfer = new DataTransfer()
      transfer.items.add(new File([bytes], 'scan.png', { type: 'image/png' }))
      return transfer
    })()`)
    await page.locator('#dropzone').dispatchEvent('dragover', { dataTransfer })
    await page.locator('#dropzone').dispatchEvent('drop', { dataTransfer })
    await page.getByRole('status').filter({ hasText: 'Uploaded scan.png.' }).waitFor()
    const preview = page.locator('#files img[alt="Preview of scan.png"]')
    await preview.waitFor()
    await page.waitForFunction(
      'document.querySelector(\'#files img[alt="Preview of scan.png"]\')?.naturalWidth === 2'
    )
    assert.equal(await page.locator('#files > li').count(), 1)
    await checkView(page, 'console-files')

    // A PDF chosen with the file button: previewed in a frame of its bytes, within the Content-Security-Policy.
    const violations = await watchPolicyViolations(page)
    await page.reload()
    await page.locator('#dropzone').waitFor()
    await page.locator('#file-input').setInputFiles({
      name: 'referral.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n')
    })
    await page.getByRole('status').filter({ hasText: 'Uploaded referral.pdf.' }).waitFor()
    const frame = page.locator('#files iframe[title="Preview of referral.pdf"]')
    await frame.waitFor({ state: 'attached' })
    assert.match((await frame.getAttribute('src')) ?? '', /^blob:/)
    assert.equal(await page.locator('#files > li').count(), 2)
    assert.deepEqual(violations, [])
    // The file is also an "Attachment" record of the patient.
    await page.getByRole('tab', { name: 'Records' }).click()
    await page.locator('#records > li[data-type="attachment"]').filter({ hasText: 'scan.png' }).waitFor()
  })

  it('shows the notifications tab and the account page', async () => {
    const { page } = staff
    await page.getByRole('tab', { name: 'Notifications' }).click()
    await page.getByRole('heading', { name: 'Notifications sent' }).waitFor()
    await page.getByText('Nothing was sent to this patient').waitFor()
    await checkView(page, 'console-notifications')
    await nav(page, 'My account').click()
    await page.locator('#mfa-setup-form').waitFor()
    await checkView(page, 'console-account')
    assert.deepEqual(staff.foreign, [], 'nothing loaded from elsewhere')
    assert.ok(fs.existsSync(path.join(results, 'console-patients-1280.png')))
  })
})
