// encounterSchema → Encounter → encounterDataSchema → encounterPatchSchema → encounterQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields, QueryNullable } from '../../schema/common'
import { FinalizeFlag, ListValue, stateFields } from '../../schema/billing'
import { omittingResolver } from '../../schema/resolvers'

const encounterFields = {
  // One of config `billing.encounterTypes`; defaults to its first entry.
  type: Type.Optional(ListValue()),
  startedAt: Type.Optional(Timestamp()),
  endedAt: Type.Optional(Timestamp()),
  reason: Type.Optional(Text(2000)),
  notes: Type.Optional(Text(10000)),
  // The attending provider's account uid.
  provider: Type.Optional(IdString())
}

export const encounterSchema = Type.Object(
  {
    ...serverFields,
    facility: IdString(),
    // The patient's uid.
    patient: IdString(),
    ...encounterFields,
    type: ListValue(),
    startedAt: Timestamp(),
    // The encounter's invoice, when created with `invoice: true`.
    invoice: Type.Union([IdString(), Type.Null()]),
    ...stateFields
  },
  { additionalProperties: false }
)
export type Encounter = Static<typeof encounterSchema>

export const encounterDataSchema = Type.Object(
  { facility: IdString(), patient: IdString(), ...encounterFields, invoice: Type.Optional(Type.Boolean()) },
  { additionalProperties: false }
)

// PUT replaces the client-owned fields: the create body without `invoice` (facility and patient must stay the same).
export const encounterUpdateSchema = Type.Object(
  { facility: IdString(), patient: IdString(), ...encounterFields },
  { additionalProperties: false }
)

export const encounterPatchSchema = Type.Object(
  { ...encounterFields, finalize: Type.Optional(FinalizeFlag()) },
  { additionalProperties: false }
)

export const encounterQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    facility: IdString(),
    patient: IdString(),
    type: Type.String(),
    status: Type.String(),
    invoice: QueryNullable(IdString()),
    provider: QueryNullable(IdString()),
    startedAt: Type.Number(),
    endedAt: QueryNullable(Type.Number()),
    createdAt: Type.Number(),
    finalizedAt: QueryNullable(Type.Number()),
    updatedAt: QueryNullable(Type.Number())
  })
)

/** The cascade markers of an encounter being removed, which never leave the server. */
export const encounterInternals = ['deleting', 'deletingAt'] as const

/** What clients see of an encounter. */
export const encounterExternalResolver = omittingResolver<Encounter>(encounterInternals)
