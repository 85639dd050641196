// The store passes @feathersjs/adapter-tests on the configured engine (embedded NeDB in CI; MongoDB when
// MONGODB_URL is set): both engines behave as Feathers adapters, with the public `id` field.
import fs from 'node:fs'
import { feathers } from '@feathersjs/feathers'
import errors from '@feathersjs/errors'
import { adapterTests, type AdapterTestName } from '@feathersjs/adapter-tests'
import { createStore, store, storeReady, closeStore } from '../../src/store'
import { tempDir, testMongoUrl } from '../helpers/app'

// Every test the suite defines (read from its own list, so none is silently skipped).
const declarations = fs.readFileSync(require.resolve('@feathersjs/adapter-tests/src/declarations.ts'), 'utf8')
// ('.id' always runs; the '.$get'-style names are deprecated aliases the suite no longer defines.)
const testNames = [...declarations.matchAll(/\| '([^']+)'/g)]
  .map((match) => match[1])
  .filter((name) => name !== '.id' && !name.startsWith('.$')) as AdapterTestName[]

const dataDir = tempDir()
const app: any = feathers()
app.set('dataDir', dataDir)
app.set('mongodb', testMongoUrl())
app.set('paginate', { default: 10, max: 50 })
app.set('storeSync', 'batch')
app.set('nedb', { compactionIntervalMs: 3600000 })
app.configure(store)
app.use('people', createStore(app, { name: 'people', paginate: false, events: ['testing'] }))

describe('store adapter', () => {
  before(async () => {
    await storeReady(app)
  })
  after(async () => {
    await closeStore(app)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  adapterTests(testNames)(app, errors, 'people', 'id')
})
