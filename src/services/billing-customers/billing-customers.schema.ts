// customerSchema → Customer → customerDataSchema → customerPatchSchema → customerQuerySchema
import { Type, querySyntax, type Static } from '@feathersjs/typebox'
import { IdString, Text, Timestamp, serverFields } from '../../schema/common'
import { omittingResolver } from '../../schema/resolvers'

const Token = () =>
  Text(255, {
    minLength: 1,
    description: 'A card token from the processor (e.g. Stripe.js); card numbers never reach this server'
  })
const Email = () => Type.String({ format: 'email', maxLength: 320 })
const Owner = () =>
  Type.Union(
    [
      Type.Object({ account: IdString() }, { additionalProperties: false }),
      Type.Object({ organization: IdString() }, { additionalProperties: false })
    ],
    {
      description: 'Exactly one of account (your own account id) or organization (you are its superadmin)'
    }
  )

export const cardSchema = Type.Object(
  {
    id: Type.String(),
    brand: Type.String(),
    last4: Type.String(),
    expMonth: Type.Number(),
    expYear: Type.Number(),
    isDefault: Type.Boolean()
  },
  { additionalProperties: false }
)

export const customerSchema = Type.Object(
  {
    ...serverFields,
    owner: Owner(),
    // Which processor holds the cards (`sandbox` or `stripe`) and the customer's id there.
    processor: Type.String(),
    processorCustomerId: Type.String(),
    processorEmail: Type.Optional(Email()),
    updatedAt: Timestamp(),
    // Only on GET with $populateProcessorCards=true: the saved cards, most recently added first.
    processorCustomerCards: Type.Optional(Type.Object({ data: Type.Array(cardSchema) }))
  },
  { additionalProperties: false }
)
export type Customer = Static<typeof customerSchema>

export const customerDataSchema = Type.Object(
  {
    owner: Owner(),
    processorToken: Type.Optional(Token()),
    processorEmail: Type.Optional(Email())
  },
  { additionalProperties: false }
)

// One change per PATCH: a new card (the new default) or a new email; the body operators
// $deleteProcessorCard and $setDefaultProcessorCard are checked by operatorSchemas.
export const customerPatchSchema = Type.Object(
  {
    processorToken: Type.Optional(Token()),
    processorEmail: Type.Optional(Email())
  },
  { additionalProperties: false }
)

export const operatorSchemas = {
  $deleteProcessorCard: Type.Object(
    {
      $deleteProcessorCard: Text(255, {
        minLength: 1,
        description:
          'A saved card id; when it is the default, the most recently added remaining card becomes the default'
      })
    },
    { additionalProperties: false }
  ),
  $setDefaultProcessorCard: Type.Object(
    {
      $setDefaultProcessorCard: Text(255, {
        minLength: 1,
        description: 'A saved card id that becomes the default'
      })
    },
    { additionalProperties: false }
  )
}

export const customerQuerySchema = querySyntax(
  Type.Object({
    id: IdString(),
    'owner.account': IdString(),
    'owner.organization': IdString(),
    createdAt: Type.Number(),
    updatedAt: Type.Number()
  })
)

/** GET accepts `$populateProcessorCards=true` besides the query (one object: every other field stays a 400). */
export const customerGetQuerySchema = Type.Object(
  { ...customerQuerySchema.properties, $populateProcessorCards: Type.Optional(Type.Boolean()) },
  { additionalProperties: false }
)

// The uniqueness key is bookkeeping, which never leaves the server.
export const customerInternals = ['ownerKey']

/** What clients see of a customer. */
export const customerExternalResolver = omittingResolver<Customer>(customerInternals)
