// GET /bff/unified-directory over HTTP (and Socket.IO): ranking, `*`, radius, facets, refusals, paging, entries
// following their organizations, and a fixture table of queries → ordered results that runs on the embedded engine
// (npm test) and on MongoDB whenever MONGODB_URL is set (startServer honours it).
import assert from 'node:assert/strict'
import { io } from 'socket.io-client'
import { http, signUp, startServer, type SignedUp, type TestServer } from '../../helpers/app'
import { rawEmit } from '../../helpers/tenants'
import { fieldsOf } from '../../helpers/billing'
import { EARTH_RADIUS_KM } from '../../../src/directory/geo'

const PATH = '/bff/unified-directory'
const CENTER = { lat: 14.55, lng: 121.02 }
/** A point `km` due north of CENTER (on a meridian the great-circle distance is R × Δlatitude). */
const north = (km: number) => ({
  lat: CENTER.lat + ((km / EARTH_RADIUS_KM) * 180) / Math.PI,
  lng: CENTER.lng
})

const search = async (url: string, qs: string, token?: string) => {
  const res = await http(url, 'GET', `${PATH}?${qs}`, { token })
  assert.equal(res.status, 200, `${qs}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}
const names = (body: any): string[] => body.data.map((entry: any) => entry.name)

const createOrg = async (url: string, owner: SignedUp, body: Record<string, unknown>) => {
  const res = await http(url, 'POST', '/organizations', {
    token: owner.token,
    body: { type: 'facility', ...body }
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

// The shared fixture: four listed organizations, one private, around Makati (and one in Cebu).
const seed = async (url: string, owner: SignedUp) => ({
  clinica: await createOrg(url, owner, {
    name: 'Clínica San Juan',
    description: 'Family medicine and pediatrics',
    types: ['clinic'],
    tags: ['pediatrics'],
    coordinates: CENTER,
    email: 'private@clinica.test',
    phone: '+63 2 555 0100',
    directory: { listed: true }
  }),
  cardiology: await createOrg(url, owner, {
    name: 'Cardiology Center Makati',
    description: 'Heart clinic',
    types: ['clinic', 'hospital'],
    coordinates: north(4.9),
    directory: { listed: true }
  }),
  diagnostics: await createOrg(url, owner, {
    name: 'Makati Diagnostics',
    type: 'laboratory-company',
    description: 'Laboratory with cardiology tests',
    types: ['laboratory'],
    coordinates: north(5.1),
    directory: { listed: true }
  }),
  hidden: await createOrg(url, owner, { name: 'Hidden Clinic', description: 'clinic', coordinates: CENTER }),
  cebu: await createOrg(url, owner, {
    name: 'Far Away Hospital',
    description: 'A clinic in Cebu',
    coordinates: { lat: 10.3157, lng: 123.8854 },
    directory: { listed: true }
  })
})

describe('GET /bff/unified-directory', function () {
  this.timeout(60000)
  let server: TestServer
  let url: string
  let owner: SignedUp
  let orgs: Awaited<ReturnType<typeof seed>>

  before(async () => {
    server = await startServer()
    url = server.url
    owner = await signUp(url)
    orgs = await seed(url, owner)
  })
  after(() => server.close())

  describe('ranking', () => {
    it('folds accents and case: clinica finds Clínica, and only what has the word', async () => {
      assert.deepEqual(names(await search(url, '$search=clinica')), ['Clínica San Juan'])
      assert.deepEqual(names(await search(url, '$search=CL%C3%8DNICA')), ['Clínica San Juan'])
    })

    it('a name match (here a prefix) ranks above description-only matches; ties by name', async () => {
      const body = await search(url, '$search=clinic')
      assert.deepEqual(names(body), ['Clínica San Juan', 'Cardiology Center Makati', 'Far Away Hospital'])
      assert.ok(body.data[0].score > body.data[1].score)
      assert.deepEqual(body.data[0].highlights, [{ field: 'name', matched: ['Clínica'] }])
      assert.deepEqual(body.data[1].highlights, [{ field: 'description', matched: ['clinic'] }])
    })

    it('prefixes match names, description words must be whole', async () => {
      assert.deepEqual(names(await search(url, '$search=cardio')), ['Cardiology Center Makati'])
      assert.deepEqual(names(await search(url, '$search=cardiology')), [
        'Cardiology Center Makati',
        'Makati Diagnostics'
      ])
    })

    it('all words are required', async () => {
      assert.deepEqual(names(await search(url, '$search=cardiology%20makati')), [
        'Cardiology Center Makati',
        'Makati Diagnostics'
      ])
      assert.deepEqual(names(await search(url, '$search=cardiology%20pediatrics')), [])
      assert.deepEqual(names(await search(url, '$search=mak%20diag')), ['Makati Diagnostics'])
    })

    it('* (and no $search) lists every listed entry by name, without score', async () => {
      const all = await search(url, '$search=*')
      assert.deepEqual(names(all), [
        'Cardiology Center Makati',
        'Clínica San Juan',
        'Far Away Hospital',
        'Makati Diagnostics'
      ])
      assert.equal(all.total, 4)
      assert.equal(all.limit, 10)
      assert.equal(all.data[0].score, undefined)
      assert.deepEqual(names(await search(url, '')), names(all))
    })

    it('entries carry only public fields', async () => {
      const [entry] = (await search(url, '$search=clinica')).data
      assert.deepEqual(Object.keys(entry).sort(), [
        'description',
        'highlights',
        'id',
        'name',
        'ref',
        'score',
        'tags',
        'type'
      ])
      assert.deepEqual(entry.ref, { id: orgs.clinica.id, type: 'facility', types: ['clinic'] })
      assert.equal(entry.type, 'organization')
      assert.deepEqual(entry.tags, ['pediatrics'])
      assert.ok(!JSON.stringify(entry).includes('private@clinica.test'))
    })
  })

  describe('location', () => {
    it('default radius 5 km keeps the point 4.9 km away and drops the one 5.1 km away', async () => {
      const body = await search(url, `$search=*&location=${CENTER.lat},${CENTER.lng}`)
      assert.deepEqual(names(body), ['Clínica San Juan', 'Cardiology Center Makati'])
      assert.equal(body.data[0].distanceKm, 0)
      assert.ok(Math.abs(body.data[1].distanceKm - 4.9) < 0.001, String(body.data[1].distanceKm))
    })

    it('an explicit radius, and distance breaks score ties', async () => {
      assert.deepEqual(names(await search(url, `$search=*&location=${CENTER.lat},${CENTER.lng},5.2`)), [
        'Clínica San Juan',
        'Cardiology Center Makati',
        'Makati Diagnostics'
      ])
      assert.deepEqual(
        names(await search(url, `$search=makati&location=${north(5.1).lat},${CENTER.lng},1`)),
        ['Makati Diagnostics', 'Cardiology Center Makati']
      )
      assert.deepEqual(names(await search(url, `$search=clinic&location=10.3,123.9,50`)), [
        'Far Away Hospital'
      ])
    })

    it('location without $search is a 400 that says so', async () => {
      const res = await http(url, 'GET', `${PATH}?location=14.55,121.02`)
      assert.equal(res.status, 400)
      assert.match(res.body.message, /\$search/)
      assert.deepEqual(fieldsOf(res.body), ['location'])
    })

    for (const bad of [
      'abc',
      '14.55',
      '91,0',
      '-90.5,0',
      '0,181',
      '0,-180.1',
      '0,0,0',
      '0,0,-1',
      '0,0,100.5',
      '1,2,3,4',
      '1e3,2',
      'NaN,1',
      ',,'
    ]) {
      it(`malformed location ${bad} is a 400 naming it`, async () => {
        const res = await http(url, 'GET', `${PATH}?$search=*&location=${encodeURIComponent(bad)}`)
        assert.equal(res.status, 400, JSON.stringify(res.body))
        assert.deepEqual(fieldsOf(res.body), ['location'])
      })
    }
  })

  describe('facets', () => {
    it('type', async () => {
      assert.equal((await search(url, 'type=organization')).total, 4)
      assert.equal((await search(url, 'type=practitioner')).total, 0)
    })
    it('tags: one value and $in', async () => {
      assert.deepEqual(names(await search(url, 'tags=pediatrics')), ['Clínica San Juan'])
      assert.deepEqual(names(await search(url, 'tags[$in][]=pediatrics&tags[$in][]=nothing')), [
        'Clínica San Juan'
      ])
    })
    it('ref.type and ref.types, with $search', async () => {
      assert.deepEqual(names(await search(url, 'ref.type=laboratory-company')), ['Makati Diagnostics'])
      assert.deepEqual(names(await search(url, '$search=makati&ref.types=hospital')), [
        'Cardiology Center Makati'
      ])
      assert.deepEqual(names(await search(url, 'ref.types[$in][]=laboratory&ref.types[$in][]=hospital')), [
        'Cardiology Center Makati',
        'Makati Diagnostics'
      ])
    })
    it('ref.id is a 400', async () => {
      const res = await http(url, 'GET', `${PATH}?ref.id=${orgs.clinica.id}`)
      assert.equal(res.status, 400)
      assert.deepEqual(fieldsOf(res.body), ['ref.id'])
    })
  })

  describe('refusals', () => {
    for (const [qs, field] of [
      ['name=Clinica', 'name'],
      ['terms=clinica', 'terms'],
      ['$sort[name]=1', '$sort'],
      ['$search[$regex]=x', '$search'],
      ['tags[$regex]=x', 'tags'],
      ['tags[$in]=x', 'tags'],
      ['$limit=abc', '$limit'],
      ['$skip=-1', '$skip'],
      ['$or[0][name]=x', '$or'],
      ['$select[]=name', '$select'],
      ['$populate=organization', '$populate'],
      ['ref[id]=x', 'ref.id']
    ]) {
      it(`${qs} is a 400 naming ${field}`, async () => {
        const res = await http(url, 'GET', `${PATH}?${qs}`)
        assert.equal(res.status, 400, JSON.stringify(res.body))
        assert.ok(
          fieldsOf(res.body).some((f) => f === field || f.startsWith(`${field}.`)),
          JSON.stringify(res.body)
        )
      })
    }
    it('odd but valid input is no 5xx', async () => {
      for (const qs of [
        '$search=%F0%9F%98%80',
        '$search=!!!',
        `$search=${'a'.repeat(400)}`,
        '$search=a%20b%20c%20d',
        '$limit=1000',
        '$skip=999999'
      ]) {
        const res = await http(url, 'GET', `${PATH}?${qs}`)
        assert.ok(res.status < 500, `${qs}: ${res.status}`)
      }
    })
  })

  it('pages stably', async () => {
    const all = names(await search(url, '$search=*'))
    const pages = [
      ...names(await search(url, '$search=*&$limit=3')),
      ...names(await search(url, '$search=*&$limit=3&$skip=3'))
    ]
    assert.deepEqual(pages, all)
    const ranked = names(await search(url, '$search=clinic'))
    const paged = [
      ...names(await search(url, '$search=clinic&$limit=1')),
      ...names(await search(url, '$search=clinic&$limit=1&$skip=1')),
      ...names(await search(url, '$search=clinic&$limit=1&$skip=2'))
    ]
    assert.deepEqual(paged, ranked)
    const page = await search(url, '$search=clinic&$limit=1&$skip=1')
    assert.deepEqual([page.total, page.limit, page.skip], [3, 1, 1])
  })

  it('a token changes nothing', async () => {
    for (const qs of ['$search=*', '$search=clinic', `$search=*&location=${CENTER.lat},${CENTER.lng}`]) {
      assert.deepEqual(await search(url, qs, owner.token), await search(url, qs))
    }
  })

  it('is read-only over REST: POST/PATCH/PUT/DELETE are 405', async () => {
    for (const [method, path] of [
      ['POST', PATH],
      ['PUT', `${PATH}/x`],
      ['PATCH', `${PATH}/x`],
      ['DELETE', `${PATH}/x`],
      ['GET', `${PATH}/x`]
    ]) {
      const res = await http(url, method, path, {
        token: owner.token,
        body: method === 'POST' || method === 'PUT' || method === 'PATCH' ? { name: 'x' } : undefined
      })
      assert.equal(res.status, 405, `${method} ${path}: ${res.status}`)
    }
  })

  it('is read-only over Socket.IO: create/update/patch/remove are 405; find answers', async () => {
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false })
    try {
      for (const [method, args] of [
        ['create', [{ name: 'x' }, {}]],
        ['update', ['x', { name: 'x' }, {}]],
        ['patch', ['x', { name: 'x' }, {}]],
        ['remove', ['x', {}]]
      ] as [string, unknown[]][]) {
        const answer = await rawEmit(socket, method, 'bff/unified-directory', args)
        assert.equal(answer.error?.code, 405, `${method}: ${JSON.stringify(answer)}`)
      }
      const found = await rawEmit(socket, 'find', 'bff/unified-directory', [{ $search: 'clinica' }])
      assert.deepEqual(
        found.result.data.map((e: any) => e.name),
        ['Clínica San Juan']
      )
      const bad = await rawEmit(socket, 'find', 'bff/unified-directory', [{ 'ref.id': 'x' }])
      assert.equal(bad.error?.code, 400)
    } finally {
      socket.disconnect()
    }
  })

  describe('entries follow their organizations', () => {
    const find = async (qs: string) => names(await search(url, qs))

    it('create (listed), rename, move, unlist, relist, remove', async () => {
      const org = await createOrg(url, owner, {
        name: 'Ospital ng Bayan',
        description: 'general hospital',
        coordinates: north(20),
        directory: { listed: true }
      })
      assert.deepEqual(await find('$search=ospital'), ['Ospital ng Bayan'])

      let res = await http(url, 'PATCH', `/organizations/${org.id}`, {
        token: owner.token,
        body: { name: 'Bayan Medical Center' }
      })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.deepEqual(await find('$search=ospital'), [])
      assert.deepEqual(await find('$search=bayan%20medical'), ['Bayan Medical Center'])

      assert.deepEqual(await find(`$search=bayan&location=${CENTER.lat},${CENTER.lng}`), [])
      res = await http(url, 'PATCH', `/organizations/${org.id}`, {
        token: owner.token,
        body: { coordinates: north(1) }
      })
      assert.equal(res.status, 200)
      assert.deepEqual(await find(`$search=bayan&location=${CENTER.lat},${CENTER.lng}`), [
        'Bayan Medical Center'
      ])

      res = await http(url, 'PATCH', `/organizations/${org.id}`, {
        token: owner.token,
        body: { tags: ['emergency'] }
      })
      assert.equal(res.status, 200)
      assert.deepEqual(await find('tags=emergency'), ['Bayan Medical Center'])

      res = await http(url, 'PATCH', `/organizations/${org.id}`, {
        token: owner.token,
        body: { directory: { listed: false } }
      })
      assert.equal(res.status, 200)
      assert.deepEqual(await find('$search=bayan'), [])
      assert.deepEqual(await find('tags=emergency'), [])

      res = await http(url, 'PATCH', `/organizations/${org.id}`, {
        token: owner.token,
        body: { directory: { listed: true } }
      })
      assert.deepEqual(await find('$search=bayan'), ['Bayan Medical Center'])

      res = await http(url, 'DELETE', `/organizations/${org.id}`, { token: owner.token })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.deepEqual(await find('$search=bayan'), [])
    })

    it('sto: tags follow the active services of the catalogue', async () => {
      const org = await createOrg(url, owner, {
        name: 'Lab Plus',
        coordinates: north(30),
        directory: { listed: true }
      })
      assert.deepEqual(await find('tags=sto:laboratory'), [])
      const service = await http(url, 'POST', '/services', {
        token: owner.token,
        body: { facility: org.id, name: 'CBC', type: 'laboratory', price: 10 }
      })
      assert.equal(service.status, 201, JSON.stringify(service.body))
      assert.deepEqual(await find('tags=sto:laboratory'), ['Lab Plus'])
      assert.deepEqual((await search(url, '$search=lab')).data[0].tags, ['sto:laboratory'])

      await http(url, 'PATCH', `/services/${service.body.id}`, {
        token: owner.token,
        body: { active: false }
      })
      assert.deepEqual(await find('tags=sto:laboratory'), [])
      await http(url, 'PATCH', `/services/${service.body.id}`, { token: owner.token, body: { active: true } })
      assert.deepEqual(await find('tags[$in][]=sto:laboratory&tags[$in][]=sto:imaging'), ['Lab Plus'])

      const removed = await http(url, 'DELETE', `/services/${service.body.id}`, { token: owner.token })
      assert.equal(removed.status, 200)
      assert.deepEqual(await find('tags=sto:laboratory'), [])
    })

    it('only superadmins change the listing; sto: tags cannot be set by hand', async () => {
      const stranger = await signUp(url)
      const res = await http(url, 'PATCH', `/organizations/${orgs.hidden.id}`, {
        token: stranger.token,
        body: { directory: { listed: true } }
      })
      assert.equal(res.status, 404)
      const fake = await http(url, 'PATCH', `/organizations/${orgs.hidden.id}`, {
        token: owner.token,
        body: { tags: ['sto:laboratory'] }
      })
      assert.equal(fake.status, 400)
      assert.deepEqual(await find('$search=hidden'), [])
    })
  })
})

// The same queries give the same ordered results on both engines: this table runs on the embedded engine, and on
// MongoDB when MONGODB_URL is set.
describe('GET /bff/unified-directory: engine parity fixture table', function () {
  this.timeout(60000)
  let server: TestServer
  let ids: Record<string, string>

  before(async () => {
    server = await startServer()
    const owner = await signUp(server.url)
    const orgs = await seed(server.url, owner)
    ids = Object.fromEntries(Object.entries(orgs).map(([key, org]) => [key, org.id]))
  })
  after(() => server.close())

  const table: [string, string[]][] = [
    ['$search=*', ['cardiology', 'clinica', 'cebu', 'diagnostics']],
    ['$search=clinic', ['clinica', 'cardiology', 'cebu']],
    ['$search=c', ['cardiology', 'clinica']],
    ['$search=far%20hosp', ['cebu']],
    ['$search=cardiology', ['cardiology', 'diagnostics']],
    ['$search=makati%20cardiology', ['cardiology', 'diagnostics']],
    [`$search=*&location=${CENTER.lat},${CENTER.lng}`, ['clinica', 'cardiology']],
    [`$search=*&location=${CENTER.lat},${CENTER.lng},5.2`, ['clinica', 'cardiology', 'diagnostics']],
    [`$search=makati&location=${CENTER.lat},${CENTER.lng},6`, ['cardiology', 'diagnostics']],
    ['$search=*&tags=pediatrics', ['clinica']],
    ['$search=*&ref.types=clinic', ['cardiology', 'clinica']],
    ['$search=*&$limit=2&$skip=1', ['clinica', 'cebu']]
  ]
  for (const [qs, expected] of table) {
    it(qs, async () => {
      const body = await search(server.url, qs)
      assert.deepEqual(
        body.data.map((entry: any) => entry.ref.id),
        expected.map((key) => ids[key])
      )
    })
  }
})
