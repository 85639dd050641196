// The clinic console's entry: renders the shell into #app, then finishes an OAuth return or restores the stored
// session (the sign-in page otherwise). Bundled by scripts/bundle-console.js into public/console.js.
import { render } from 'preact'
import { App } from './App'
import { errorMessage, restoreSession, showSignedOut } from './lib/api'
import { finishOAuth } from './views/auth/SignIn'

const root = document.getElementById('app')
if (root) {
  root.replaceChildren()
  render(<App />, root)
}

const start = async () => {
  try {
    if (await finishOAuth()) return
  } catch (error) {
    return showSignedOut(errorMessage(error))
  }
  await restoreSession()
}
void start()
