// Attachments: files on medical records and encounters (docs/attachments.md).
import { authenticate } from '@feathersjs/authentication'
import type { Application } from '../../declarations'
import type { Deps } from '../../deps'
import { externalView } from '../../schema/external'
import { AttachmentService } from './attachments.class'
import { attachmentExternalResolver } from './attachments.schema'
import { attachmentMethods, attachmentPath } from './attachments.shared'

declare module '../../declarations' {
  interface ServiceTypes {
    [attachmentPath]: AttachmentService
  }
}

export const attachments = (app: Application, deps: Deps) => {
  app.use(attachmentPath, new AttachmentService(app, deps), {
    methods: [...attachmentMethods],
    events: []
  })
  app.service(attachmentPath).hooks({
    around: {
      all: [authenticate('jwt'), externalView(app, attachmentPath, attachmentExternalResolver)]
    }
  })
}
