// A 25 MB upload does not grow the server's memory by the file's size: the bytes are streamed (measured, hashed,
// sniffed on their way to disk or the bucket), never held whole. The server is a child process; its resident set
// (VmRSS) is sampled every 10 ms from /proc while the file goes up. A figure, not a timing: the assertion is only
// that the growth stays well under the file's size.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { restClient, signUp, tempDir, testMongoUrl } from '../helpers/app'
import { startChild, type ChildServer } from '../helpers/child'

const MB = 1024 * 1024
const SIZE = 25 * MB

const rssOf = (pid: number) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) * 1024 : 0
}

describe('attachments: memory while uploading 25 MB', function () {
  this.timeout(120_000)
  let child: ChildServer | undefined
  const dataDir = tempDir()

  after(async () => {
    await child?.kill('SIGKILL')
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('stays flat: the resident set grows by far less than the file', async () => {
    child = await startChild({ DATA_DIR: dataDir, MONGODB_URL: testMongoUrl() })
    const owner = await signUp(child.url, { organization: { name: 'Clinic M', type: 'facility' } })
    const api = restClient(child.url, owner.token)
    const record = await api.post('/medical-records', {
      type: 'attachment',
      facility: owner.organization.id,
      patient: 'patient-1'
    })
    const body = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(SIZE - 16), Buffer.from('\n%%EOF\n')])
    /** Creates an attachment for `body` and PUTs it, in 64 KiB pieces as a client streaming from disk does. */
    const uploadOnce = async (name: string) => {
      const created = await api.post('/attachments', {
        record: record.body.id,
        filename: name,
        contentType: 'application/pdf',
        size: body.length
      })
      assert.equal(created.status, 201, JSON.stringify(created.body))
      return new Promise<number>((resolve, reject) => {
        const request = http.request(created.body.uploadUrl, {
          method: 'PUT',
          headers: { 'content-type': 'application/pdf', 'content-length': String(body.length) }
        })
        request.on('response', (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
        })
        request.on('error', reject)
        let offset = 0
        const pump = () => {
          while (offset < body.length) {
            const piece = body.subarray(offset, offset + 64 * 1024)
            offset += piece.length
            if (!request.write(piece)) return request.once('drain', pump)
          }
          request.end()
        }
        pump()
      })
    }
    // Two uploads first: a fresh process grows its heap and socket buffers to a working size once (and keeps it),
    // which is not what is measured. A server holding a file whole would need another 25 MB for every upload.
    assert.equal(await uploadOnce('warm-1.pdf'), 200)
    assert.equal(await uploadOnce('warm-2.pdf'), 200)
    const pid = child.process.pid as number
    const before = rssOf(pid)
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 10)
    const status = await uploadOnce('big.pdf')
    clearInterval(sampler)
    assert.equal(status, 200)
    const growthMB = (peak - before) / MB
    console.log(
      `      resident set ${(before / MB).toFixed(1)} MB → peak ${(peak / MB).toFixed(1)} MB (+${growthMB.toFixed(1)} MB)`
    )
    assert.ok(growthMB < 12, `the resident set grew by ${growthMB.toFixed(1)} MB while a 25 MB file went up`)
  })
})
