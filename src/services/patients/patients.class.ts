// The patients service: find (with the `q` search, src/patients/links.ts), get, and create (staff register a
// patient: registerPatient).
import type { Id } from '@feathersjs/feathers'
import type { Paginated } from '@feathersjs/feathers'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import type { StoreOptions, StoreParams, Stored } from '../../store'
import type { CreatedFields } from '../../hooks/set-created'
import { registerPatient, searchConditions } from '../../patients/links'
import { ResourceService } from '../resource'
import type { Patient } from './patients.schema'
import { patientPath, type PatientData, type PatientQuery } from './patients.shared'

export const getOptions = (): StoreOptions => ({
  name: 'patients',
  // The search's prefixes (added by this class, never taken from a client's query: its schema has no $regex).
  operators: ['$regex'],
  indexes: [
    { fields: { linkKey: 1 }, unique: true },
    { fields: { facility: 1, nameKeys: 1 } },
    { fields: { facility: 1, emailKey: 1 } },
    { fields: { facility: 1, phoneKey: 1 } },
    { fields: { facility: 1, lastName: 1, firstName: 1 } },
    { fields: { patient: 1 } }
  ]
})

type PatientParams = StoreParams<PatientQuery>

/** The query without `q`, its search added as one more `$and` condition. */
const withSearch = (params: PatientParams = {}): PatientParams => {
  const { q, ...query } = (params.query ?? {}) as PatientQuery & { $and?: unknown[] }
  const text = typeof q === 'string' ? q.trim() : ''
  if (!text) return { ...params, query }
  const and = Array.isArray(query.$and) ? query.$and : []
  // (cast: the search conditions are store operators beyond the client's query type)
  return { ...params, query: { ...query, $and: [...and, { $or: searchConditions(text) }] } as PatientQuery }
}

export class PatientService extends ResourceService<
  Stored<Patient>,
  PatientData,
  Partial<PatientData>,
  PatientQuery
> {
  constructor(app: Application, deps: Deps) {
    super(app, deps, patientPath, getOptions())
  }

  find(params?: PatientParams & { paginate: false }): Promise<Stored<Patient>[]>
  find(params?: PatientParams): Promise<Paginated<Stored<Patient>>>
  find(params?: PatientParams): Promise<Paginated<Stored<Patient>> | Stored<Patient>[]> {
    return super.find(withSearch(params))
  }

  get(id: Id, params?: PatientParams): Promise<Stored<Patient>> {
    return super.get(id, withSearch(params))
  }

  async create(data: PatientData & CreatedFields, params?: PatientParams): Promise<Stored<Patient>> {
    return this.write('create', null, params, () => registerPatient(this.deps, data))
  }
}
