// Debian's chromium (apt-get install -y chromium; .ci/run installs it when missing) driven by playwright-core,
// headless and without the background traffic this machine's closed network refuses.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

/** Starts headless Chromium (CHROMIUM_PATH, else /usr/bin/chromium); fails saying how to install it. */
export const launchChromium = async (): Promise<Browser> => {
  assert.ok(fs.existsSync(chromiumPath), `Chromium is needed at ${chromiumPath}: apt-get install -y chromium`)
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })
}
