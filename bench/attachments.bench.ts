// Attachment bytes through the server, which runs as a child process (as in production: `src/index.ts`), on the
// embedded store and on S3 (a local s3rver on loopback, in this process):
// (a) Upload: FILES distinct PDFs of FILE_MB each, one at a time — create (REST), then PUT to the signed upload URL
//     (embedded) or POST /attachments/upload (multipart, streamed through the server's checks into the bucket) —
//     MB/s of the whole, against a plain `fs.copyFile` of the same files in the same run (the ratio).
// (b) Download: the same files through their signed download URLs (signature, access check, audit event, stream),
//     MB/s against the plain copy.
// (c) Memory while uploading one BIG_MB file (25 MB): the child's resident set (VmRSS, read from /proc every 10 ms)
//     before the upload and its peak during it — the delta shows the bytes are streamed, never held whole.
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { signUp, tempDir } from '../test/helpers/app'
import { startChild, type ChildServer } from '../test/helpers/child'
import { startS3, type TestS3 } from '../test/helpers/s3'
import { call, round } from './lib'

const FILES = Number(process.env.BENCH_FILES ?? 8)
const FILE_MB = Number(process.env.BENCH_FILE_MB ?? 5)
const BIG_MB = Number(process.env.BENCH_BIG_MB ?? 25)
const MB = 1024 * 1024

/** A PDF of `bytes` bytes (random filler: no two files share content, nothing compresses). */
const writePdf = (file: string, bytes: number) => {
  const head = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n')
  const tail = Buffer.from('\n%%EOF\n')
  fs.writeFileSync(file, Buffer.concat([head, randomBytes(bytes - head.length - tail.length), tail]))
}

const rssOf = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = /VmRSS:\s+(\d+) kB/.exec(status)
  return match ? Number(match[1]) * 1024 : 0
}

/** PUTs a file to a URL, streamed from disk. */
const putFile = (url: string, file: string) =>
  new Promise<number>((resolve, reject) => {
    const size = fs.statSync(file).size
    const request = http.request(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf', 'content-length': String(size) }
    })
    request.on('response', (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode ?? 0))
    })
    request.on('error', reject)
    fs.createReadStream(file).pipe(request)
  })

