// patientSchema → Patient → patientDataSchema → patientQuerySchema
// A facility's patient: the link between a facility and a patient's account, with the account's name, email and
// phone mirrored for the facility's search (src/patients/links.ts keeps them current).
import { Type, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'
import { mobileNo } from '../accounts/accounts.schema'

/** How someone became the facility's patient: registered by its staff, or a record, encounter or appointment. */
export const patientSources = ['registered', 'medical-records', 'medical-encounters', 'appointments'] as const

export const patientSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    /** The patient's account id. */
    patient: IdString(),
    firstName: Type.Optional(Type.String()),
    middleName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    mobileNo: Type.Optional(Type.String()),
    source: Type.Union(patientSources.map((s) => Type.Literal(s))),
    // The search keys (lowercased names and their combinations, the lowercased email, the phone's digits) and the
    // link's key `<facility>:<patient>` (unique): never sent to clients.
    nameKeys: Type.Array(Type.String()),
    emailKey: Type.Optional(Type.String()),
    phoneKey: Type.Optional(Type.String()),
    linkKey: Type.String(),
    updatedAt: Timestamp()
  },
  { additionalProperties: false }
)
export type Patient = Static<typeof patientSchema>

/** Staff register a patient: an account is matched by email, or created without a password (claimed by reset). */
export const patientDataSchema = Type.Object(
  {
    facility: IdString(),
    firstName: Text(100, { minLength: 1 }),
    middleName: Type.Optional(Text(100)),
    lastName: Type.Optional(Text(100)),
    email: Type.String({ format: 'email', maxLength: 254 }),
    mobileNo: Type.Optional(mobileNo())
  },
  { additionalProperties: false }
)

const Sort = () => Type.Optional(Type.Union([Type.Literal(1), Type.Literal(-1)]))

/**
 * GET /patients?facility=…&q=…: `facility` is required; `q` is a prefix of a name (first, last, "first last" or
 * "last first"), of the email or of the phone number's digits, any case; paginated.
 */
export const patientQuerySchema = Type.Object(
  {
    facility: IdString(),
    q: Type.Optional(Type.String({ maxLength: 100 })),
    patient: Type.Optional(
      Type.Union([
        IdString(),
        Type.Object({ $in: Type.Array(IdString(), { maxItems: 100 }) }, { additionalProperties: false })
      ])
    ),
    $limit: Type.Optional(Type.Integer({ minimum: 0 })),
    $skip: Type.Optional(Type.Integer({ minimum: 0 })),
    $sort: Type.Optional(
      Type.Object(
        { lastName: Sort(), firstName: Sort(), createdAt: Sort(), updatedAt: Sort() },
        { additionalProperties: false }
      )
    )
  },
  { additionalProperties: false }
)

/** GET /patients/:id takes no search; `facility` may be given (it must then be the patient's). */
export const patientGetQuerySchema = Type.Object(
  { facility: Type.Optional(IdString()) },
  { additionalProperties: false }
)

/** The search keys and the link key never leave the server. */
export const patientInternals = ['nameKeys', 'emailKey', 'phoneKey', 'linkKey'] as const
export const patientExternalResolver = omittingResolver<Patient>(patientInternals)
