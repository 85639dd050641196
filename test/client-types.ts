// Type test of the typed client (src/client.ts): compiled by `tsc --noEmit` in `npm test`, never run. Calls the
// services' schemas allow compile with typed results; each `@ts-expect-error` line is a call they refuse, and the type
// check fails if it ever compiles (an unknown service, a field of the wrong type, a missing required field, …).
import type { ClientApplication } from '../src/client'

export const correctCalls = async (client: ClientApplication) => {
  await client.authenticate({ strategy: 'local', email: 'nurse@example.com', password: 'a long passphrase' })

  const account = await client
    .service('accounts')
    .create({ email: 'new@example.com', password: 'a long passphrase', firstName: 'Ada' })
  const accountId: string = account.id
  // A sign-up with an organization answers it (and its subscription when one was asked for).
  const signedUp = await client.service('accounts').create({
    email: 'boss@example.com',
    password: 'a long passphrase',
    organization: { name: 'South clinic', type: 'facility' }
  })
  const ownOrganization: string = signedUp.organization.id
  const ownSubscription: string | undefined = signedUp.subscription?.id

  const organization = await client
    .service('organizations')
    .create({ name: 'North clinic', type: 'facility', coordinates: { lat: 1, lng: 2 } })
  await client
    .service('organization-members')
    .create({ organization: organization.id, uid: accountId, roles: ['nurse'] })

  const invoice = await client.service('billing-invoices').create({
    facility: organization.id,
    subject: accountId,
    subjectType: 'patient',
    type: 'consultation',
    currency: 'EUR'
  })
  const item = await client
    .service('billing-items')
    .create({ invoice: invoice.id, type: 'product', price: 12.5, quantity: 2 })
  const amount: number = item.amount
  await client
    .service('services')
    .create({ facility: organization.id, name: 'X-ray', type: 'imaging', price: 10 })
  const items = await client
    .service('billing-items')
    .find({ query: { invoice: invoice.id, $limit: 10, $sort: { createdAt: -1 } } })
  const total: number = items.total
  const firstInvoice: string | undefined = items.data[0]?.invoice
  await client.service('billing-items').patch(item.id, { quantity: 3, finalize: true })
  await client
    .service('billing-payments')
    .create({ item: item.id, amount: 10, type: 'payment', paymentMethod: 'cash' })

  const members = await client.service('organization-members').find({
    query: {
      organization: organization.id,
      $populate: { org: { service: 'organizations', localKey: 'organization' } }
    }
  })
  const superadmin: boolean | undefined = members.data[0]?.superadmin

  const variant = await client.service('inventory-variants').get('v1', { query: { $populateStocks: true } })
  const stocks: number | undefined = variant.$stocks?.length
  await client.service('inventory-stocks').patch('s1', { $inc: { quantity: -1 } })

  const page = await client.service('bff/unified-directory').find({ query: { $search: 'clinic', $limit: 5 } })
  const name: string | undefined = page.data[0]?.name

  // A webhook registration answers the webhook with its one-time secret; a ping answers the queued delivery.
  const registered = await client
    .service('webhook-events')
    .create({ organization: organization.id, url: 'https://hooks.example.com/in', events: '*' })
  const secret: string = registered.secret
  const delivery = await client.service('webhook-events').create({ webhook: registered.id, event: 'ping' })
  const attempts: number = delivery.attempts
  // @ts-expect-error: a ping answers a delivery, which carries no secret
  const noSecret: string = delivery.secret

  const schedule = await client.service('schedules').create({
    facility: organization.id,
    provider: accountId,
    timeZone: 'Europe/Berlin',
    weekly: [{ day: 1, start: '09:00', end: '12:00' }]
  })
  const slots = await client
    .service('appointment-slots')
    .find({ query: { facility: organization.id, from: 0, to: 86_400_000 } })
  const appointment = await client.service('appointments').create({
    facility: organization.id,
    provider: schedule.provider,
    patient: accountId,
    start: slots.data[0].start
  })
  const appointmentEnd: number = appointment.end
  await client.service('appointments').patch(appointment.id, { status: 'cancelled', cancelReason: 'Ill' })
  // @ts-expect-error: the slot key never reaches clients
  const slotKey: string = appointment.slotKey
  // Files on records: a pending file with its upload URL; ready ones with a download URL; the storage key stays.
  const attachment = await client.service('attachments').create({
    record: 'r1',
    filename: 'scan.pdf',
    contentType: 'application/pdf',
    size: 1024
  })
  const uploadUrl: string | undefined = attachment.uploadUrl
  const attachmentStatus: 'pending' | 'ready' = attachment.status
  const files = await client.service('attachments').find({ query: { record: 'r1' } })
  const downloadUrl: string | undefined = files.data[0].downloadUrl
  await client.service('attachments').patch(attachment.id, { title: 'Referral' })
  await client.service('attachments').patch(attachment.id, { $confirmUpload: true })
  // @ts-expect-error: where the bytes are never leaves the server
  void attachment.storageKey
  const listed = await client.service('medical-records').get('r1')
  const firstFileName: string | undefined = listed.attachments?.[0]?.filename
  const fileService = client.service('attachments')
  // @ts-expect-error: the facility comes from the record, never from the body
  await fileService.create({ record: 'r1', organization: 'o', filename: 'a', contentType: 'a/b', size: 1 })
  const clock = await client.service('sandbox/clock').find()
  const moved = await client.service('sandbox/clock').patch(null, { now: clock.now + 60_000 })
  const passes: number = moved.ran.length

  const queue = await client
    .service('queues')
    .create({ facility: organization.id, name: 'Front desk', default: true })
  const ticket = await client.service('queue-items').create({ queue: queue.id, patient: accountId })
  const position: number | null | undefined = ticket.position
  const called = await client.service('queues').patch(queue.id, { $callNext: true })
  const calledNumber: number = called.number
  const retired = await client.service('queues').patch(queue.id, { active: false })
  const retiredActive: boolean = retired.active
  await client.service('queue-items').patch(ticket.id, { status: 'serving' })
  // @ts-expect-error: the appointment key never reaches clients
  const appointmentKey: string = ticket.appointmentKey

  // A facility's patients: registered, then found by the start of a name; the search keys never reach clients.
  const newPatient = await client
    .service('patients')
    .create({ facility: organization.id, firstName: 'Ada', email: 'ada@example.org' })
  const patientAccount: string = newPatient.patient
  const foundPatients = await client
    .service('patients')
    .find({ query: { facility: organization.id, q: 'ad' } })
  const foundEmail: string | undefined = foundPatients.data[0]?.email
  // @ts-expect-error: the search keys never reach clients
  const nameKeys: string[] = newPatient.nameKeys

  // A facility's notification settings: the defaults (`stored: false`, no id) until its first write (an upsert).
  const currentSettings = await client.service('notification-settings').get(organization.id)
  const settingsStored: boolean = currentSettings.stored
  const savedSettings = await client.service('notification-settings').create({
    facility: organization.id,
    channels: { sms: true },
    quietHours: { start: '21:00', end: '07:00' }
  })
  const settingsId: string = savedSettings.id
  const offsets: number[] = (
    await client
      .service('notification-settings')
      .patch(settingsId, { reminderOffsetsMinutes: [60], replyTo: null })
  ).reminderOffsetsMinutes
  const template = await client.service('notification-templates').create({
    facility: organization.id,
    event: 'appointment.reminder',
    channel: 'sms',
    body: '{{facility.name}}: see you {{appointment.start}}'
  })
  const templateActive: boolean = (
    await client.service('notification-templates').patch(template.id, { active: false })
  ).active
  const preview = await client
    .service('notification-templates/preview')
    .create({ id: template.id, sample: { patient: { firstName: 'Ana' } } })
  const previewBody: string = preview.body
  // @ts-expect-error: the active key never reaches clients
  const activeKey: string = template.activeKey

  const told = await client
    .service('notifications')
    .find({ query: { recipient: accountId, status: 'skipped', $sort: { createdAt: -1 } } })
  const toldStatus: string | undefined = told.data[0]?.status
  const toldReason: string | undefined = (await client.service('notifications').get('n1')).reason
  // @ts-expect-error: the message itself never reaches clients
  const toldBody: string = told.data[0].body
  await client.service('accounts').patch(accountId, { notifications: { email: false } })

  return {
    settingsStored,
    offsets,
    templateActive,
    previewBody,
    activeKey,
    toldStatus,
    toldReason,
    toldBody,
    passes,
    position,
    calledNumber,
    retiredActive,
    appointmentKey,
    appointmentEnd,
    slotKey,
    uploadUrl,
    firstFileName,
    attachmentStatus,
    downloadUrl,
    amount,
    total,
    firstInvoice,
    superadmin,
    stocks,
    name,
    secret,
    attempts,
    noSecret,
    ownOrganization,
    ownSubscription,
    patientAccount,
    foundEmail,
    nameKeys
  }
}

