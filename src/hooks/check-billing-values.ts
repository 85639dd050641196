// Body checks of the billing and inventory services that depend on configuration: type/subjectType/paymentMethod
// values come from the lists in config `billing`, and money values carry at most `billing.moneyDecimals` decimals
// (the settings are read at the time of the call). 400s name each field.
import type { HookContext, NextFunction } from '../declarations'
import { depsSlot } from '../deps'
import { invalid, type FieldError } from '../schema/validators'
import { hasAtMostDecimals } from '../schema/money'
import type { BillingList } from '../billing/settings'

export const checkBillingValues =
  (listFields: Record<string, BillingList>, moneyFields: string[] = []) =>
  async (context: HookContext, next: NextFunction) => {
    const data = context.data
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const settings = depsSlot.require(context.app).settings.get('billing')
      const errors: FieldError[] = []
      for (const [field, list] of Object.entries(listFields)) {
        const value = (data as Record<string, unknown>)[field]
        if (value !== undefined && !(settings[list] as unknown[]).includes(value)) {
          errors.push({ field, message: `must be one of: ${settings[list].join(', ')}` })
        }
      }
      for (const field of moneyFields) {
        const value = (data as Record<string, unknown>)[field]
        if (typeof value === 'number' && !hasAtMostDecimals(value, settings.moneyDecimals)) {
          errors.push({ field, message: `must have at most ${settings.moneyDecimals} decimals` })
        }
      }
      if (errors.length) throw invalid('data', errors)
    }
    await next()
  }
