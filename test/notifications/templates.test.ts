// Notification templates over HTTP and Socket.IO: the built-in ones of config/ (every event and channel, only
// documented variables, SMS within 480 characters with the sample data), the checks at save (400 naming `body` or
// `subject`: does not compile, unknown variables listed, partials, an SMS too long with its sample render), one
// active template per facility, event, channel and locale (409 naming `active`, also when many arrive at once),
// who writes and reads, the preview, and rendering (the facility's active template in the locale, else "en",
// else the built-in one).
import assert from 'node:assert/strict'
import {
  refusal,
  restClient,
  waitUntil,
  signUp,
  startServer,
  type SignedUp,
  type TestServer
} from '../helpers/app'
import { addMember, fieldsOf, setupFacility, type FacilityFixture } from '../helpers/billing'
import { connect } from '../queues/fixtures'
import { depsSlot } from '../../src/deps'
import { notificationChannels, notificationEvents } from '../../src/notifications/events'
import { renderNotification } from '../../src/notifications/render'
import {
  SMS_MAX_LENGTH,
  checkTemplate,
  renderTemplate,
  sampleVars,
  templateVariables,
  textProblems,
  variablesOf
} from '../../src/notifications/templates'

describe('notification templates', function () {
  this.timeout(60000)
  let server: TestServer
  let facility: FacilityFixture
  let manager: SignedUp
  const api = (token?: string) => restClient(server.url, token)
  const post = (body: Record<string, unknown>, token = manager.token) =>
    api(token).post('/notification-templates', { facility: facility.id, ...body })

  before(async () => {
    server = await startServer()
    facility = await setupFacility(server.url, 'Template clinic')
    manager = await signUp(server.url)
    await addMember(server.url, facility.owner, facility.id, manager, { privileges: ['notifications'] })
  })
  after(() => server.close())

  describe('built-in templates', () => {
    it('exist for every event and channel, use only documented variables, and fit (SMS ≤ 480)', () => {
      const { templates } = depsSlot.require(server.app).settings.get('notifications')
      for (const event of notificationEvents)
        for (const channel of notificationChannels) {
          const template = templates[`${event}.${channel}`]
          assert.ok(template, `${event}.${channel}`)
          const rendered = checkTemplate({ event, channel, ...template })
          assert.ok(!rendered.body.includes('{{'), `${event}.${channel} renders every tag`)
          if (channel === 'sms') {
            assert.equal(template.subject, undefined)
            assert.ok(rendered.body.length <= SMS_MAX_LENGTH, `${event}.sms: ${rendered.body.length}`)
          } else {
            assert.ok(rendered.subject && !rendered.subject.includes('\n'), `${event}.email has a subject`)
            assert.ok(
              rendered.body.includes(String(sampleVars(event).unsubscribeLink)),
              `${event}.email unsubscribe`
            )
          }
          // Who and where, always; without a link or an unsubscribe link the text still reads.
          assert.ok(
            rendered.body.includes('Sample Family Health Clinic'),
            `${event}.${channel} names the facility`
          )
          const bare = renderTemplate(template, { ...sampleVars(event), link: '', unsubscribeLink: '' })
          assert.ok(!/: ?$|\n\n$/.test(bare.body), `${event}.${channel} without links: ${bare.body}`)
        }
      assert.deepEqual(
        Object.keys(templates).sort(),
        notificationEvents.flatMap((e) => notificationChannels.map((c) => `${e}.${c}`)).sort()
      )
    })

    it('offers no record field as a variable: only who, where, when, a number, totals and links', () => {
      const allowed =
        /^(patient\.(firstName|lastName)|facility\.name|link|unsubscribeLink|appointment\.(start|previousStart|provider)|queue\.(name|number|position)|invoice\.(total|balance|currency))$/
      for (const event of notificationEvents)
        for (const channel of notificationChannels)
          for (const name of variablesOf(event, channel)) assert.match(name, allowed, `${event}: ${name}`)
      assert.deepEqual(templateVariables['record.finalized'], [
        'patient.firstName',
        'patient.lastName',
        'facility.name',
        'link'
      ])
    })

    it('finds the names a template uses, sections included', () => {
      const known = variablesOf('queue.next', 'sms')
      assert.equal(
        textProblems('{{#queue}}{{number}} {{position}}{{/queue}} {{#patient}}{{.}}{{/patient}}', known),
        undefined
      )
      assert.match(
        textProblems('{{#queue}}{{diagnosis}}{{/queue}}', known) ?? '',
        /unknown variables: diagnosis/
      )
      assert.match(
        textProblems('{{^record}}x{{/record}} {{{patient.mrn}}}', known) ?? '',
        /record, patient\.mrn/
      )
      assert.match(textProblems('{{unsubscribeLink}}', known) ?? '', /unknown variables: unsubscribeLink/)
      assert.match(textProblems('{{> header}}', known) ?? '', /partials/)
      assert.match(textProblems('{{#queue}}open', known) ?? '', /does not compile/)
    })
  })

  describe('saving', () => {
    it('creates with defaults (locale "en", active); members read, the key stays on the server', async () => {
      const res = await post({
        event: 'queue.called',
        channel: 'sms',
        body: 'Number {{queue.number}}, come in.'
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.equal(res.body.locale, 'en')
      assert.equal(res.body.active, true)
      assert.equal(res.body.activeKey, undefined)
      assert.equal(res.body.createdBy, manager.account.id)
      const read = await api(facility.member.token).get(`/notification-templates/${res.body.id}`)
      assert.equal(read.status, 200)
      assert.equal(read.body.activeKey, undefined)
      assert.equal(
        (await api(facility.stranger.token).get(`/notification-templates/${res.body.id}`)).status,
        404
      )
      assert.equal(
        (await api(facility.stranger.token).get(`/notification-templates?facility=${facility.id}`)).body
          .total,
        0
      )
    })

    it('superadmins and the notifications privilege write; a plain member 403, a stranger 404', async () => {
      const body = { event: 'record.finalized', channel: 'sms', locale: 'fil', body: 'Handa na: {{link}}' }
      assert.equal((await post(body, facility.member.token)).status, 403)
      assert.equal((await post(body, facility.biller.token)).status, 403)
      assert.equal((await post(body, facility.stranger.token)).status, 404)
      assert.equal(
        (await api().post('/notification-templates', { facility: facility.id, ...body })).status,
        401
      )
      const created = await post(body, facility.owner.token)
      assert.equal(created.status, 201, JSON.stringify(created.body))
      const path = `/notification-templates/${created.body.id}`
      assert.equal((await api(facility.member.token).patch(path, { active: false })).status, 403)
      assert.equal((await api(facility.stranger.token).patch(path, { active: false })).status, 404)
      assert.equal((await api(facility.member.token).delete(path)).status, 403)
      assert.equal((await api(facility.stranger.token).delete(path)).status, 404)
      assert.equal(
        (await api(manager.token).patch(path, { body: 'Handa na ang resulta: {{link}}' })).status,
        200
      )
      assert.equal((await api(manager.token).delete(path)).status, 200)
      assert.equal((await api(manager.token).get(path)).status, 404)
    })

    it('refuses templates that do not compile or use unknown variables: 400 naming body or subject', async () => {
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ channel: 'sms', body: 'Hi {{#patient}}{{firstName}}' }, 'body', /does not compile/],
        [
          { channel: 'sms', body: 'Your {{diagnosis}} and {{record.notes}}' },
          'body',
          /diagnosis, record\.notes/
        ],
        [{ channel: 'sms', body: 'x {{> footer}}' }, 'body', /partials/],
        [{ channel: 'email', body: 'Hello' }, 'subject', /required/],
        [{ channel: 'email', subject: 'About {{record.name}}', body: 'Hello' }, 'subject', /record\.name/],
        [{ channel: 'sms', subject: 'x', body: 'Hello' }, 'subject', /email only/]
      ]
      for (const [body, field, message] of cases) {
        const res = await post({ event: 'appointment.booked', ...body })
        assert.equal(res.status, 400, JSON.stringify(res.body))
        assert.deepEqual(fieldsOf(res.body), [field], JSON.stringify(res.body))
        assert.match(res.body.message, message)
      }
      const unknownEvent = await post({ event: 'record.deleted', channel: 'sms', body: 'x' })
      assert.equal(unknownEvent.status, 400)
      assert.ok(fieldsOf(unknownEvent.body).includes('event'), JSON.stringify(unknownEvent.body))
      assert.equal(
        (await post({ event: 'queue.next', channel: 'sms', body: 'x', activeKey: 'k' })).status,
        400
      )
    })

    it('refuses an SMS over 480 characters with the sample data, answering the sample render', async () => {
      const body = `{{facility.name}}: ${'please read this carefully. '.repeat(15)} {{link}}`
      const res = await post({ event: 'record.finalized', channel: 'sms', body })
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.deepEqual(fieldsOf(res.body), ['body'])
      assert.ok(res.body.data.sample.body.length > 480)
      assert.ok(
        res.body.data.sample.body.startsWith('Template clinic: please read'),
        'the facility’s own name'
      )
      // As long as a 480-character render, an email is fine.
      assert.equal(
        (await post({ event: 'record.finalized', channel: 'email', subject: 'Results', body })).status,
        201
      )
    })

    it('keeps one active template per facility, event, channel and locale: 409 naming active', async () => {
      const base = { event: 'appointment.reminder', channel: 'sms', locale: 'es' }
      const first = await post({ ...base, body: 'Recordatorio: {{appointment.start}}' })
      assert.equal(first.status, 201, JSON.stringify(first.body))
      const second = await post({ ...base, body: 'Otro: {{appointment.start}}' })
      assert.equal(second.status, 409, JSON.stringify(second.body))
      assert.deepEqual(fieldsOf(second.body), ['active'])
      assert.equal(second.body.data.template, first.body.id)
      const draft = await post({ ...base, body: 'Borrador: {{appointment.start}}', active: false })
      assert.equal(draft.status, 201)
      const activate = await api(manager.token).patch(`/notification-templates/${draft.body.id}`, {
        active: true
      })
      assert.equal(activate.status, 409)
      assert.deepEqual(fieldsOf(activate.body), ['active'])
      // Another locale, another channel, another facility: no conflict.
      assert.equal(
        (await post({ ...base, locale: 'fil', body: 'Paalala: {{appointment.start}}' })).status,
        201
      )
      const other = await setupFacility(server.url, 'Other clinic')
      assert.equal(
        (
          await api(other.owner.token).post('/notification-templates', {
            ...base,
            facility: other.id,
            body: 'x'
          })
        ).status,
        201
      )
      // Retiring the first frees the place.
      assert.equal(
        (await api(manager.token).patch(`/notification-templates/${first.body.id}`, { active: false }))
          .status,
        200
      )
      const now = await api(manager.token).patch(`/notification-templates/${draft.body.id}`, { active: true })
      assert.equal(now.status, 200, JSON.stringify(now.body))
      assert.equal(
        (await api(manager.token).patch(`/notification-templates/${first.body.id}`, { locale: 'fil' }))
          .status,
        200
      )
      const bad = await api(manager.token).patch(`/notification-templates/${draft.body.id}`, {
        body: '{{patient.mrn}}'
      })
      assert.equal(bad.status, 400)
      assert.deepEqual(fieldsOf(bad.body), ['body'])
    })

    it('stores one active template when many arrive at once', async () => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          post({
            event: 'invoice.finalized',
            channel: 'sms',
            locale: 'de',
            body: `Rechnung ${i}: {{invoice.total}}`
          })
        )
      )
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(9).fill(409)])
      const active = await depsSlot.require(server.app).stores.notificationTemplates._find({
        query: {
          facility: facility.id,
          event: 'invoice.finalized',
          channel: 'sms',
          locale: 'de',
          active: true
        },
        paginate: false
      })
      assert.equal(active.length, 1)
    })
  })

  describe('preview', () => {
    it('renders a template being written, or a stored one, with the sample data and overrides', async () => {
      const res = await api(manager.token).post('/notification-templates/preview', {
        template: {
          facility: facility.id,
          event: 'appointment.booked',
          channel: 'email',
          subject: 'Booked at {{facility.name}}',
          body: 'Hi {{patient.firstName}}, {{appointment.start}} with {{appointment.provider}}'
        },
        sample: { patient: { firstName: 'Ana' } }
      })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.equal(res.body.subject, 'Booked at Template clinic')
      assert.equal(
        res.body.body,
        `Hi Ana, ${String((sampleVars('appointment.booked').appointment as { start: string }).start)} with Dr. Jose Protacio Rizal`
      )
      const stored = await post({
        event: 'queue.next',
        channel: 'sms',
        locale: 'fr',
        body: 'No {{queue.number}}: {{queue.position}}'
      })
      const byId = await api(facility.owner.token).post('/notification-templates/preview', {
        id: stored.body.id,
        sample: { queue: { position: 1 } }
      })
      assert.equal(byId.status, 201, JSON.stringify(byId.body))
      assert.deepEqual(byId.body, { body: 'No 42: 1' })
    })

    it('names the errors as at save, and is for the managers only', async () => {
      const preview = (body: unknown, token = manager.token) =>
        api(token).post('/notification-templates/preview', body)
      const unknown = await preview({
        template: { event: 'queue.called', channel: 'sms', body: '{{record.notes}}' }
      })
      assert.equal(unknown.status, 400)
      assert.deepEqual(fieldsOf(unknown.body), ['body'])
      const long = await preview({
        template: { event: 'queue.called', channel: 'sms', body: 'x'.repeat(481) }
      })
      assert.equal(long.status, 400)
      assert.equal(long.body.data.sample.body.length, 481)
      const both = await preview({
        id: 'abc',
        template: { event: 'queue.called', channel: 'sms', body: 'x' }
      })
      assert.equal(both.status, 400)
      assert.equal((await preview({})).status, 400)
      const stored = await post({
        event: 'queue.called',
        channel: 'email',
        locale: 'it',
        subject: 'Tocca a te',
        body: '{{queue.number}}'
      })
      assert.equal((await preview({ id: stored.body.id }, facility.member.token)).status, 403)
      assert.equal((await preview({ id: stored.body.id }, facility.stranger.token)).status, 404)
      assert.equal((await preview({ id: 'aaaaaaaaaaaaaaaaaaaaaaaa' })).status, 404)
      const template = { facility: facility.id, event: 'queue.called', channel: 'sms', body: 'x' }
      assert.equal((await preview({ template }, facility.member.token)).status, 403)
      assert.equal((await preview({ template }, facility.stranger.token)).status, 404)
      const lone = await signUp(server.url)
      assert.equal(
        (await preview({ template: { ...template, facility: undefined } }, lone.token)).status,
        403
      )
      assert.equal((await api().post('/notification-templates/preview', { template })).status, 401)
    })

    it('is never taken for a template id', async () => {
      assert.equal((await api(manager.token).get('/notification-templates/preview')).status, 405)
      assert.equal(
        (await api(manager.token).patch('/notification-templates/preview', { active: false })).status,
        405
      )
      assert.equal((await api(manager.token).delete('/notification-templates/preview')).status, 405)
    })
  })

  describe('rendering', () => {
    it("uses the facility's active template in the locale, else in en, else the built-in one", async () => {
      const deps = depsSlot.require(server.app)
      const fresh = await setupFacility(server.url, 'Render clinic')
      const vars = sampleVars('queue.called', { facility: { name: 'Render clinic' } })
      const render = (locale: string, channel: 'email' | 'sms' = 'sms') =>
        renderNotification(deps, { facility: fresh.id, event: 'queue.called', channel, locale, vars })
      assert.equal(
        (await render('pt')).body,
        'Render clinic: number 42 is called at Front desk. Please come in now.'
      )
      const write = (body: Record<string, unknown>) =>
        api(fresh.owner.token).post('/notification-templates', {
          facility: fresh.id,
          event: 'queue.called',
          channel: 'sms',
          ...body
        })
      const en = await write({ body: 'EN {{queue.number}}' })
      assert.equal((await render('pt')).body, 'EN 42')
      await write({ locale: 'pt', body: 'PT {{queue.number}}' })
      assert.equal((await render('pt')).body, 'PT 42')
      assert.equal((await render('en')).body, 'EN 42')
      await api(fresh.owner.token).patch(`/notification-templates/${en.body.id}`, { active: false })
      assert.match((await render('en')).body, /^Render clinic: number 42 is called/)
      const email = await render('en', 'email')
      assert.equal(email.subject, 'Number 42: it is your turn at Render clinic')
    })
  })

  describe('over Socket.IO', () => {
    it('creates, previews and refuses with the typed client; events reach the facility only', async () => {
      const fresh = await setupFacility(server.url, 'Socket templates')
      const [owner, member, stranger] = await Promise.all([
        connect(server.url, fresh.owner.token),
        connect(server.url, fresh.member.token),
        connect(server.url, fresh.stranger.token)
      ])
      try {
        const seen: Record<string, string[]> = { member: [], stranger: [] }
        member.client
          .service('notification-templates')
          .on('created', (t: { id: string }) => seen.member.push(t.id))
        stranger.client
          .service('notification-templates')
          .on('created', (t: { id: string }) => seen.stranger.push(t.id))
        const created = await owner.client.service('notification-templates').create({
          facility: fresh.id,
          event: 'appointment.cancelled',
          channel: 'email',
          subject: 'Cancelled at {{facility.name}}',
          body: 'Hello {{patient.firstName}}, {{appointment.start}} is cancelled. {{unsubscribeLink}}'
        })
        assert.equal(created.active, true)
        const preview = await owner.client
          .service('notification-templates/preview')
          .create({ id: created.id })
        assert.equal(preview.subject, 'Cancelled at Socket templates')
        const invalid = await refusal(
          owner.client.service('notification-templates/preview').create({
            template: { event: 'appointment.cancelled', channel: 'sms', body: '{{appointment.reason}}' }
          })
        )
        assert.equal(invalid.code, 400)
        assert.deepEqual(fieldsOf(invalid), ['body'])
        const taken = await refusal(
          owner.client.service('notification-templates').create({
            facility: fresh.id,
            event: 'appointment.cancelled',
            channel: 'email',
            subject: 'x',
            body: 'y'
          })
        )
        assert.equal(taken.code, 409)
        assert.equal(
          (
            await refusal(
              member.client.service('notification-templates').patch(created.id, { active: false })
            )
          ).code,
          403
        )
        assert.equal(
          (await refusal(stranger.client.service('notification-templates').get(created.id))).code,
          404
        )
        assert.equal(
          (await refusal(member.client.service('notification-templates/preview').create({ id: created.id })))
            .code,
          403
        )
        await waitUntil(() => seen.member.length > 0, 5000, 'the member to hear of the template')
        assert.deepEqual(seen, { member: [created.id], stranger: [] })
      } finally {
        for (const c of [owner, member, stranger]) c.close()
      }
    })
  })
})
