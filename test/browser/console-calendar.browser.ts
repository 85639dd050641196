// The console's calendar, waiting room and the patient's own views in headless Chromium. As staff: book a free
// slot for a patient found by name, drag the appointment to another slot, move it with the keyboard form, check
// in, call next on the queue board while a second browser signed in as the patient sees their place change live;
// the waiting-room screen shows numbers, never names. As the patient: a record shared with them, book and cancel
// (with confirmation), who accessed their record in words, notification settings. Every view through checkView
// (axe: no serious or critical violation; screenshots at 390 and 1280 px).
import assert from 'node:assert/strict'
import type { Browser, Page } from 'playwright-core'
import { restClient, signUp, startServer, type SignedUp, type TestServer } from '../helpers/app'
import { launchChromium } from '../helpers/browser'
import { checkView, openConsole, signInInConsole, type ConsolePage } from '../helpers/console'
import { validRecords } from '../fixtures/medical-records'

const everyDay = [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start: '08:00', end: '18:00' }))

describe('the console: calendar, waiting room and the patient’s own view', function () {
  this.timeout(180_000)
  let browser: Browser
  let server: TestServer
  let owner: SignedUp
  let patient: SignedUp
  let other: SignedUp
  let facility: string
  let staff: ConsolePage
  let mine: ConsolePage
  let appointment: string
  const api = (token: string) => restClient(server.url, token)

  const go = async (page: Page, path: string, heading: string | RegExp) => {
    await page.goto(`${server.url}/#${path}`)
    await page.getByRole('heading', { level: 1, name: heading }).waitFor()
  }
  const startOf = async (id: string) => {
    const res = await api(owner.token).get(`/appointments/${id}`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.start as number
  }

  before(async () => {
    browser = await launchChromium()
    server = await startServer()
    owner = await signUp(server.url, {
      firstName: 'Olivia',
      lastName: 'Owner',
      organization: { name: 'Harbour Clinic', type: 'facility', types: ['clinic'] }
    })
    facility = owner.organization.id
    ;[patient, other] = await Promise.all([
      signUp(server.url, { firstName: 'Paula', lastName: 'Patient' }),
      signUp(server.url, { firstName: 'Bert', lastName: 'Waiting' })
    ])
    const schedule = await api(owner.token).post('/schedules', {
      facility,
      provider: owner.account.id,
      timeZone: 'UTC',
      weekly: everyDay,
      slotMinutes: 30,
      booking: 'patients'
    })
    assert.equal(schedule.status, 201, JSON.stringify(schedule.body))
    const record = await api(owner.token).post('/medical-records', {
      ...validRecords.assessment,
      facility,
      patient: patient.account.id,
      permissions: [{ uid: patient.account.id }]
    })
    assert.equal(record.status, 200, JSON.stringify(record.body))
    staff = await openConsole(browser, server.url)
    await signInInConsole(staff.page, owner.email)
    await staff.page.locator('#signed-in-as').filter({ hasText: owner.email }).waitFor()
    mine = await openConsole(browser, server.url)
    await signInInConsole(mine.page, patient.email)
    await mine.page.locator('#signed-in-as').filter({ hasText: patient.email }).waitFor()
  })
  after(async () => {
    await staff?.context.close()
    await mine?.context.close()
    await browser?.close()
    await server?.close()
  })

  it('books a free slot for a patient found by name, drags it to another slot and moves it from the keyboard', async () => {
    const { page } = staff
    await go(page, '/calendar', 'Calendar')
    await page.getByRole('button', { name: 'Next day' }).click()
    await page.locator('.slot').nth(4).waitFor()
    await checkView(page, 'calendar-day')

    // Slots are picked by their time: the list may be re-rendered between reading one and acting on it.
    const slotAt = (start: number) => page.locator(`.slot[data-start="${start}"]`)
    const first = Number(await page.locator('.slot').first().getAttribute('data-start'))
    await slotAt(first).click()
    await page.getByLabel(/^Patient/).fill('Paula')
    await page.getByRole('button', { name: /Paula Patient/ }).click()
    await page.getByLabel('Reason').fill('Ear ache')
    await checkView(page, 'calendar-book')
    await page.getByRole('button', { name: 'Book', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'Booked Paula Patient' }).waitFor()
    const card = page.locator('.appointment').filter({ hasText: 'Paula Patient' })
    await card.waitFor()
    appointment = (await card.getAttribute('data-id'))!
    assert.equal(await startOf(appointment), first)

    // The free slots refresh after the booking: the booked one leaves the list. Pick the drop target only
    // then, so a refresh cannot slide another slot under the pointer.
    await slotAt(first).waitFor({ state: 'detached' })

    // Drag onto a free slot.
    const dropped = Number(await page.locator('.slot').nth(2).getAttribute('data-start'))
    await card.dragTo(slotAt(dropped))
    await page.getByRole('status').filter({ hasText: 'Moved to' }).waitFor()
    assert.equal(await startOf(appointment), dropped)
    await slotAt(dropped).waitFor({ state: 'detached' })
    await slotAt(first).waitFor()

    // The keyboard's way: the "Move" form.
    await page.getByRole('button', { name: 'Move Paula Patient' }).click()
    const select = page.getByLabel(/^New time/)
    const values = await select
      .locator('option')
      .evaluateAll((options) => options.map((o) => o.getAttribute('value') ?? '').filter(Boolean))
    await select.selectOption(values[3])
    await checkView(page, 'calendar-move')
    await page.getByRole('button', { name: 'Move', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'Moved to' }).waitFor()
    assert.equal(await startOf(appointment), Number(values[3]))

    await page.getByRole('button', { name: 'Show the week' }).click()
    await page.locator('.day').nth(6).waitFor()
    await checkView(page, 'calendar-week')
  })

  it('checks in; calling next on the board moves the patient’s place live in their own browser', async () => {
    const { page } = staff
    await go(page, '/queues', 'Waiting room')
    await page.getByRole('button', { name: 'Create queue' }).click()
    await page.locator('.board').waitFor()
    const queue = (await api(owner.token).get(`/queues?facility=${facility}`)).body.data[0]
    // Someone is already waiting: ticket 1.
    const ahead = await api(owner.token).post('/queue-items', { queue: queue.id, patient: other.account.id })
    assert.equal(ahead.status, 201, JSON.stringify(ahead.body))

    await go(page, '/calendar', 'Calendar')
    await page.getByRole('button', { name: 'Next day' }).click()
    await page.getByRole('button', { name: 'Check in Paula Patient' }).click()
    await page.getByRole('status').filter({ hasText: 'Paula Patient is checked in.' }).waitFor()

    await go(mine.page, '/me/queue', 'My place in the queue')
    const position = mine.page.getByTestId('position')
    await position.filter({ hasText: 'You are 2nd in line.' }).waitFor()
    await checkView(mine.page, 'my-queue')

    await go(page, '/queues', 'Waiting room')
    await page.getByTestId('waiting-count').filter({ hasText: '2 people' }).waitFor()
    await checkView(page, 'queue-board')
    await page.getByRole('button', { name: 'Call next' }).click()
    await page.getByRole('status').filter({ hasText: 'Called number 1.' }).waitFor()
    await page.getByTestId('now-calling').filter({ hasText: '1' }).waitFor()
    // The patient's page, not reloaded, follows.
    await position.filter({ hasText: 'You are next.' }).waitFor()
    await page.getByRole('button', { name: 'Call next' }).click()
    await position.filter({ hasText: 'Your number is being called' }).waitFor()

    // The waiting-room screen: numbers, no names.
    await page.getByRole('link', { name: 'Open the waiting-room screen' }).click()
    await page.getByTestId('now-calling').filter({ hasText: '2' }).waitFor()
    const text = await page.locator('main').innerText()
    assert.equal(/Paula|Bert/.test(text), false, text)
    await checkView(page, 'queue-screen')
  })

  it("shows the patient's appointments on their page in the facility", async () => {
    const { page } = staff
    // Found by name in the facility's patient list, as staff find them.
    await go(page, '/patients', 'Patients')
    await page.locator('#patient-search').fill('Paula')
    await page
      .getByRole('link', { name: /Paula Patient/ })
      .first()
      .click()
    await page.getByRole('tab', { name: 'Appointments' }).click()
    await page.getByRole('heading', { name: 'Appointments', level: 2 }).waitFor()
    await page.locator(`tr[data-id="${appointment}"]`).filter({ hasText: 'Checked in' }).waitFor()
    await checkView(page, 'patient-appointments')
  })

  it('lets the patient see a shared record, book and cancel, and read who accessed their record', async () => {
    const { page } = mine
    await go(page, '/me/records', 'My records')
    await page.locator('table').filter({ hasText: 'Assessment' }).waitFor()
    await checkView(page, 'my-records')

    await go(page, '/me/appointments', 'My appointments')
    await page
      .getByLabel('Provider')
      .locator('option', { hasText: 'Olivia Owner — Harbour Clinic' })
      .waitFor({
        state: 'attached'
      })
    await page.locator('.slot').nth(3).click()
    await page.getByLabel('Reason').fill('Check-up')
    await page.getByRole('button', { name: 'Book this time' }).click()
    await page.getByRole('status').filter({ hasText: 'Booked:' }).waitFor()
    const row = page.locator('tr').filter({ hasText: 'Scheduled' })
    await row.waitFor()
    await checkView(page, 'my-appointments')
    await row.getByRole('button', { name: 'Cancel appointment' }).click()
    await checkView(page, 'my-appointments-cancel')
    await page.getByRole('button', { name: 'Cancel the appointment' }).click()
    await page.getByRole('status').filter({ hasText: 'Your appointment is cancelled.' }).waitFor()
    await row.waitFor({ state: 'detached' }).catch(() => undefined)
    const cancelled = await api(patient.token).get(
      `/appointments?patient=${patient.account.id}&status=cancelled`
    )
    assert.equal(cancelled.body.total, 1)

    await go(page, '/me/access', 'Who accessed my record')
    await page
      .locator('.access-log li')
      .filter({ hasText: 'Olivia Owner (administrator, Harbour Clinic) viewed your appointments' })
      .first()
      .waitFor()
    await checkView(page, 'who-accessed')

    await go(page, '/me/notifications', 'Notifications')
    await page.getByLabel('Text me (SMS)').uncheck()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    const me = await api(patient.token).get(`/accounts/${patient.account.id}`)
    assert.deepEqual(me.body.notifications, { email: true, sms: false })
    await checkView(page, 'my-notifications')
  })
})
