// The shapes the FHIR mapping exchanges with its callers: FHIR resources (as plain JSON), what the exporter is given
// per stored document, and the import plan.
import type { Stored } from '../schema/resolvers'
import type { Account } from '../services/accounts/accounts.schema'
import type { Organization } from '../services/organizations/organizations.schema'
import type { Member } from '../services/organization-members/organization-members.schema'
import type { MedicalRecord, MedicalRecordData } from '../services/medical-records/medical-records.schema'
import type { Encounter } from '../services/medical-encounters/medical-encounters.schema'
import type { Appointment } from '../services/appointments/appointments.schema'

/** A FHIR R4 resource as JSON. */
export type FhirResource = {
  resourceType: string
  id?: string
  meta?: { lastUpdated?: string; tag?: { system?: string; code?: string; display?: string }[] }
  [k: string]: unknown
}

export interface FhirContext {
  /** The server's FHIR base, e.g. `https://clinic.example/fhir`: the root of identifiers' system URLs. */
  systemBase: string
  /** The URL a DocumentReference gives for an attachment file's bytes; default `<systemBase>/Binary/<id>`. */
  attachmentUrl?: (id: string) => string
}

/** A file of the attachments service, as much of it as the mapping needs. */
export interface AttachmentLike {
  id: string
  record?: string | null
  encounter?: string | null
  patient: string
  organization: string
  filename: string
  contentType: string
  size: number
  sha256?: string | null
  title?: string | null
  createdAt: number
  updatedAt?: number
}

/** What the exporter is given: one stored document and the related documents it needs (looked up by the caller). */
export type FhirSource =
  | { kind: 'patient'; doc: Stored<Account> }
  | { kind: 'organization'; doc: Stored<Organization> }
  /** → Practitioner (id = the account id) + PractitionerRole (id = the membership id). */
  | { kind: 'practitioner'; doc: Stored<Account>; member: Stored<Member> }
  | { kind: 'record'; doc: Stored<MedicalRecord> }
  | { kind: 'encounter'; doc: Stored<Encounter> }
  | { kind: 'appointment'; doc: Stored<Appointment> }
  | { kind: 'attachment'; doc: AttachmentLike }

/** A patient as import knows it: matched to an account by `identifier` (this server's account id) or `email`. */
export interface PatientData {
  name?: { firstName?: string; middleName?: string; lastName?: string }
  email?: string
  phone?: string
  birthDate?: string
  gender?: string
  /** The account id the resource carried in this server's identifier system (when it came from a server like this). */
  identifier?: string
}

/** An encounter create body (POST /medical-encounters), `patient` being a step ref or an existing account id. */
export interface EncounterData {
  facility?: string
  patient: string
  type?: string
  startedAt?: number
  endedAt?: number
  reason?: string
  notes?: string
  provider?: string
}

/** An appointment as read back (imported appointments are documented, not created: booking needs a schedule). */
export interface AppointmentData {
  facility?: string
  provider?: string
  patient: string
  start: number
  end?: number
  reason?: string
  type?: string
  status?: string
  cancelReason?: string
  schedule?: string
}

/** An attachment file as read back from its DocumentReference (files are not imported: the bytes are elsewhere). */
export interface AttachmentFileData {
  record?: string
  encounter?: string
  patient: string
  organization?: string
  filename?: string
  contentType?: string
  size?: number
  sha256?: string
  title?: string
  url?: string
}

/**
 * One create of an import plan. `ref` names the step (the resource's fullUrl, else `Type/id`); a later step's
 * `patient`/`encounter` holds the ref of an earlier step when the resource referred to one in the same bundle,
 * else the referenced id as it was given. `index` is the resource's position in the input.
 */
export type ImportStep =
  | { ref: string; index: number; kind: 'patient'; data: PatientData }
  | { ref: string; index: number; kind: 'encounter'; data: EncounterData }
  | { ref: string; index: number; kind: 'record'; data: MedicalRecordData & Record<string, unknown> }

export interface ImportIssue {
  /** Position of the resource in the input (a Bundle's entry index). */
  index: number
  /** FHIR element path, e.g. `AllergyIntolerance.code.text`. */
  path: string
  message: string
  code: 'invalid' | 'not-supported' | 'required'
}

export type ImportResult = { ok: true; plan: ImportStep[] } | { ok: false; issues: ImportIssue[] }
