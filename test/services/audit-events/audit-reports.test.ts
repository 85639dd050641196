// Reviewers' reports from the audit trail, client-level: GET /audit-events sorted by any recorded field (an unknown
// one is a 400 naming it), and answered as CSV when asked (`Accept: text/csv`) — a header row, RFC 4180 quoting,
// formula-looking cells defused — under the same access rules and filters as the JSON answer.
import assert from 'node:assert/strict'
import { http, signUp, startServer, type SignedUp, type TestServer } from '../../helpers/app'

const adminEmail = 'reports-admin@example.test'
const adminPassword = 'Admin password 1'

const COLUMNS =
  'seq,at,time,id,actor,subject,account,action,service,ids,patient,facility,outcome,status,ip,userAgent,requestId,via,webhook,before,after,prevHash,hash'

/** Parses RFC 4180 CSV (quoted cells with doubled quotes and line breaks; CRLF rows) into rows of cells. */
const parseCsv = (text: string): string[][] => {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (char === '"') quoted = false
      else cell += char
    } else if (char === '"') quoted = true
    else if (char === ',') {
      row.push(cell)
      cell = ''
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += char
  }
  assert.equal(cell + row.join(''), '', 'the text ends with CRLF')
  return rows
}

const csv = async (server: TestServer, token: string, query = '') => {
  const res = await http(server.url, 'GET', `/audit-events${query}`, {
    token,
    headers: { accept: 'text/csv' }
  })
  assert.equal(res.status, 200, String(res.body))
  assert.match(res.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/)
  const rows = parseCsv(res.body as string)
  return { rows, header: rows[0], data: rows.slice(1), total: Number(res.headers.get('x-total-count')) }
}

const json = async (server: TestServer, token: string, query = '') => {
  const res = await http(server.url, 'GET', `/audit-events${query}`, { token })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body
}

