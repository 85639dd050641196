import assert from 'node:assert/strict'
import { MongoServerError, MongoNetworkError } from 'mongodb'
import { GeneralError } from '@feathersjs/errors'
import { storeError } from '../../src/store'

// What datastore failures look like to clients, on either engine.
describe('store errors', () => {
  const thrown = (error: unknown) => {
    try {
      storeError(error)
    } catch (caught) {
      return caught as any
    }
    throw new Error('storeError must throw')
  }

  it('turns a duplicate key (NeDB, MongoDB, MongoDB bulk insert) into a 409 naming the key', () => {
    const nedb = thrown(
      Object.assign(new Error("Can't insert key a@b, it violates the unique constraint"), {
        errorType: 'uniqueViolated',
        key: 'a@b'
      })
    )
    assert.equal(nedb.code, 409)
    const mongo = thrown(
      new MongoServerError({ message: 'E11000 duplicate key error', code: 11000, keyValue: { email: 'a@b' } })
    )
    assert.equal(mongo.code, 409)
    assert.deepEqual(mongo.data, { key: 'email' })
    const wrapped = thrown(
      new GeneralError('E11000', {
        name: 'MongoBulkWriteError',
        code: 11000,
        writeErrors: [{ keyValue: { organization: 'o', uid: 'u' } }]
      })
    )
    assert.equal(wrapped.code, 409)
    assert.deepEqual(wrapped.data, { key: 'organization,uid' })
  })

  it('never passes a driver message, topology or server reply to clients', () => {
    const network = thrown(new MongoNetworkError('connect ECONNREFUSED 10.0.0.5:27017'))
    assert.equal(network.code, 500)
    assert.equal(network.message, 'Datastore error')
    assert.equal(network.data, undefined)
    const server = new MongoServerError({
      message: 'not primary',
      code: 10107,
      errorLabels: ['RetryableWriteError']
    })
    const wrapped = thrown(
      new GeneralError(server, {
        name: server.name,
        code: server.code,
        errorResponse: { errmsg: 'not primary' },
        errorLabelSet: {}
      })
    )
    assert.equal(wrapped.message, 'Datastore error')
    assert.equal(JSON.stringify(wrapped.toJSON()).includes('primary'), false)
  })

  it('leaves the application’s own errors alone', () => {
    const notFound = thrown(Object.assign(new Error('x'), { name: 'NotFound', code: 404 }))
    assert.equal(notFound.code, 404)
  })
})
