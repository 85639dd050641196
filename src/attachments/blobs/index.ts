// Chooses where attachment bytes are kept, once at start-up: an S3-compatible bucket when `attachments.s3.bucket`
// (S3_BUCKET) is set, else the embedded store under DATA_DIR/attachments/. S3 settings that cannot work stop the
// start with a message naming the variable.
import path from 'node:path'
import type { Blobs } from '../../deps'
import type { Configuration } from '../../configuration'
import { StartupError } from '../../startup-error'
import { EmbeddedBlobs } from './embedded'
import { S3Blobs, s3StagingRoot } from './s3'

/** The reasons the S3 settings cannot work (empty: they can). */
export const s3SettingProblems = (s3: Configuration['attachments']['s3']): string[] => {
  const problems: string[] = []
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(s3.bucket))
    problems.push(
      `S3_BUCKET must be a bucket name: 3-63 lowercase letters, digits, dots and hyphens (got "${s3.bucket}")`
    )
  if (s3.endpoint) {
    let url: URL | undefined
    try {
      url = new URL(s3.endpoint)
    } catch {
      url = undefined
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      problems.push(`S3_ENDPOINT must be an http(s) URL (got "${s3.endpoint}")`)
  }
  if (!s3.accessKeyId !== !s3.secretAccessKey)
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or both left empty)')
  return problems
}

export const createBlobs = (settings: Pick<Configuration, 'attachments' | 'dataDir'>): Blobs => {
  const s3 = settings.attachments.s3
  if (!s3.bucket) return new EmbeddedBlobs(path.resolve(settings.dataDir, 'attachments'))
  const problems = s3SettingProblems(s3)
  if (problems.length) throw new StartupError(`Invalid attachment storage settings: ${problems.join('; ')}`)
  return new S3Blobs(s3, s3StagingRoot(path.resolve(settings.dataDir)))
}
