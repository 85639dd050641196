// The Bulk Data routes of one facility (kick-off, status, files, cancel); the job itself runs in
// src/fhir/export.ts. Who may do what:
// - kick-off: superadmins of the facility only (another member: 403; a facility the caller is not a member of, or
//   that does not exist: 404, as any unreadable document);
// - status, files and cancel: the account that kicked the export off, or a superadmin of its facility; anyone else
//   gets a 404; an expired or cancelled export is a 404 too (its files are gone).
import fs from 'node:fs'
import path from 'node:path'
import type { Deps } from '../../deps'
import type { Stored } from '../../schema/resolvers'
import { isMemberWith } from '../../access/context'
import { orNull } from '../../billing/store-calls'
import { expired, jobFolder, type ExportJob, type ExportStore } from '../../fhir/export'
import { badRequest, forbidden, notFound, FhirError } from '../../fhir/outcome'
import type { Caller } from './caller'

/** `_since`: a FHIR instant (date, time to the second, time zone). */
const INSTANT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$/

const OUTPUT_FORMATS = ['application/fhir+ndjson', 'application/ndjson', 'ndjson']

const ID = /^[A-Za-z0-9_-]{1,64}$/

export interface KickOff {
  facility: string
  query: Record<string, unknown>
  prefer: string
  request: string
  base: string
  supportedTypes: readonly string[]
  ip?: string
  userAgent?: string
}

const single = (query: Record<string, unknown>, name: string) => {
  const value = query[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw badRequest(`${name} must be given once`, name)
  return value
}

/** Checks the kick-off and stores the job (queued); answers it. */
export const kickOff = async (
  deps: Deps,
  store: ExportStore,
  caller: Caller,
  request: KickOff
): Promise<Stored<ExportJob>> => {
  if (!ID.test(request.facility)) throw notFound(`Group/${request.facility} is not known`)
  const organization = await orNull(deps.stores.organizations._get(request.facility))
  if (!organization || !isMemberWith(caller.access, request.facility))
    throw notFound(`Group/${request.facility} is not known or not visible to you`)
  if (!isMemberWith(caller.access, request.facility, { superadmin: true }))
    throw forbidden('Only superadmins of the facility may export its data')
  if (
    !request.prefer
      .split(/[,;]/)
      .map((part) => part.trim().toLowerCase())
      .includes('respond-async')
  )
    throw FhirError.of(400, 'required', 'A bulk export needs the header Prefer: respond-async', 'Prefer')
  for (const name of Object.keys(request.query))
    if (!['_type', '_since', '_outputFormat'].includes(name))
      throw FhirError.of(400, 'not-supported', `The parameter ${name} is not supported`, name)
  const format = single(request.query, '_outputFormat')
  if (format !== undefined && !OUTPUT_FORMATS.includes(format))
    throw FhirError.of(400, 'not-supported', '_outputFormat must be application/fhir+ndjson', '_outputFormat')
  const typeList = single(request.query, '_type')
  const types =
    typeList === undefined
      ? []
      : [
          ...new Set(
            typeList
              .split(',')
              .map((type) => type.trim())
              .filter(Boolean)
          )
        ]
  if (typeList !== undefined && types.length === 0) throw badRequest('_type names no resource type', '_type')
  const unknown = types.filter((type) => !request.supportedTypes.includes(type))
  if (unknown.length)
    throw FhirError.of(
      400,
      'not-supported',
      `_type: not a supported resource type: ${unknown.join(', ')}`,
      '_type'
    )
  const sinceText = single(request.query, '_since')
  let since: number | undefined
  if (sinceText !== undefined) {
    since = INSTANT.test(sinceText) ? Date.parse(sinceText) : NaN
    if (!Number.isFinite(since))
      throw badRequest('_since must be a FHIR instant, e.g. 2026-01-31T09:00:00Z', '_since')
  }
  const now = deps.clock.now()
  return store._create({
    facility: request.facility,
    requestedBy: caller.account.id,
    types,
    ...(since !== undefined ? { since } : {}),
    request: request.request,
    base: request.base,
    status: 'queued',
    createdAt: now,
    attempts: 0,
    leaseUntil: 0,
    ...(request.ip ? { ip: request.ip } : {}),
    ...(request.userAgent ? { userAgent: request.userAgent } : {})
  })
}

/** The job `id` as the caller may see it (requester or superadmin of its facility, not expired), else a 404. */
export const visibleJob = async (
  deps: Deps,
  store: ExportStore,
  caller: Caller,
  id: string
): Promise<Stored<ExportJob>> => {
  const job = ID.test(id) ? await orNull(store._get(id)) : null
  if (
    !job ||
    job.status === 'cancelled' ||
    expired(job, deps.clock.now()) ||
    (job.requestedBy !== caller.account.id &&
      !isMemberWith(caller.access, job.facility, { superadmin: true }))
  )
    throw notFound(`No export ${id} (unknown, expired, cancelled or not yours)`)
  return job
}

export const fileUrl = (job: ExportJob, file: string) => `${job.base}/fhir/$export-files/${job.id}/${file}`

/** The status answer: 202 with progress while queued or running, the manifest once complete, the error if failed. */
export const statusOf = (job: Stored<ExportJob>) => {
  if (job.status === 'queued' || job.status === 'running')
    return {
      status: 202,
      progress: job.status === 'queued' ? 'queued' : `running: ${job.progress ?? 0} resources written`,
      body: undefined
    }
  if (job.status === 'failed') throw FhirError.of(500, 'exception', job.error ?? 'The export failed')
  return {
    status: 200,
    progress: undefined,
    body: {
      transactionTime: new Date(job.transactionTime ?? job.createdAt).toISOString(),
      request: job.request,
      requiresAccessToken: true,
      output: (job.output ?? []).map((file) => ({
        type: file.type,
        url: fileUrl(job, file.file),
        count: file.count
      })),
      error: []
    }
  }
}

/**
 * Cancels the export (whatever its state): its files are removed now when no worker writes them, else by the
 * worker, which sees the cancel after its current page (and by the expiry pass in any case).
 */
export const cancel = async (deps: Deps, store: ExportStore, root: string, job: Stored<ExportJob>) => {
  const now = deps.clock.now()
  await store._patch(job.id, { status: 'cancelled', leaseUntil: 0, expiresAt: now })
  if (job.status !== 'running')
    await fs.promises.rm(jobFolder(root, job.id), { recursive: true, force: true }).catch(() => undefined)
}

/** A complete export's file, as a stream (404 for a name not in its output). */
export const exportFile = (root: string, job: Stored<ExportJob>, file: string) => {
  const entry = job.status === 'complete' ? job.output?.find((output) => output.file === file) : undefined
  if (!entry) throw notFound(`No file ${file} in export ${job.id}`)
  return fs.createReadStream(path.join(jobFolder(root, job.id), entry.file))
}
