// A patient's files in this facility: drop files on the area (or choose them with the button) to upload each as
// a new "attachment" record shared with the facility (POST /attachments/upload, one multipart call: the bytes are
// checked on the way in); ready files are listed newest first with a preview — images as <img>, PDFs in a frame
// of their bytes (a blob: URL of this page) — from download URLs signed for the signed-in account (each download
// is in the audit trail).
import { useEffect, useRef, useState } from 'preact/hooks'
import { client, errorMessage, useLive, when } from '../../lib/api'
import { EmptyState, ErrorText, Status } from '../../components'
import type { Attachment } from '../../../src/services/attachments/attachments.shared'
import type { MedicalRecordData } from '../../../src/services/medical-records/medical-records.shared'

/** Uploads one file as a new attachment record of the patient, shared with the facility's members. */
const uploadFile = async (file: File, patient: string, facility: string) => {
  const record = await client.service('medical-records').create({
    type: 'attachment',
    facility,
    patient,
    title: file.name,
    permissions: [{ organization: facility }]
  } as MedicalRecordData)
  const form = new FormData()
  form.append('record', record.id)
  form.append('size', String(file.size))
  form.append('title', file.name)
  form.append('file', file, file.name)
  const token = await client.authentication.getAccessToken()
  const response = await fetch('/attachments/upload', {
    method: 'POST',
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    body: form
  })
  const answer: unknown = await response.json().catch(() => ({}))
  if (!response.ok) {
    // The record without its file would only confuse: it goes again.
    await client
      .service('medical-records')
      .remove(record.id)
      .catch(() => undefined)
    throw answer
  }
  return answer as Attachment
}

const sizeText = (bytes: number) =>
  bytes < 1024
    ? `${bytes} bytes`
    : bytes < 1048576
      ? `${Math.round(bytes / 1024)} KB`
      : `${(bytes / 1048576).toFixed(1)} MB`

/** A ready file's preview: an image from its download URL, a PDF in a frame of its bytes. */
function Preview({ file }: { file: Attachment }) {
  const [blobUrl, setBlobUrl] = useState('')
  const [error, setError] = useState('')
  const isPdf = file.contentType === 'application/pdf'
  useEffect(() => {
    if (!isPdf || !file.downloadUrl) return
    let url = ''
    let cancelled = false
    fetch(file.downloadUrl)
      .then((response) => {
        if (!response.ok) throw new Error(`The file could not be loaded (${response.status}).`)
        return response.blob()
      })
      .then((blob) => {
        if (cancelled) return
        url = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }))
        setBlobUrl(url)
      })
      .catch((e: unknown) => setError(errorMessage(e)))
    return () => {
      cancelled = true
      if (url) URL.revokeObjectURL(url)
    }
  }, [file.id, file.downloadUrl])
  if (!file.downloadUrl) return null
  if (file.contentType.startsWith('image/'))
    return (
      <div class="preview">
        <img src={file.downloadUrl} alt={`Preview of ${file.filename}`} />
      </div>
    )
  if (isPdf)
    return (
      <div class="preview">
        {error ? (
          <ErrorText message={error} />
        ) : (
          blobUrl && <iframe src={blobUrl} title={`Preview of ${file.filename}`} />
        )}
      </div>
    )
  return <p class="muted">No preview for this kind of file; download it to open it.</p>
}

export function FilesTab({ patient, facility }: { patient: string; facility: string }) {
  const found = useLive<Attachment>('attachments', {
    patient,
    organization: facility,
    status: 'ready',
    $sort: { createdAt: -1 },
    $limit: 50
  })
  const [over, setOver] = useState(false)
  const [busy, setBusy] = useState(false)
  const [status, setStatus] = useState('')
  const [error, setError] = useState('')
  const [open, setOpen] = useState<string>('')
  const input = useRef<HTMLInputElement>(null)

  const upload = async (files: File[]) => {
    if (files.length === 0) return
    setBusy(true)
    setStatus('')
    setError('')
    const done: string[] = []
    try {
      for (const file of files) {
        const attachment = await uploadFile(file, patient, facility)
        done.push(file.name)
        setOpen(attachment.id)
      }
      setStatus(`Uploaded ${done.join(', ')}.`)
      found.reload()
    } catch (e) {
      const problems = (e as { errors?: Array<{ field?: string; message?: string }> })?.errors ?? []
      setError(
        [errorMessage(e), ...problems.map((p) => `${p.field ?? ''} ${p.message ?? ''}`.trim())]
          .filter(Boolean)
          .join(' — ')
      )
    } finally {
      setBusy(false)
      if (input.current) input.current.value = ''
    }
  }

  return (
    <section aria-labelledby="files-title">
      <h2 id="files-title">Files</h2>
      <div
        id="dropzone"
        class={over ? 'dropzone over' : 'dropzone'}
        onDragOver={(event) => {
          event.preventDefault()
          setOver(true)
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault()
          setOver(false)
          void upload(Array.from(event.dataTransfer?.files ?? []))
        }}
      >
        <p>Drop files here to add them to this patient’s files</p>
        <label for="file-input" class="button secondary">
          Choose files…
        </label>
        <input
          id="file-input"
          ref={input}
          class="visually-hidden"
          type="file"
          multiple
          accept="application/pdf,image/png,image/jpeg,image/gif,image/webp,text/plain,text/csv"
          disabled={busy}
          onChange={(event) => void upload(Array.from(event.currentTarget.files ?? []))}
        />
        <p class="hint muted">
          PDF, images and plain text, up to 25 MB each. Each file becomes an “Attachment” record shared with
          this facility.
        </p>
        {busy && <p aria-live="polite">Uploading…</p>}
      </div>
      <Status>{status}</Status>
      <ErrorText message={error} />
      {!found.loading && found.data.length === 0 ? (
        <EmptyState title="No files you can read for this patient here.">
          <p>Drop a scanned referral, a lab PDF or an image on the area above.</p>
        </EmptyState>
      ) : (
        <ul class="records" id="files">
          {found.data.map((file) => (
            <li key={file.id} data-id={file.id} data-type={file.contentType}>
              <p class="record-head">
                <strong>{file.title ?? file.filename}</strong>
                <span class="muted">
                  {' '}
                  · {file.contentType} · {sizeText(file.size)} · {when(file.createdAt)}
                </span>
              </p>
              <div class="actions">
                <button
                  type="button"
                  class="secondary small"
                  aria-expanded={open === file.id}
                  onClick={() => setOpen(open === file.id ? '' : file.id)}
                >
                  {open === file.id ? 'Hide preview' : 'Preview'}
                  <span class="visually-hidden"> of {file.filename}</span>
                </button>
                {file.downloadUrl && (
                  <a class="button secondary small" href={file.downloadUrl}>
                    Download<span class="visually-hidden"> {file.filename}</span>
                  </a>
                )}
              </div>
              {open === file.id && <Preview file={file} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
