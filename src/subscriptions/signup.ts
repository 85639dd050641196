// Sign-up with a subscription (POST /accounts with organization: { …, subscription: { package, trial? } }):
// the package is checked before anything is written (400 naming organization.subscription.package), then the
// account, the organization and the subscription are created; when the subscription cannot be created the
// organization (and its membership) is removed here and the account by the caller — nothing is left behind.
import type { Params } from '@feathersjs/feathers'
import type { Deps } from '../deps'
import { invalid } from '../schema/validators'
import { subscriptionInternals } from '../services/subscriptions/subscriptions.schema'
import { activePackage, unsuitable } from './packages'
import { createSubscription } from './lifecycle'

const FIELD = 'organization.subscription.package'

export const checkSignUpSubscription = async (
  deps: Deps,
  organization: { type?: string; types?: string[] },
  subscription: { package: string }
) => {
  const pkg = await activePackage(deps, subscription.package, FIELD)
  const problem = unsuitable(pkg, organization)
  if (problem) throw invalid('data', [{ field: FIELD, message: problem }])
}

/** The account just signed up, with the organization it created. */
interface SignedUp {
  id: string
  organization: { id: string }
}

export const subscribeSignUp = async <R extends SignedUp>(
  deps: Deps,
  result: R,
  subscription: { package: string; trial?: boolean },
  params: Params
) => {
  const organization = result.organization
  try {
    const created = await createSubscription(
      deps,
      { facility: organization.id, package: subscription.package, trial: subscription.trial },
      { by: result.id, params },
      { package: FIELD, facility: 'organization' }
    )
    // As clients see it (what the subscriptions service's external resolver leaves out stays here).
    const hidden: readonly string[] = subscriptionInternals
    const external = Object.fromEntries(Object.entries(created).filter(([key]) => !hidden.includes(key)))
    return {
      ...result,
      organization: { ...organization, subscription: created.id },
      subscription: external
    }
  } catch (error) {
    const members = deps.stores.members
    for (const member of await members._find({ query: { organization: organization.id }, paginate: false }))
      await members._remove(member.id)
    await deps.stores.organizations._remove(organization.id)
    throw error
  }
}
