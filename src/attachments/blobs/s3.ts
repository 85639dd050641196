// S3-compatible object storage (AWS S3, MinIO, …) through the AWS SDK v3 — the one file that imports @aws-sdk/*.
// Each attachment has its own object. Clients upload straight to the bucket with a presigned PUT of a staging
// object (`uploads/<id>`); confirming copies it to the attachment's kept key (`attachments/<org>/<id>`), which no
// URL can write, and verifies that copy — so a second PUT with the same presigned URL can never change bytes that
// were already checked. Bytes that pass through the server (multipart uploads, PUT to the server's own URL) are
// staged in a local temp file first (measured, hashed, sniffed) and uploaded once they passed every check.
import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { BadGateway, NotFound } from '@feathersjs/errors'
import type { BlobRead, Blobs, StagedBlob } from '../../deps'
import type { Configuration } from '../../configuration'
import { Staging } from './staging'

export type S3Settings = Configuration['attachments']['s3']

const missing = (error: unknown) =>
  error instanceof S3ServiceException &&
  (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata?.httpStatusCode === 404)

// The prefix of kept objects (`attachments/<org>/<id>`, src/attachments/links.ts); staging ones are `uploads/<id>`.
const KEPT_PREFIX = 'attachments/'

// A bucket that fails is the storage's fault, not the caller's: 502 naming the operation, never the credentials.
const storageError = (operation: string, error: unknown) =>
  new BadGateway(`The attachment storage failed to ${operation}`, {
    reason: error instanceof Error ? error.name : 'unknown'
  })

export class S3Blobs implements Blobs {
  readonly kind = 's3' as const
  private readonly client: S3Client
  private readonly bucket: string
  private readonly staging: Staging

  constructor(settings: S3Settings, stagingRoot: string) {
    this.bucket = settings.bucket
    this.staging = new Staging(stagingRoot)
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId
        ? {
            credentials: {
              accessKeyId: settings.accessKeyId,
              secretAccessKey: settings.secretAccessKey
            }
          }
        : {}),
      // Checksums only where S3 requires them: presigned URLs then carry no checksum parameter a browser or curl
      // would have to compute, and S3-compatible servers that know no flexible checksums accept the requests.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED'
    })
  }

  async stage(
    source: NodeJS.ReadableStream,
    options: { maxBytes: number; key: string }
  ): Promise<StagedBlob> {
    const staged = await this.staging.write(source, options.maxBytes)
    return {
      key: options.key,
      size: staged.size,
      sha256: staged.sha256,
      head: staged.head,
      text: staged.text,
      commit: async () => {
        try {
          await this.client.send(
            new PutObjectCommand({
              Bucket: this.bucket,
              Key: options.key,
              Body: fs.createReadStream(staged.file),
              ContentLength: staged.size
            })
          )
        } catch (error) {
          throw storageError('store the file', error)
        } finally {
          await this.staging.discard(staged.file)
        }
      },
      discard: () => this.staging.discard(staged.file)
    }
  }

  async read(key: string, range?: { start: number; end: number }): Promise<BlobRead> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {})
        })
      )
      const total = answer.ContentRange ? Number(answer.ContentRange.split('/')[1]) : answer.ContentLength
      if (!(answer.Body instanceof Readable) || typeof total !== 'number' || !Number.isFinite(total))
        throw new Error('unexpected answer')
      return { stream: answer.Body, size: total }
    } catch (error) {
      if (missing(error)) throw new NotFound('The attachment content is missing')
      throw storageError('read the file', error)
    }
  }

  async size(key: string) {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }))
      return answer.ContentLength ?? 0
    } catch (error) {
      if (missing(error)) return null
      throw storageError('look the file up', error)
    }
  }

  async remove(key: string) {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
    } catch (error) {
      if (!missing(error)) throw storageError('remove the file', error)
    }
  }

  async presignPut(key: string, options: { contentType: string; size: number; expiresInMs: number }) {
    const seconds = Math.max(1, Math.ceil(options.expiresInMs / 1000))
    return getSignedUrl(
      this.client,
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ContentType: options.contentType,
        ContentLength: options.size
      }),
      { expiresIn: Math.min(seconds, 7 * 24 * 3600) }
    )
  }

  async copy(from: string, to: string) {
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: to,
          CopySource: `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`
        })
      )
    } catch (error) {
      if (missing(error)) throw new NotFound('The file was not uploaded')
      throw storageError('copy the file', error)
    }
  }

  sweep() {
    return this.staging.sweep()
  }

  async *keys() {
    let token: string | undefined
    do {
      let page
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: KEPT_PREFIX, ContinuationToken: token })
        )
      } catch (error) {
        throw storageError('list the files', error)
      }
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }

  async close() {
    this.client.destroy()
  }
}

/** The staging folder of S3 mode: temp files only, under the data folder. */
export const s3StagingRoot = (dataDir: string) => path.join(dataDir, 'attachments')
