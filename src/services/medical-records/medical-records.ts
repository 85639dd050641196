// Medical records: fifteen validated record types, readable, changeable and shareable per record
// (docs/medical-records.md). Rights are queries (src/access/medical-records.ts) enforced in the datastore for find/get/patch/
// remove and in the realtime channels; finalized records are frozen except for their permissions (what a patch and a
// remove do is in medical-records.class.ts).
import type { Query } from '@feathersjs/feathers'
import { populate } from '../../hooks/populate'
import { authenticate } from '@feathersjs/authentication'
import { MethodNotAllowed } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import type { Deps } from '../../deps'
import { defineAccess, within } from '../../access/rules'
import { externalView } from '../../schema/external'
import { RECORD_REMOVAL_MARK, readyFilesOf, type AttachmentSummary } from '../../attachments/records'
import { scopeAccess } from '../../hooks/scope-access'
import { requireSubscription } from '../../hooks/require-subscription'
import { setCreated } from '../../hooks/set-created'
import { invalid, validateQueryWith } from '../../schema/validators'
import { MedicalRecordService } from './medical-records.class'
import {
  medicalRecordQuerySchema,
  validateCreate,
  type MedicalRecord,
  type Permission
} from './medical-records.schema'
import { resolve } from '@feathersjs/schema'
import type { ResolverContext, Stored } from '../../schema/resolvers'
import {
  normalizePermissions,
  recordAudience,
  recordQuery,
  requireFacilityMembership
} from '../../access/medical-records'
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

// Every answer lists the record's ready files (`attachments: [{ id, filename, contentType, size }]`): one store
// query for all records of the answer (a find's page), made once per call and shared by its records.
const FILES = Symbol('files of the answered records')
type FilesContext = ResolverContext & { [FILES]?: Promise<Map<string, AttachmentSummary[]>> }
const answeredIds = (result: unknown, record: { id?: unknown }): string[] => {
  const page = Array.isArray(result)
    ? result
    : result && typeof result === 'object' && Array.isArray((result as { data?: unknown }).data)
      ? (result as { data: unknown[] }).data
      : [result]
  const ids = page.map((doc) => (doc && typeof doc === 'object' ? (doc as { id?: unknown }).id : undefined))
  return [...ids, record.id].filter((id): id is string => typeof id === 'string')
}
const recordFilesResolver = (deps: Deps) =>
  resolve<Stored<MedicalRecord>, ResolverContext>({
    [RECORD_REMOVAL_MARK]: async () => undefined,
    attachments: async (_value: unknown, record: Stored<MedicalRecord>, context: FilesContext) => {
      // A `$select` that leaves the list out gets none.
      const selected = (context.params?.query as { $select?: unknown } | undefined)?.$select
      if (Array.isArray(selected) && !selected.includes('attachments')) return undefined
      if (!context[FILES]) context[FILES] = readyFilesOf(deps, answeredIds(context.result, record))
      return (await context[FILES]).get(record.id) ?? []
    }
  })

export const medicalRecords = (app: Application, deps: Deps) => {
  app.use(medicalRecordPath, new MedicalRecordService(app, deps), {
    methods: [...medicalRecordMethods],
    events: []
  })
  app.service(medicalRecordPath).populatable = true

  defineAccess(app, medicalRecordPath, {
    // A record being removed (marked, src/attachments/records.ts) is already gone for clients.
    read: (access) => within(recordQuery(access, 'read'), { [RECORD_REMOVAL_MARK]: { $exists: false } }),
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
      all: [populate, authenticate('jwt'), externalView(app, medicalRecordPath, recordFilesResolver(deps))],
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
      patch: [refuseMulti, validateQuery, scopeAccess, requireSubscription],
      remove: [refuseMulti, validateQuery, scopeAccess, requireSubscription]
    }
  })
}
