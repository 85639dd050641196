// The payer's side of the sandbox gateway: its approval page followed as a plain HTTP client follows a form.
import assert from 'node:assert/strict'

/** Follows the sandbox page as a browser would: loads it, finds the form of `button`, submits it (no redirect followed). */
export const answerCheckout = async (approvalURL: string, button: 'approve' | 'cancel') => {
  const page = await fetch(approvalURL)
  assert.equal(page.status, 200)
  const html = await page.text()
  const form = new RegExp(`<form method="post" action="([^"]+)"><button type="submit" id="${button}">`).exec(
    html
  )
  assert.ok(form, `the page has a ${button} form: ${html}`)
  const action = new URL(form[1].replace(/&#38;/g, '&'), approvalURL)
  const answer = await fetch(action, { method: 'POST', redirect: 'manual' })
  return { status: answer.status, location: answer.headers.get('location') ?? '', html }
}
