// Files and helpers shared by the attachment bytes tests: real bytes of each allowed type (enough of each format
// for the sniffer), an HTML page, and the HTTP calls a client makes with the signed URLs.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import http from 'node:http'

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** A 1×1 PNG followed by `extra` bytes of filler (an ancillary chunk keeps it a PNG to any reader). */
export const png = (extra = 0) =>
  Buffer.concat([
    Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1e3b1c90000000049454e44ae426082',
      'hex'
    ),
    Buffer.alloc(extra, 7)
  ])

export const pdf = (extra = 0) =>
  Buffer.concat([
    Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n'),
    Buffer.alloc(extra, 0x20),
    Buffer.from('\ntrailer << /Root 1 0 R >>\n%%EOF\n')
  ])

export const html = () => Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>\n')

export const csv = () => Buffer.from('date,test,value\n2026-01-02,glucose,5.4\n2026-01-03,glucose,5.9\n')

/** A PUT of `bytes` to a signed URL, as curl or a browser sends it. */
export const putBytes = async (url: string, bytes: Buffer, contentType = 'application/octet-stream') => {
  const response = await fetch(url, {
    method: 'PUT',
    body: bytes,
    headers: { 'content-type': contentType, 'content-length': String(bytes.length) }
  })
  const text = await response.text()
  let body: any = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    // the bucket answers XML
  }
  return { status: response.status, body }
}

export const getBytes = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers })
  const bytes = Buffer.from(await response.arrayBuffer())
  return { status: response.status, headers: response.headers, bytes }
}

/** Sends only the headers of a PUT (no byte of the body) and resolves with the answer's status. */
export const putHeadersOnly = (url: string, contentLength: number) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf', 'content-length': String(contentLength) }
    })
    request.on('response', (response) => {
      let body = ''
      response.on('data', (chunk) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    request.on('error', reject)
    request.flushHeaders()
  })

/** The fields of an error answer. */
export const fieldsOf = (body: any): string[] => (body?.errors ?? []).map((e: any) => e.field)

export const assertStatus = (answer: { status: number; body?: unknown }, status: number) =>
  assert.equal(answer.status, status, JSON.stringify(answer.body))
