// The attachment settings: bad values stop the start with a message naming the variable.
import assert from 'node:assert/strict'
import { createApp } from '../../src/app'
import { StartupError } from '../../src/startup-error'
import { tempDir } from '../helpers/app'

const refusedStart = (overrides: Record<string, unknown>): string => {
  try {
    createApp({ dataDir: tempDir(), logLevel: 'error', ...overrides } as never)
  } catch (error) {
    assert.ok(error instanceof StartupError, String(error))
    return error.message
  }
  assert.fail('the app was expected not to start')
}

const s3 = (fields: Record<string, unknown>) => ({
  attachments: {
    s3: {
      bucket: 'clinic-files',
      endpoint: '',
      region: 'us-east-1',
      accessKeyId: '',
      secretAccessKey: '',
      forcePathStyle: false,
      ...fields
    }
  }
})

describe('attachment settings', () => {
  it('refuses an S3 bucket name S3 would refuse, naming S3_BUCKET', () => {
    assert.match(refusedStart(s3({ bucket: 'Clinic_Files' })), /S3_BUCKET must be a bucket name/)
  })

  it('refuses an S3 endpoint that is not an http(s) URL, naming S3_ENDPOINT', () => {
    assert.match(
      refusedStart(s3({ endpoint: 'ftp://files.example.test' })),
      /S3_ENDPOINT must be an http\(s\) URL/
    )
    assert.match(refusedStart(s3({ endpoint: 'not a url' })), /S3_ENDPOINT/)
  })

  it('refuses an access key id without its secret (or the reverse)', () => {
    assert.match(refusedStart(s3({ accessKeyId: 'AKIA123' })), /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/)
    assert.match(refusedStart(s3({ secretAccessKey: 'secret' })), /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/)
  })

  it('refuses an allow-list entry that is not a media type, a zero size limit, or no types at all', () => {
    assert.match(refusedStart({ attachments: { types: ['pdf'] } }), /ATTACHMENT_TYPES/)
    assert.match(refusedStart({ attachments: { types: [] } }), /ATTACHMENT_TYPES/)
    assert.match(refusedStart({ attachments: { maxBytes: 0 } }), /ATTACHMENT_MAX_BYTES/)
    assert.match(refusedStart({ attachments: { downloadTtlMs: 0 } }), /ATTACHMENT_DOWNLOAD_TTL_MS/)
  })

  it('starts on the embedded store when S3_BUCKET is empty, and on S3 when it is set', async () => {
    const embedded = createApp({ dataDir: tempDir(), logLevel: 'error' })
    const bucket = createApp({ dataDir: tempDir(), logLevel: 'error', ...s3({}) } as never)
    const { depsSlot } = await import('../../src/deps')
    assert.equal(depsSlot.require(embedded).blobs.kind, 'embedded')
    assert.equal(depsSlot.require(bucket).blobs.kind, 's3')
    await depsSlot.require(bucket).blobs.close()
  })
})
