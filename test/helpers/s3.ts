// A local S3-compatible server for the tests (s3rver): on 127.0.0.1, a free port, a temp folder, one bucket; its
// settings are what createApp takes (`attachments.s3`), with the credentials s3rver checks signatures against.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import S3rver from 's3rver'
import { freePort } from './loopback'

export interface TestS3 {
  endpoint: string
  bucket: string
  directory: string
  /** The `attachments.s3` settings of an app using this server. */
  settings: {
    bucket: string
    endpoint: string
    region: string
    accessKeyId: string
    secretAccessKey: string
    forcePathStyle: boolean
  }
  /** The environment variables of a server process using it. */
  env: Record<string, string>
  /** Object keys in the bucket (s3rver keeps them as files under its folder). */
  keys(): string[]
  close(): Promise<void>
}

export const startS3 = async (bucket = 'clinic-attachments'): Promise<TestS3> => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'clinic-s3-'))
  const port = await freePort()
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: bucket, configs: [] }]
  })
  await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  const settings = {
    bucket,
    endpoint,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true
  }
  const walk = (dir: string, prefix = ''): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((entry) =>
        entry.isDirectory()
          ? walk(`${dir}/${entry.name}`, `${prefix}${entry.name}/`)
          : entry.name.endsWith('._S3rver_object')
            ? [`${prefix}${entry.name.slice(0, -'._S3rver_object'.length)}`]
            : []
      )
  return {
    endpoint,
    bucket,
    directory,
    settings,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true'
    },
    keys: () => {
      const root = `${directory}/${bucket}`
      return fs.existsSync(root) ? walk(root).sort() : []
    },
    async close() {
      await server.close()
      fs.rmSync(directory, { recursive: true, force: true })
    }
  }
}
