// What a page in Chromium (playwright-core) says about the Content-Security-Policy: every `securitypolicyviolation`
// event of its documents, and every console message about the policy (Chromium also reports blocked loads there).
import type { Page } from 'playwright-core'

/** Starts watching `page` (before it loads anything); the returned list fills as violations happen. */
export const watchPolicyViolations = async (page: Page) => {
  const seen: string[] = []
  await page.exposeFunction('__reportPolicyViolation', (text: string) => seen.push(text))
  // Page code (a string: this file is compiled without the DOM types); injected into every document it loads.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => {
      window.__reportPolicyViolation(event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' (' + event.sourceFile + ':' + event.lineNumber + ')')
    })`
  })
  page.on('console', (message) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) seen.push(message.text())
  })
  return seen
}
