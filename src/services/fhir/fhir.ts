// FHIR R4 under /fhir (docs/fhir.md): the stores of bulk export jobs and import journals, the export worker and the
// import recovery, kept per app. The routes themselves are Koa middleware (routes.ts), registered by src/app.ts;
// the worker and the recovery pass are started by src/ops/jobs.ts.
import path from 'node:path'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { appSlot } from '../../runtime'
import { createStore } from '../../store'
import { auditLog } from '../../audit/log'
import { FhirExportWorker, exportStoreOptions, type ExportJob, type ExportStore } from '../../fhir/export'
import { importStoreOptions, type ImportJournal, type ImportStore } from '../../fhir/journal'

export interface FhirState {
  exports: ExportStore
  imports: ImportStore
  /** DATA_DIR/fhir-exports: one folder per export job. */
  root: string
  worker: FhirExportWorker
}

export const fhirSlot = appSlot<FhirState>('fhir')

export const fhir = (app: Application, deps: Deps) => {
  // (not named `exports`: the compiled module's own `exports` would be shadowed)
  const exportJobs = createStore<ExportJob>(app, exportStoreOptions) as ExportStore
  const imports = createStore<ImportJournal>(app, importStoreOptions) as ImportStore
  const root = path.join(app.get('dataDir'), 'fhir-exports')
  const worker = new FhirExportWorker(deps, {
    store: exportJobs,
    root,
    systemBase: () => deps.settings.get('fhir').systemBase,
    shared: !!deps.settings.get('mongodb'),
    // The one audit event of an export: who, which facility, the job, and the resources by type.
    audit: async (job, counts) => {
      const log = auditLog(app)
      if (!log?.settings.enabled) return
      await log.append([
        {
          at: log.now(),
          actor: job.requestedBy,
          action: 'export',
          service: 'fhir-export',
          ids: [job.id],
          facility: job.facility,
          outcome: 'allowed',
          status: 200,
          ...(job.ip ? { ip: job.ip } : {}),
          ...(job.userAgent ? { userAgent: job.userAgent } : {}),
          requestId: job.id,
          via: 'rest',
          after: counts
        }
      ])
    }
  })
  fhirSlot.set(app, { exports: exportJobs, imports, root, worker })
}
