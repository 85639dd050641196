// The console's money and members views in headless Chromium, as a facility's staff use them: bill an encounter
// from the patient's page, finalize it after the inline confirmation, collect the remaining balance; invite a
// member by email (the mail read from the local SMTP server), who joins in a second browser while the first sees
// them arrive; choose and change the package. Every amount shown reads like "$49.00" (never "4900 USD"), and every
// view passes axe-core (no serious or critical violation) with screenshots at 390 and 1280 px.
import assert from 'node:assert/strict'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { http, startServer, uniqueEmail, type TestServer } from '../helpers/app'
import { ADMIN } from '../helpers/subscriptions'
import { launchChromium } from '../helpers/browser'
import { checkView, consolePassword, openConsole, signUpInConsole } from '../helpers/console'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp'
import { startWebhookReceiver } from '../helpers/webhook-receiver'

/** Every amount the page shows: each `.money` element's text. */
const amountsOn = (page: Page) => page.locator('.money').allInnerTexts()

/** Amounts read as dollars with cents, and no amount anywhere as a bare number with its code. */
const assertFormatted = async (page: Page, where: string) => {
  const amounts = await amountsOn(page)
  assert.ok(amounts.length > 0, `${where}: amounts are shown`)
  for (const text of amounts)
    assert.match(text.trim(), /^(-?\$\d{1,3}(,\d{3})*\.\d{2}|No charge)( per (month|year))?$/, where)
  const body = await page.locator('main').innerText()
  assert.doesNotMatch(body, /\d\s*USD\b/, `${where}: no raw amount with a currency code`)
}

