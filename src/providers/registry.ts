// The providers an app uses (card processor, payment gateways), built once per app by the composition root and
// handed to the domain in its dependencies (`deps.providers`), so no domain code looks them up on the app.
// Each is built on first use and kept; the settings are read when asked (tests may change one on a running app).
import type { AddressInfo } from 'node:net'
import type { Configuration } from '../configuration'
import { createProcessor, type CardProcessor } from './processor'
import { createGateway, gatewaySettings, type GatewaySettings, type PaymentGateway } from './gateways'

/** Reads the app's settings (the same shape as the dependencies' settings). */
export interface SettingsReader {
  get<K extends keyof Configuration>(key: K): Configuration[K]
}

export interface Providers {
  /** The configured card processor (config `processor`), built once. */
  processor(): CardProcessor
  /** The adapter of gateway `name`, built once. */
  gateway(name: string): PaymentGateway
  /** The gateway settings (config `gateways`), checked. */
  gatewaySettings(): GatewaySettings
  /**
   * This server's public origin for pages it serves (checkouts): PUBLIC_URL, else the origin the caller reached it
   * at (`headers`), else (a change made by the server itself) the address it listens on.
   */
  publicOrigin(headers?: Record<string, unknown>): string
}

/** The address the server listens on (null before it listens). */
export type ServerAddress = () => AddressInfo | string | null | undefined

export const createProviders = (settings: SettingsReader, address: ServerAddress = () => null): Providers => {
  let processor: CardProcessor | undefined
  const gateways = new Map<string, PaymentGateway>()
  const providers: Providers = {
    processor: () => (processor ??= createProcessor(settings.get('processor'))),
    gatewaySettings: () => gatewaySettings(settings.get('gateways')),
    gateway: (name) => {
      let gateway = gateways.get(name)
      if (!gateway) {
        gateway = createGateway(name, providers.gatewaySettings())
        gateways.set(name, gateway)
      }
      return gateway
    },
    publicOrigin: (headers) => {
      if (headers?.host || settings.get('gateways')?.publicURL) return originOf(settings, headers)
      const listening = address()
      if (listening && typeof listening === 'object') {
        const host =
          listening.address === '0.0.0.0' || listening.address === '::'
            ? 'localhost'
            : listening.family === 'IPv6'
              ? `[${listening.address}]`
              : listening.address
        return `http://${host}:${listening.port}`
      }
      return originOf(settings, headers)
    }
  }
  return providers
}

/**
 * This server's public origin: PUBLIC_URL (config `gateways.publicURL`), else the origin the caller reached it at
 * (the Host header the transports put on params), else localhost at the configured port.
 */
export const originOf = (settings: SettingsReader, headers?: Record<string, unknown>) => {
  const configured = gatewaySettings(settings.get('gateways')).publicURL
  if (configured) return new URL(configured).origin
  const host = headers?.host
  if (typeof host === 'string' && /^[A-Za-z0-9.:[\]-]{1,300}$/.test(host)) return `http://${host}`
  return `http://localhost:${settings.get('port')}`
}
