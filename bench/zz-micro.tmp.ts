import { startServer } from '../test/helpers/app'
import { auditLog } from '../src/audit/log'
;(async () => {
  const server = await startServer({ mongodb: '' })
  const log = auditLog(server.app)!
  const entry = () => ({ at: Date.now(), actor: '0123456789abcdef01234567', action: 'create' as const, service: 'medical-records', ids: ['0123456789abcdef01234567'], patient: '0123456789abcdef01234567', facility: '0123456789abcdef01234567', outcome: 'allowed' as const, status: 200, ip: '127.0.0.1', userAgent: 'autocannon', requestId: 'b1f0b7a4-3a0c-4e55-9d6c-1e0d0bb8d7a1' })
  for (const conc of [1, 1, 1]) {
    const n = 10000
    const t = process.hrtime.bigint()
    const cpu = process.cpuUsage()
    for (let i = 0; i < n; i += conc) await Promise.all(Array.from({ length: conc }, () => log.append([entry()])))
    const ms = Number(process.hrtime.bigint() - t) / 1e6
    const c = process.cpuUsage(cpu)
    console.log(`conc ${conc}: ${(ms * 1000 / n).toFixed(1)} µs wall/event, ${((c.user + c.system) / n).toFixed(1)} µs cpu/event`)
  }
  await server.close()
  process.exit(0)
})()