export const refusedCalls = async (client: ClientApplication) => {
  // @ts-expect-error: no such service
  client.service('no-such-service')
  // @ts-expect-error: registering a patient needs their email
  await client.service('patients').create({ facility: 'f', firstName: 'Ada' })
  // @ts-expect-error: a schedule needs its weekly windows
  await client.service('schedules').create({ facility: 'f', provider: 'p' })
  // @ts-expect-error: the sandbox clock moves by a number of milliseconds
  await client.service('sandbox/clock').patch(null, { advanceMs: '1h' })
  // @ts-expect-error: an appointment's start is a number of milliseconds
  await client.service('appointments').create({ facility: 'f', provider: 'p', patient: 'x', start: 'Monday' })
  // @ts-expect-error: a queue item's number is the server's
  await client.service('queue-items').create({ queue: 'q', patient: 'p', number: 3 })
  // @ts-expect-error: no such status
  await client.service('queue-items').patch('i', { status: 'gone' })
  // @ts-expect-error: the queue position that says "you are next" is a number
  await client.service('notification-settings').create({ facility: 'f', queueNextPosition: 'two' })
  const templates = client.service('notification-templates')
  // @ts-expect-error: a template is about one of the notifying events
  await templates.create({ facility: 'f', event: 'record.deleted', channel: 'sms', body: 'x' })
  const previews = client.service('notification-templates/preview')
  // @ts-expect-error: a preview renders a template or a stored one, with a body
  await previews.create({ template: { event: 'queue.next', channel: 'sms' } })
  // @ts-expect-error: the notifications log is written by the server only
  await client.service('notifications').create({})
  // @ts-expect-error: an opt-out is a boolean per channel
  await client.service('accounts').patch('a', { notifications: { email: 'no' } })

  // @ts-expect-error: `invoice` is an id string, not a number
  await client.service('billing-items').create({ invoice: 42, type: 'product', price: 1 })

  // @ts-expect-error: `invoice` is required
  await client.service('billing-items').create({ type: 'product', price: 1 })

  // @ts-expect-error: `password` is required to create an account
  await client.service('accounts').create({ email: 'new@example.com' })

  // @ts-expect-error: `name` must be a string
  await client.service('organizations').patch('o1', { name: 7 })

  await client
    .service('services')
    // @ts-expect-error: a field the data schema does not have
    .create({ facility: 'f1', name: 'X-ray', type: 'imaging', price: 10, colour: 'red' })

  await client
    .service('webhooks')
    // @ts-expect-error: webhooks are created through POST /webhook-events, not on /webhooks
    .create({ url: 'https://example.com/hook', events: ['billing-items.created'] })

  // @ts-expect-error: the stock-movement ledger is read-only
  await client.service('inventory-stock-movements').create({})

  // @ts-expect-error: a query field of the wrong type
  await client.service('billing-invoices').find({ query: { createdAt: 'yesterday' } })

  // Results never carry what the external resolvers keep on the server.
  const account = await client.service('accounts').get('a1')
  // @ts-expect-error: the password hash never leaves the server
  void account.password
  // @ts-expect-error: nor the MFA secret
  void account.mfaSecret
  // @ts-expect-error: nor a linked Google identity
  void account.googleId
  // @ts-expect-error: nor the signed-out tokens
  void account.revokedTokens
  const signedUp = await client
    .service('accounts')
    .create({ email: 'new@example.com', password: 'a long passphrase' })
  // @ts-expect-error: a sign-up answer carries no password either
  void signedUp.password
  // @ts-expect-error: without an organization in the body, the answer may have none
  void signedUp.organization.id
  const webhook = await client.service('webhooks').get('w1')
  // @ts-expect-error: a webhook's signing secret is shown only in its registration answer
  void webhook.secret

  // Invitations: invited by email, accepted with the mailed code; the code's hash never reaches a client.
  const invitation = await client
    .service('organization-invitations')
    .create({ organization: 'o1', email: 'nurse@example.com', roles: ['nurse'] })
  // @ts-expect-error: the hash of the code stays on the server
  void invitation.codeHash
  const joined = await client.service('organization-invitations').accept({ code: 'ABCDE-FGHJK-MNPQR-STVWX' })
  const joinedOrganization: string = joined.member.organization
  void joinedOrganization
  // @ts-expect-error: invitations cannot be changed, only withdrawn and sent again
  await client.service('organization-invitations').patch('i1', {})

  const item = await client.service('billing-items').get('i1')
  // @ts-expect-error: results carry the schema's fields only
  return item.noSuchField
}