describe('the console: billing, members and subscription', function () {
  this.timeout(120_000)
  let browser: Browser
  let server: TestServer
  let smtp: TestSmtpServer
  let staff: Page
  const contexts: BrowserContext[] = []
  const ownerEmail = uniqueEmail('owner')

  before(async () => {
    browser = await launchChromium()
    smtp = await startSmtpServer()
    server = await startServer({
      admin: ADMIN,
      messaging: { smtpUrl: smtp.url, mailFrom: 'clinic@example.test', smsWebhookUrl: '' }
    })
    const opened = await openConsole(browser, server.url)
    contexts.push(opened.context)
    staff = opened.page
    await signUpInConsole(staff, { email: ownerEmail, name: 'Ada', facility: 'Money Clinic' })
  })
  after(async () => {
    for (const context of contexts) await context.close()
    await browser?.close()
    await server?.close()
    await smtp?.close()
  })

  const go = async (page: Page, hash: string, heading: RegExp | string) => {
    await page.goto(`${server.url}/#${hash}`)
    await page.getByRole('heading', { level: 1, name: heading }).waitFor()
  }

  it('bills an encounter, finalizes it after confirming, and collects the remaining balance', async () => {
    await go(staff, '/billing', 'Billing at Money Clinic')
    const serviceForm = staff.locator('#service-form')
    await serviceForm.getByLabel('Name').fill('Consultation')
    await serviceForm.getByLabel('Price').fill('49')
    await serviceForm.getByRole('button', { name: 'Add service' }).click()
    await staff.locator('#services').getByText('$49.00').waitFor()

    // The patient is registered (and later found) by name, never by id.
    await go(staff, '/patients', 'Patients')
    const register = staff.locator('#register-patient')
    await register.getByLabel('First name').fill('Grace')
    await register.getByLabel('Last name').fill('Hopper')
    await register.getByLabel('Email').fill(uniqueEmail('grace'))
    await register.getByRole('button', { name: 'Register patient' }).click()
    await staff.getByRole('heading', { level: 1, name: 'Grace Hopper' }).waitFor()
    await staff.getByRole('tab', { name: 'Encounters & bills' }).click()
    const encounterForm = staff.locator('#encounter-form')
    await encounterForm.getByLabel('Reason').fill('Annual check-up')
    await encounterForm.getByRole('button', { name: 'Open encounter' }).click()
    await staff.getByRole('button', { name: 'Open the bill' }).click()

    const itemForm = staff.locator('#item-form')
    await itemForm.getByLabel('Service from the catalogue').selectOption({ label: 'Consultation · $49.00' })
    await itemForm.getByRole('button', { name: 'Add item' }).click()
    await staff.locator('#invoice-total', { hasText: '$49.00' }).waitFor()

    const payment = staff.locator('.payment-form').first()
    await payment.getByLabel('Amount (USD)').fill('20')
    await payment.getByRole('button', { name: 'Record payment' }).click()
    await staff.locator('#invoice-balance', { hasText: '$29.00' }).waitFor()
    await assertFormatted(staff, 'the bill')
    await checkView(staff, 'money-patient-bill')

    // Too much: the refusal says how much is left, in money, with no id.
    const overpay = staff.locator('.payment-form').first()
    await overpay.getByLabel('Amount (USD)').fill('100')
    await overpay.getByRole('button', { name: 'Record payment' }).click()
    const refusal = overpay.locator('.form-error[role="alert"]')
    await refusal.filter({ hasText: 'at most $29.00' }).waitFor()
    assert.doesNotMatch(await refusal.innerText(), /[0-9a-f]{24}/, 'no raw id in the message')

    // Finalizing asks first and says what it locks.
    await staff.getByRole('button', { name: 'Finalize…' }).click()
    const question = staff.getByRole('group', { name: 'Confirm' })
    assert.match(await question.innerText(), /locks this bill/)
    await checkView(staff, 'money-finalize-confirm')
    await question.getByRole('button', { name: 'Finalize the bill' }).click()
    await staff.locator('.invoice-status', { hasText: 'Finalized' }).waitFor()
    assert.equal(await staff.locator('#item-form').count(), 0, 'no more items once finalized')

    // An online payment started for the bill shows its amount in money too.
    const login = await http(server.url, 'POST', '/authentication', {
      body: { strategy: 'local', email: ownerEmail, password: consolePassword }
    })
    const token = login.body.accessToken
    const facility = (await http(server.url, 'GET', '/organizations', { token })).body.data[0].id
    const invoice = (await http(server.url, 'GET', `/billing-invoices?facility=${facility}`, { token })).body
      .data[0]
    const intent = await http(server.url, 'POST', '/billing-payment-intents', {
      token,
      body: {
        gatewayType: 'sandbox-card',
        currency: 'USD',
        facility,
        invoice: invoice.id,
        gatewayReturnURL: `${server.url}/paid`,
        gatewayCancelURL: `${server.url}/cancelled`,
        items: [{ name: 'Balance', amountPerItem: 29, quantity: 1 }]
      }
    })
    assert.equal(intent.status, 201, JSON.stringify(intent.body))
    await staff
      .locator('#intents', { hasText: 'Waiting for the payer' })
      .filter({ hasText: '$29.00' })
      .waitFor()

    // The balance can still be collected.
    const rest = staff.locator('.payment-form').first()
    assert.equal(await rest.getByLabel('Amount (USD)').inputValue(), '29')
    await rest.getByRole('button', { name: 'Record payment' }).click()
    await staff.locator('#invoice-balance', { hasText: '$0.00' }).waitFor()
    const statuses = await staff.locator('.payment-status').allInnerTexts()
    assert.deepEqual(statuses, ['Recorded', 'Recorded'])
    assert.doesNotMatch(await staff.locator('main').innerText(), /\(draft\)/)
    await assertFormatted(staff, 'the finalized bill')

    await go(staff, '/billing', 'Billing at Money Clinic')
    await staff.locator('#encounters').getByText('Annual check-up').waitFor()
    await assertFormatted(staff, 'billing')
    await checkView(staff, 'money-billing')
  })

  it('invites a member by email; they join from a second browser and appear live', async () => {
    const email = uniqueEmail('nurse')
    await go(staff, '/members', 'Members of Money Clinic')
    const form = staff.locator('#invite-form')
    await form.getByLabel('Email address').fill(email)
    await form.getByLabel('Billing', { exact: true }).check()
    const seen = smtp.messages.length
    await form.getByRole('button', { name: 'Send invitation' }).click()
    await staff.locator('#invitations').getByText(email).waitFor()
    await checkView(staff, 'money-members')

    const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) >= seen && m.to === email)
    assert.equal(mail.subject, 'Invitation to join Money Clinic')
    const code = /^code: (\S+)$/m.exec(mail.text)?.[1]
    assert.ok(code, mail.text)

    const invitee = await openConsole(browser, server.url)
    contexts.push(invitee.context)
    await signUpInConsole(invitee.page, { email, name: 'Florence', lastName: 'Fielding' })
    await go(invitee.page, '/join', 'Join a facility')
    await checkView(invitee.page, 'money-join')
    await invitee.page.getByLabel('Code from the message').fill(code)
    await invitee.page.getByRole('button', { name: 'Join' }).click()
    await invitee.page.getByRole('status').filter({ hasText: 'You joined Money Clinic' }).waitFor()

    // The staff's list shows the new member without a reload, by name and address, with the invited privilege.
    const row = staff.locator('#members tr', { hasText: email })
    await row.waitFor()
    assert.match(await row.innerText(), /Florence Fielding \(/)
    assert.match(await row.innerText(), /Billing/)
    assert.equal(await staff.locator('#invitations').getByText(email).count(), 0, 'no longer pending')

    // Removing asks inline (no browser dialog) and says what it does.
    staff.on('dialog', () => assert.fail('no browser dialog'))
    await row.getByRole('button', { name: 'Remove' }).click()
    assert.match(
      await staff.getByRole('group', { name: 'Confirm' }).innerText(),
      /loses access to Money Clinic/
    )
    await staff.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Cancel' }).click()
    // Leaving says what you lose.
    await staff
      .locator('#members tr', { hasText: 'You' })
      .getByRole('button', { name: 'Leave this facility' })
      .click()
    assert.match(await staff.getByRole('group', { name: 'Confirm' }).innerText(), /you lose access/)
    await staff.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Cancel' }).click()
  })

  it('chooses a package, shows its price and features, and changes it', async () => {
    await go(staff, '/subscription', 'Subscription of Money Clinic')
    const kind = staff.locator('#kind-form')
    await kind.getByLabel('Kind').selectOption('clinic')
    await kind.getByRole('button', { name: 'Save' }).click()
    const choose = staff.locator('#package-form')
    await choose.getByLabel('Package').selectOption({ label: 'Free · No charge' })
    await choose.getByRole('button', { name: 'Subscribe' }).click()
    await staff.locator('#package-name', { hasText: 'Free' }).waitFor()
    await staff.locator('#subscription-status', { hasText: 'Active' }).waitFor()
    await staff.locator('#features li').first().waitFor()

    await choose.getByLabel('Package').selectOption({ label: 'Clinic Plus · $49.00 per month' })
    await choose.getByRole('button', { name: 'Change package' }).click()
    await staff.locator('#checkout-link').waitFor()
    await staff
      .locator('#pending-change', { hasText: 'Changing to Clinic Plus ($49.00 per month)' })
      .waitFor()
    await assertFormatted(staff, 'subscription')
    await checkView(staff, 'money-subscription')
  })

  it('shows the directory, webhooks, orders and inventory readably', async () => {
    await go(staff, '/directory', 'Directory')
    await staff.locator('#directory-form').getByRole('button', { name: 'Search' }).click()
    await staff.getByText('A facility appears here only after it opts in').waitFor()
    await checkView(staff, 'money-directory')
    const receiver = await startWebhookReceiver()
    try {
      await go(staff, '/webhooks', 'Webhooks')
      const form = staff.locator('#webhook-form')
      await form.getByLabel('URL').fill(receiver.url)
      await form.getByLabel('Changes to send').fill('medical-records')
      await form.getByRole('button', { name: 'Register' }).click()
      const secret = staff.locator('#webhook-secret .secret')
      await secret.waitFor()
      assert.match((await secret.textContent())!, /^whsec_/)
      await staff.locator('#webhooks tbody tr').getByRole('button', { name: 'Ping' }).click()
      await staff
        .locator('#delivery-log tr[data-status="delivered"]')
        .filter({ hasText: 'Delivered' })
        .waitFor()
      await receiver.waitForCount(1)
      assert.equal(receiver.received[0].body.event, 'ping')
      await checkView(staff, 'money-webhooks')
    } finally {
      await receiver.close()
    }
    await go(staff, '/orders', 'Orders of Money Clinic')
    // An order for a patient picks her by name.
    const order = staff.locator('#order-form')
    await order.getByLabel('Item').fill('Paracetamol 500 mg')
    await order.getByLabel('Requested for').selectOption('patient')
    await order.getByLabel('Patient').fill('Gra')
    await order.getByRole('button', { name: /Grace Hopper/ }).click()
    await order.getByRole('button', { name: 'Place order' }).click()
    await staff
      .locator('#orders tr', { hasText: '1 × Paracetamol 500 mg' })
      .filter({ hasText: 'Patient' })
      .waitFor()
    await checkView(staff, 'money-orders')
    await go(staff, '/inventory', 'Inventory of Money Clinic')
    await checkView(staff, 'money-inventory')
  })

  it('explains in words what a read-only facility means for its staff', async () => {
    await go(staff, '/subscription', 'Subscription of Money Clinic')
    // A failed renewal (set here by an application admin): the page says what read-only means for the staff.
    const login = await http(server.url, 'POST', '/authentication', { body: { strategy: 'local', ...ADMIN } })
    const admin = login.body.accessToken
    const clinics = await http(server.url, 'GET', '/organizations?name=Money%20Clinic', { token: admin })
    const found = await http(server.url, 'GET', `/subscriptions?facility=${clinics.body.data[0].id}`, {
      token: admin
    })
    const moved = await http(server.url, 'PATCH', `/subscriptions/${found.body.data[0].id}`, {
      token: admin,
      body: { status: 'past_due', reason: 'card declined' }
    })
    assert.equal(moved.status, 200, JSON.stringify(moved.body))
    const status = staff.locator('#subscription-status', { hasText: 'Read-only' })
    await status.waitFor()
    assert.match(await status.innerText(), /can read everything but cannot add or change/)
    await checkView(staff, 'money-subscription-read-only')
  })
})
