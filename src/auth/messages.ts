// Confirmation messages of the authentication actions, sent through the one messaging provider
// (src/providers/messaging: SMTP, SMS webhook, or the log when neither is configured).
import { BadGateway } from '@feathersjs/errors'
import { createMessenger, type Messenger } from '../providers/messaging'
import { logger } from '../logger'
import type { AuthSettings } from './settings'

export const createAuthMessenger = (settings: AuthSettings['messaging']): Messenger =>
  createMessenger(
    {
      smtpUrl: settings.smtpUrl,
      mailFrom: settings.mailFrom,
      smsWebhookUrl: settings.smsWebhookUrl,
      timeoutMs: settings.timeoutMs
    },
    // Development without SMTP/SMS: the message (with its code) goes to the log so a developer can read it.
    (line) => logger.warn(line)
  )

export interface ConfirmationMessage {
  to: { email?: string; mobileNo?: string }
  /** "Confirm Change Identity", "Confirm Password Change": the subject and the first line */
  purpose: string
  explanation: string
  code: string
  expiresInMs: number
}

/** The plain text carries the purpose on its first line and the code as `code: <code>`. */
export const confirmationText = (message: ConfirmationMessage) => {
  const minutes = Math.max(1, Math.round(message.expiresInMs / 60000))
  return [
    message.purpose,
    '',
    message.explanation,
    '',
    `code: ${message.code}`,
    '',
    `The code can be used once and expires in ${minutes} minute${minutes === 1 ? '' : 's'}. If you did not ask for this, ignore this message and consider changing your password.`
  ].join('\n')
}

export const sendConfirmation = async (messenger: Messenger, message: ConfirmationMessage) => {
  try {
    await messenger.send({ to: message.to, subject: message.purpose, text: confirmationText(message) })
  } catch (error) {
    logger.warn(
      `${message.purpose} message could not be sent: ${error instanceof Error ? error.message : String(error)}`
    )
    throw new BadGateway('The confirmation message could not be sent; try again later')
  }
}