/** POSTs a file as multipart (the fields, then the file), streamed from disk. */
const postMultipart = (base: string, token: string, fields: Record<string, string>, file: string) =>
  new Promise<any>((resolve, reject) => {
    const boundary = `bench-${randomBytes(8).toString('hex')}`
    const head = Buffer.from(
      Object.entries(fields)
        .map(
          ([name, value]) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
        )
        .join('') +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.pdf"\r\n` +
        'Content-Type: application/pdf\r\n\r\n'
    )
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
    const size = fs.statSync(file).size
    const request = http.request(`${base}/attachments/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length)
      }
    })
    request.on('response', (response) => {
      let body = ''
      response.on('data', (chunk) => (body += chunk))
      response.on('end', () =>
        response.statusCode === 201
          ? resolve(JSON.parse(body))
          : reject(new Error(`${response.statusCode} ${body}`))
      )
    })
    request.on('error', reject)
    request.write(head)
    const stream = fs.createReadStream(file)
    stream.on('end', () => request.end(tail))
    stream.pipe(request, { end: false })
  })

/** GETs a URL, counting the bytes (nothing kept). */
const download = (url: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(url, (response) => {
        let bytes = 0
        response.on('data', (chunk: Buffer) => (bytes += chunk.length))
        response.on('end', () =>
          response.statusCode === 200 ? resolve(bytes) : reject(new Error(`${response.statusCode}`))
        )
      })
      .on('error', reject)
  })

interface Setup {
  child: ChildServer
  token: string
  record: string
}

const setUp = async (env: Record<string, string>): Promise<Setup> => {
  const child = await startChild(env)
  const owner = await signUp(child.url, { organization: { name: 'Bench clinic', type: 'facility' } })
  const record = await call(
    child.url,
    'POST',
    '/medical-records',
    { type: 'attachment', facility: owner.organization.id, patient: 'patient-1' },
    owner.token
  )
  return { child, token: owner.token, record: record.id }
}

/** Uploads `file` the backend's way; answers the attachment id. */
const uploadOne = async (backend: 'embedded' | 's3', setup: Setup, file: string, name: string) => {
  const size = fs.statSync(file).size
  const fields = { record: setup.record, filename: name, contentType: 'application/pdf', size: String(size) }
  if (backend === 's3') return (await postMultipart(setup.child.url, setup.token, fields, file)).id as string
  const pending = await call(setup.child.url, 'POST', '/attachments', { ...fields, size }, setup.token)
  const status = await putFile(pending.uploadUrl, file)
  if (status !== 200) throw new Error(`PUT answered ${status}`)
  return pending.id as string
}

const measureBackend = async (backend: 'embedded' | 's3', files: string[], big: string, copyMBps: number) => {
  const dataDir = tempDir('clinic-bench-')
  let s3: TestS3 | undefined
  if (backend === 's3') s3 = await startS3()
  const setup = await setUp({ DATA_DIR: dataDir, ...(s3?.env ?? {}) })
  try {
    const totalMB = (FILES * FILE_MB * MB) / MB
    let started = performance.now()
    const ids: string[] = []
    for (const [i, file] of files.entries()) ids.push(await uploadOne(backend, setup, file, `f${i}.pdf`))
    const uploadMBps = totalMB / ((performance.now() - started) / 1000)

    const urls: string[] = []
    for (const id of ids)
      urls.push(
        (await call(setup.child.url, 'GET', `/attachments/${id}`, undefined, setup.token)).downloadUrl
      )
    started = performance.now()
    for (const url of urls) await download(url)
    const downloadMBps = totalMB / ((performance.now() - started) / 1000)

    // (c) the resident set while one big file goes up
    const pid = setup.child.process.pid as number
    const before = rssOf(pid)
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 10)
    await uploadOne(backend, setup, big, 'big.pdf')
    clearInterval(sampler)
    peak = Math.max(peak, rssOf(pid))
    return {
      uploadMBps: round(uploadMBps),
      downloadMBps: round(downloadMBps),
      uploadVsCopy: round(uploadMBps / copyMBps, 2),
      downloadVsCopy: round(downloadMBps / copyMBps, 2),
      bigUploadMB: BIG_MB,
      rssBeforeMB: round(before / MB),
      rssPeakMB: round(peak / MB),
      rssDeltaMB: round((peak - before) / MB)
    }
  } finally {
    await setup.child.kill('SIGTERM')
    await s3?.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export const run = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clinic-bench-files-'))
  try {
    const files = Array.from({ length: FILES }, (_, i) => path.join(dir, `f${i}.pdf`))
    for (const file of files) writePdf(file, FILE_MB * MB)
    const big = path.join(dir, 'big.pdf')
    writePdf(big, BIG_MB * MB)
    // The baseline: the same files copied with fs (read + write on the same disk), fsynced like the store's writes.
    const copies = path.join(dir, 'copies')
    fs.mkdirSync(copies)
    const started = performance.now()
    for (const file of files) {
      const target = path.join(copies, path.basename(file))
      await fs.promises.copyFile(file, target)
      const handle = await fs.promises.open(target, 'r+')
      await handle.sync()
      await handle.close()
    }
    const copyMBps = (FILES * FILE_MB) / ((performance.now() - started) / 1000)
    const embedded = await measureBackend('embedded', files, big, copyMBps)
    const s3 = await measureBackend('s3', files, big, copyMBps)
    return {
      name: 'attachments',
      files: FILES,
      fileMB: FILE_MB,
      fsCopyMBps: round(copyMBps),
      embedded,
      s3
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
