import { signUp, startServer } from '../test/helpers/app'
import { validRecords } from '../test/fixtures/medical-records'
import { call, measureLoad } from './lib'
;(async () => {
  const enabled = process.env.AUDIT !== 'off'
  const server = await startServer({ mongodb: '', audit: { enabled } })
  const owner = await signUp(server.url, { email: 'o@b.test', organization: { name: 'B', type: 'facility' } })
  const caller = await signUp(server.url, { email: 'd@b.test' })
  await call(server.url, 'POST', '/organization-members', { organization: owner.organization.id, uid: caller.account.id, roles: ['doctor'], privileges: [] }, owner.token)
  const body = { ...validRecords.allergy, facility: owner.organization.id, patient: owner.account.id, permissions: [{ organization: owner.organization.id, roles: ['doctor'] }] }
  const r = await measureLoad('x', `${server.url}/medical-records`, { method: 'POST', token: caller.token, bodies: [body], connections: 10, duration: 6 })
  console.log(enabled, r)
  await server.close()
  process.exit(0)
})()