describe('audit trail: reviewer reports (sort, CSV)', function () {
  this.timeout(60000)
  let server: TestServer
  let admin: string
  let owner: SignedUp
  let outsider: SignedUp
  let record: any
  const agents = [
    '=HYPERLINK("http://evil.example","click"), then more',
    '+1+2',
    '@SUM(A1:A2)',
    '-2+3',
    'plain "quoted", agent'
  ]

  before(async () => {
    server = await startServer({ admin: { email: adminEmail, password: adminPassword } })
    admin = (
      await http(server.url, 'POST', '/authentication', {
        body: { email: adminEmail, password: adminPassword }
      })
    ).body.accessToken
    ;[owner, outsider] = await Promise.all([
      signUp(server.url, { organization: { name: 'Report clinic', type: 'facility' } }),
      signUp(server.url)
    ])
    const created = await http(server.url, 'POST', '/medical-records', {
      token: owner.token,
      body: { type: 'allergy', facility: owner.organization.id, patient: owner.account.id, name: 'Latex' }
    })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    record = created.body
    // Reads whose User-Agent a spreadsheet would take for a formula, or that need quoting.
    for (const agent of agents) {
      await http(server.url, 'GET', `/medical-records/${record.id}`, {
        token: outsider.token,
        headers: { 'user-agent': agent }
      })
    }
  })
  after(async () => {
    await server?.close()
  })

  it('sorts by actor (equal actors newest first), by userAgent, and refuses an unknown field with a 400 naming it', async () => {
    const page = await json(server, admin, '?$sort[actor]=1&$limit=100')
    const rank = (event: any) => event.actor ?? ''
    for (let i = 1; i < page.data.length; i++) {
      const [a, b] = [page.data[i - 1], page.data[i]]
      assert.ok(
        rank(a) < rank(b) || (rank(a) === rank(b) && a.seq > b.seq),
        `${JSON.stringify(a)} before ${JSON.stringify(b)}`
      )
    }
    assert.ok(new Set(page.data.map(rank)).size >= 3, 'several actors')
    const descending = await json(server, admin, '?$sort[actor]=-1&$limit=100')
    assert.equal(descending.data[0].actor, [...page.data].reverse()[0].actor)
    const byAgent = await json(
      server,
      admin,
      `?actor=${outsider.account.id}&service=medical-records&$sort[userAgent]=1`
    )
    // (Punctuation orders differently under a collation: only a letter after punctuation and the reverse are compared.)
    const ascending = byAgent.data.map((event: any) => event.userAgent)
    assert.deepEqual([...ascending].sort(), [...agents].sort())
    assert.equal(ascending.at(-1), 'plain "quoted", agent')
    const byAgentDown = await json(
      server,
      admin,
      `?actor=${outsider.account.id}&service=medical-records&$sort[userAgent]=-1`
    )
    assert.deepEqual(
      byAgentDown.data.map((event: any) => event.userAgent),
      [...ascending].reverse()
    )
    const unknown = await http(server.url, 'GET', '/audit-events?$sort[nope]=1', { token: admin })
    assert.equal(unknown.status, 400, JSON.stringify(unknown.body))
    assert.ok(
      unknown.body.errors.some((error: any) => error.field.includes('nope')),
      JSON.stringify(unknown.body)
    )
  })

  it('answers CSV when asked: a header row, one row per event, quoted and formula-guarded cells, the total in X-Total-Count', async () => {
    const { header, data, total } = await csv(
      server,
      admin,
      `?actor=${outsider.account.id}&service=medical-records&$sort[seq]=1`
    )
    assert.equal(header.join(','), COLUMNS)
    const expected = (
      await json(server, admin, `?actor=${outsider.account.id}&service=medical-records&$sort[seq]=1`)
    ).data
    assert.equal(total, expected.length)
    assert.equal(data.length, expected.length)
    const column = (name: string) => header.indexOf(name)
    for (const [i, row] of data.entries()) {
      assert.equal(row.length, header.length)
      const event = expected[i]
      assert.equal(row[column('id')], event.id)
      assert.equal(row[column('seq')], String(event.seq))
      assert.equal(row[column('time')], new Date(event.at).toISOString())
      assert.equal(row[column('ids')], event.ids.join(' '))
      assert.equal(row[column('hash')], event.hash)
      // Cells a spreadsheet would evaluate start with a quote; the rest are the value itself.
      const agent = event.userAgent as string
      assert.equal(row[column('userAgent')], /^[=+\-@]/.test(agent) ? `'${agent}` : agent)
    }
    assert.deepEqual(
      data.map((row) => row[column('userAgent')]).sort(),
      agents.map((agent) => (/^[=+\-@]/.test(agent) ? `'${agent}` : agent)).sort()
    )
  })

  it('gives an outsider in CSV only what they may see, with the same filters as JSON', async () => {
    const { data, header, total } = await csv(server, outsider.token, '?$limit=500')
    const visible = (await json(server, outsider.token, '?$limit=100')).total
    assert.equal(total, visible)
    assert.equal(data.length, visible)
    const actor = header.indexOf('actor')
    const account = header.indexOf('account')
    const patient = header.indexOf('patient')
    assert.ok(
      data.every(
        (row) =>
          row[actor] === outsider.account.id ||
          row[account] === outsider.account.id ||
          row[patient] === outsider.account.id
      )
    )
    assert.ok(!data.some((row) => row[actor] === owner.account.id), 'nothing of the clinic owner')
    const reads = await csv(server, outsider.token, '?action=read')
    assert.ok(reads.data.length > 0 && reads.data.every((row) => row[header.indexOf('action')] === 'read'))
    // No token: 401 (in JSON), as for the JSON answer.
    const anonymous = await http(server.url, 'GET', '/audit-events', { headers: { accept: 'text/csv' } })
    assert.equal(anonymous.status, 401)
  })

  it('answers JSON unless CSV is preferred; a single event stays JSON', async () => {
    const both = await http(server.url, 'GET', '/audit-events?$limit=1', {
      token: admin,
      headers: { accept: 'application/json, text/csv;q=0.5' }
    })
    assert.match(both.headers.get('content-type') ?? '', /application\/json/)
    assert.equal(both.body.data.length, 1)
    const any = await http(server.url, 'GET', '/audit-events?$limit=1', {
      token: admin,
      headers: { accept: '*/*' }
    })
    assert.match(any.headers.get('content-type') ?? '', /application\/json/)
    const one = await http(server.url, 'GET', `/audit-events/${both.body.data[0].id}`, {
      token: admin,
      headers: { accept: 'text/csv' }
    })
    assert.equal(one.status, 200)
    assert.equal(one.body.id, both.body.data[0].id)
  })
})
