// Body checks that depend on configuration: type/subjectType/paymentMethod values come from the lists in
// config `billing`, and money values carry at most `billing.moneyDecimals` decimals. 400s name each field.
import type { HookContext, NextFunction } from '../declarations'
import { invalid, type FieldError } from '../schema/validators'
import { hasAtMostDecimals } from './money'
import { billingSettings, type BillingList } from './settings'

export const checkBillingValues =
  (listFields: Record<string, BillingList>, moneyFields: string[] = []) =>
  async (context: HookContext, next: NextFunction) => {
    const data = context.data
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const settings = billingSettings(context.app)
      const errors: FieldError[] = []
      for (const [field, list] of Object.entries(listFields)) {
        const value = (data as Record<string, any>)[field]
        if (value !== undefined && !settings[list].includes(value)) {
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
