// Medical records: fifteen validated record types, readable, changeable and shareable per record
// (docs/medical-records.md). Rights are queries (medical-records.access.ts) enforced in the datastore for find/get/patch/
// remove and in the realtime channels; finalized records are frozen except for their permissions.
import type { Id, Query } from '@feathersjs/feathers'
import { authenticate } from '@feathersjs/authentication'
import { Conflict, Forbidden, MethodNotAllowed, NotFound } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess, within } from '../../access/rules'
import { isMemberWith, type AccessContext } from '../../access/context'
import { accessOf, scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { invalid, validateQueryWith, WHOLE_BODY } from '../../schema/validators'
import { MedicalRecordService } from './medical-records.class'
import {
  medicalRecordQuerySchema,
  validateCreate,
  validatePatch,
  type Permission
} from './medical-records.schema'
import { holds, normalizePermissions, recordAudience, recordQuery } from './medical-records.access'
import { medicalRecordMethods, medicalRecordPath } from './medical-records.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [medicalRecordPath]: MedicalRecordService
  }
}

// Records are changed one at a time (each needs its own rights check).
const refuseMulti = async (context: HookContext, next: NextFunction) => {
  if (context.id === null || context.id === undefined)
    throw new MethodNotAllowed(`Can not ${context.method} multiple medical records`)
  await next()
}

const isFinalized = (record: { finalizedAt?: unknown }) =>
  record.finalizedAt !== undefined && record.finalizedAt !== null

const finalizedConflict = (record: { id: string; finalizedAt?: unknown }) =>
  new Conflict('This medical record is finalized; only its permissions can still be changed', {
    id: record.id,
    finalizedAt: record.finalizedAt
  })

// The interface documents 200 (not Feathers' 201) for a created record.
const respondWith200 = async (context: HookContext, next: NextFunction) => {
  await next()
  context.http = { ...context.http, status: 200 }
}

// The create body is checked against its type's schema (400 naming every field); permissions are stored normalised.
const validateRecordData = async (context: HookContext, next: NextFunction) => {
  const { value, errors } = validateCreate(context.data)
  if (errors) throw invalid('data', errors)
  // (the permissions were checked by the type's schema)
  context.data = {
    ...value,
    permissions: normalizePermissions(value.permissions as Permission[] | undefined)
  }
  await next()
}

// An ape-report created with a classification is classified by its creator at creation.
const stampCreatedClassification = async (context: HookContext, next: NextFunction) => {
  const data = context.data
  if (data.type === 'ape-report' && data.classification !== undefined) {
    context.data = { ...data, classifiedAt: data.createdAt, classifiedBy: data.createdBy }
  }
  await next()
}

// Keeps the store call conditional on the record not being finalized meanwhile (a concurrent finalize wins: 409).
const unlessFinalizedMeanwhile = async (
  context: HookContext,
  next: NextFunction,
  existing: { id: string }
) => {
  const query = context.params.query ?? {}
  context.params = {
    ...context.params,
    query: { ...query, $and: [...(query.$and ?? []), { finalizedAt: { $exists: false } }] }
  }
  try {
    await next()
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 404) {
      const now = await context.service._get(existing.id).catch(() => null)
      if (now && isFinalized(now)) throw finalizedConflict(now)
    }
    throw error
  }
}

/**
 * A patch is validated with the stored record's type schema (`type` cannot change). Changing `permissions`
 * needs share rights, anything else (fields, finalize, done) write rights; a finalized record only takes
 * permission changes. Sets the server stamps: finalizedAt/By, and for ape-reports classifiedAt/By and doneAt/By.
 */
