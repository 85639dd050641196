// Sign-up with a subscription (POST /accounts with organization: { …, subscription: { package, trial? } }):
// the package is checked before anything is written (400 naming organization.subscription.package), then the
// account, the organization and the subscription are created; when the subscription cannot be created the
// organization (and its membership) is removed here and the account by the caller — nothing is left behind.
import type { Params } from '@feathersjs/feathers'
import type { Application } from '../declarations'
import { invalid } from '../schema/validators'
import { presentExternal } from '../schema/external'
import { activePackage, unsuitable } from './packages'
import { createSubscription } from './lifecycle'
import { serviceAt } from '../store'

const FIELD = 'organization.subscription.package'

export const checkSignUpSubscription = async (
  app: Application,
  organization: { type?: string; types?: string[] },
  subscription: { package: string }
) => {
  const pkg = await activePackage(app, subscription.package, FIELD)
  const problem = unsuitable(pkg, organization)
  if (problem) throw invalid('data', [{ field: FIELD, message: problem }])
}

export const subscribeSignUp = async (
  app: Application,
  result: any,
  subscription: { package: string; trial?: boolean },
  params: Params
) => {
  const organization = result.organization
  try {
    const created = await createSubscription(
      app,
      { facility: organization.id, package: subscription.package, trial: subscription.trial },
      { by: result.id, params },
      { package: FIELD, facility: 'organization' }
    )
    return {
      ...result,
      organization: { ...organization, subscription: created.id },
      subscription: await presentExternal(app, 'subscriptions', created)
    }
  } catch (error) {
    const members = serviceAt(app, 'organization-members')
    for (const member of await members._find({ query: { organization: organization.id }, paginate: false }))
      await members._remove(member.id)
    await serviceAt(app, 'organizations')._remove(organization.id)
    throw error
  }
}
