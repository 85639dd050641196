// Paths and methods of the notification templates and their preview, shared with the typed client.
import type { ClientService, Paginated } from '@feathersjs/feathers'
import type { Static } from '@feathersjs/typebox'
import type { ClientParams } from '../client-params'
import type { External } from '../../schema/resolvers'
import type {
  NotificationTemplate as NotificationTemplateDoc,
  TemplatePreview,
  TemplatePreviewData,
  notificationTemplateDataSchema,
  notificationTemplateInternals,
  notificationTemplatePatchSchema,
  notificationTemplateQuerySchema
} from './notification-templates.schema'

export const notificationTemplatePath = 'notification-templates'
export const notificationTemplateMethods = ['find', 'get', 'create', 'patch', 'remove'] as const
/** `POST /notification-templates/preview` (a service of its own, so that "preview" is never taken for an id). */
export const templatePreviewPath = 'notification-templates/preview'
export const templatePreviewMethods = ['create'] as const

/** A template as clients receive it. */
export type NotificationTemplate = External<NotificationTemplateDoc, typeof notificationTemplateInternals>
export type NotificationTemplateData = Static<typeof notificationTemplateDataSchema>
export type NotificationTemplatePatch = Static<typeof notificationTemplatePatchSchema>
export type NotificationTemplateQuery = Static<typeof notificationTemplateQuerySchema>
export type { TemplatePreview, TemplatePreviewData }

export type NotificationTemplateClientService = Pick<
  ClientService<
    NotificationTemplate,
    NotificationTemplateData,
    NotificationTemplatePatch,
    Paginated<NotificationTemplate>,
    ClientParams<NotificationTemplateQuery>
  >,
  'find' | 'get' | 'create' | 'remove'
> & {
  patch(
    id: string,
    data: NotificationTemplatePatch,
    params?: ClientParams<NotificationTemplateQuery>
  ): Promise<NotificationTemplate>
}

export interface TemplatePreviewClientService {
  create(data: TemplatePreviewData, params?: ClientParams<Record<string, never>>): Promise<TemplatePreview>
}

declare module '../../client' {
  interface ServiceTypes {
    [notificationTemplatePath]: NotificationTemplateClientService
    [templatePreviewPath]: TemplatePreviewClientService
  }
}