const preparePatch = async (context: HookContext, next: NextFunction) => {
  const { params } = context
  const service: MedicalRecordService = context.service
  const existing = params.existing ?? (await service._get(context.id as Id)) // a patch by id (multi patches are refused)
  const { value, errors } = validatePatch(existing.type, context.data)
  if (errors) throw invalid('data', errors)
  const keys = Object.keys(value)
  if (keys.length === 0)
    throw invalid('data', [{ field: WHOLE_BODY, message: 'must name at least one field to change' }])
  const sharing = keys.includes('permissions')
  const writing = keys.some((key) => key !== 'permissions')

  if (params.provider) {
    const access = await accessOf(context)
    if (sharing && !holds(access, 'share', existing))
      throw new Forbidden('You may not change who this medical record is shared with')
    if (writing && !holds(access, 'write', existing))
      throw new Forbidden('You may not change this medical record')
    if (typeof value.facility === 'string' && value.facility !== existing.facility)
      requireFacilityMembership(access, value.facility)
    // The store write carries exactly the grants this body needs (the write scope allows write or share).
    context.params = {
      ...context.params,
      query: within(
        context.params.query,
        sharing ? recordQuery(access, 'share') : null,
        writing ? recordQuery(access, 'write') : null
      )
    }
  }
  if (writing && isFinalized(existing)) throw finalizedConflict(existing)

  const { finalize, done, ...fields } = value
  const changes: Record<string, unknown> = { ...fields }
  const now = Date.now()
  const by = params.account?.id ?? null
  if (sharing) changes.permissions = normalizePermissions(value.permissions as Permission[] | undefined)
  if (finalize) Object.assign(changes, { finalizedAt: now, finalizedBy: by })
  if (existing.type === 'ape-report') {
    if (fields.classification !== undefined && fields.classification !== existing.classification) {
      Object.assign(changes, { classifiedAt: now, classifiedBy: by })
    }
    if (done && existing.doneAt === undefined) Object.assign(changes, { doneAt: now, doneBy: by })
  }
  context.data = changes

  if (Object.keys(changes).length === 0) {
    // Nothing to store (e.g. `done` on a report already done): answer with the record as it is.
    context.result = existing
    return
  }
  if (writing) return unlessFinalizedMeanwhile(context, next, existing)
  await next()
}

// A finalized record cannot be removed.
const refuseFinalizedRemoval = async (context: HookContext, next: NextFunction) => {
  const existing = context.params.existing ?? (await context.service._get(context.id))
  if (isFinalized(existing)) throw finalizedConflict(existing)
  return unlessFinalizedMeanwhile(context, next, existing)
}

// A record filed under a facility needs a membership of that facility; an organization the caller is not a
// member of cannot be read by them, so it is a 404 naming the field.
const requireFacilityMembership = (access: AccessContext, facility: string) => {
  if (!isMemberWith(access, facility)) {
    throw new NotFound('Only members of the facility may file records under it', {
      errors: [{ field: 'facility', message: 'is not a facility you are a member of' }]
    })
  }
}

export const medicalRecords = (app: Application, deps: Deps) => {
  app.use(medicalRecordPath, new MedicalRecordService(app, deps), {
    methods: [...medicalRecordMethods],
    events: []
  })
  app.service(medicalRecordPath).populatable = true

  defineAccess(app, medicalRecordPath, {
    read: (access) => recordQuery(access, 'read'),
    // A patch may need write or share rights (decided per body in preparePatch); remove needs write rights.
    write: (access, method) =>
      method === 'patch'
        ? {
            $or: [
              ...(recordQuery(access, 'write').$or as Query[]),
              ...(recordQuery(access, 'share').$or as Query[])
            ]
          }
        : recordQuery(access, 'write'),
    // Any signed-in account may create a record; one filed under a facility needs a membership of it.
    create: (access, data) => {
      if (data.facility !== undefined) requireFacilityMembership(access, data.facility)
    },
    audience: recordAudience,
    // Patient data: every external call is in the audit trail (docs/audit-trail.md).
    audit: { fields: ['patient', 'facility'], patient: (doc) => doc.patient, facility: (doc) => doc.facility }
  })

  const validateQuery = validateQueryWith(medicalRecordQuerySchema)
  app.service(medicalRecordPath).hooks({
    around: {
      all: [authenticate('jwt')],
      find: [validateQuery, scopeAccess, requireSubscription],
      get: [validateQuery, scopeAccess, requireSubscription],
      create: [
        respondWith200,
        validateRecordData,
        scopeAccess,
        requireSubscription,
        setCreated,
        stampCreatedClassification
      ],
      patch: [refuseMulti, validateQuery, scopeAccess, requireSubscription, preparePatch],
      remove: [refuseMulti, validateQuery, scopeAccess, requireSubscription, refuseFinalizedRemoval]
    }
  })
}
