// The README and the pages it leads to stand alone and are true: its quick start runs against a fresh server with
// the answers it shows, every request body of the curl examples (README and docs/*.md) fits the published OpenAPI
// schema, the README links every page of docs/, and no page links anything outside the repository. (The settings
// page, docs/configuration.md, is generated and checked by test/docs/configuration-docs.test.ts.)
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import Ajv2020 from 'ajv/dist/2020'
import { addFormats } from '@feathersjs/schema'
import { http, startServer, tempDir } from '../helpers/app'
import { startServerProcess } from '../helpers/server-process'
import { describeDifferences, quickStartSteps, readmePath, root, runQuickStart, section } from './quick-start'
import { emulatorExclusions } from '../mongo/emulator-exclusions'

const readme = fs.readFileSync(readmePath, 'utf8')
const docFiles = fs
  .readdirSync(path.join(root, 'docs'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => path.join(root, 'docs', file))
const contributingPath = path.join(root, 'CONTRIBUTING.md')
const architecturePath = path.join(root, 'ARCHITECTURE.md')
const read = (file: string) => fs.readFileSync(file, 'utf8')

// GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes.
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

/** The anchors of a Markdown page's headings (outside code blocks). */
const headingAnchors = (file: string) => {
  let fence = false
  const anchors = new Set<string>()
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fence = !fence
    else if (!fence && /^#{1,6} /.test(line)) anchors.add(anchor(line.replace(/^#+ /, '')))
  }
  return anchors
}

interface CurlExample {
  source: string
  method: string
  path: string
  body: unknown
}

const placeholderId = '0123456789abcdef01234567'

/** The curl commands with a JSON body (`-d '…'`) of a Markdown file's shell blocks. */
const curlExamples = (file: string): CurlExample[] => {
  const text = fs.readFileSync(file, 'utf8')
  const examples: CurlExample[] = []
  for (const block of text.matchAll(/```(?:sh|shell|bash)\n([\s\S]*?)```/g)) {
    const commands = block[1].replace(/\\\n\s*/g, ' ').split('\n')
    for (const command of commands) {
      const curl = /curl\s.*$/.exec(command)?.[0]
      if (!curl) continue
      const data = /-d '((?:[^']|'"\$\w+"')*)'/.exec(curl)?.[1]
      if (data === undefined) continue
      const method = /-X (\w+)/.exec(curl)?.[1] ?? 'POST'
      const url = /(?:"\$API|localhost:3030)(\/[^"\s?]*)/.exec(curl)?.[1]
      if (!url) continue
      const json = data.replace(/'"\$\w+"'/g, placeholderId).replace(/<[^>"]+>/g, placeholderId)
      examples.push({
        source: `${path.relative(root, file)}: ${curl.slice(0, 120)}`,
        method,
        path: url,
        body: JSON.parse(json)
      })
    }
  }
  return examples
}

describe('README', () => {
  it('runs its quick start against a fresh server with the answers it shows (npm run readme:check)', async function () {
    this.timeout(120_000)
    const server = await startServerProcess({
      NODE_ENV: 'development',
      DATA_DIR: tempDir('clinic-readme-'),
      MONGODB_URL: '',
      LOG_LEVEL: 'warn'
    })
    try {
      const differences = await runQuickStart(readme, server.url)
      assert.deepEqual(differences, [], describeDifferences(differences))
      assert.ok(quickStartSteps(readme).length >= 8)
    } finally {
      await server.kill('SIGTERM')
    }
  })

  it('carries the quick start as one story: ids captured into shell variables, no placeholders to fill in', () => {
    const code = quickStartSteps(readme)
      .map((step) => step.code)
      .join('\n')
    assert.doesNotMatch(code, /<[a-z ]+id>/i)
    for (const variable of ['ACCOUNT', 'CLINIC', 'TOKEN', 'ENCOUNTER', 'INVOICE', 'ITEM'])
      assert.match(code, new RegExp(`^${variable}=\\$\\(`, 'm'), variable)
    const emails = new Set([...code.matchAll(/"email":"([^"]+)"/g)].map((match) => match[1]))
    assert.deepEqual([...emails], ['ada@example.org'], 'one account carried through')
  })

  it('sends request bodies that fit the OpenAPI schema of their path, in the README and docs/*.md', async () => {
    // (with the sandbox clock, which the docs describe, registered as SANDBOX_CLOCK=true registers it)
    const server = await startServer({ sandboxClock: true })
    let doc: any
    try {
      doc = (await http(server.url, 'GET', '/openapi.json')).body
    } finally {
      await server.close()
    }
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv as any, ['email', 'uri', 'date-time']) // (cast: @feathersjs/schema types addFormats for its own Ajv class)
    const examples = [readmePath, ...docFiles].flatMap(curlExamples)
    assert.ok(examples.length >= 30, `only ${examples.length} curl examples with bodies found`)
    const failures: string[] = []
    for (const example of examples) {
      const template = Object.keys(doc.paths).find((candidate) =>
        new RegExp(`^${candidate.replace(/\{id\}/g, '[^/]+')}$`).test(example.path)
      )
      const operation = template && doc.paths[template][example.method.toLowerCase()]
      if (!operation) {
        failures.push(`${example.source}\n  no ${example.method} ${example.path} in the OpenAPI document`)
        continue
      }
      const schema = operation.requestBody?.content?.['application/json']?.schema
      const validate = ajv.compile({ ...schema, components: doc.components })
      if (!validate(example.body)) failures.push(`${example.source}\n  ${ajv.errorsText(validate.errors)}`)
    }
    assert.deepEqual(failures, [], failures.join('\n'))
  })

  it('stays short and leads to every page of docs/, CONTRIBUTING.md and ARCHITECTURE.md', () => {
    assert.ok(
      readme.split('\n').length <= 200,
      `README.md has ${readme.split('\n').length} lines (at most 200: details go to docs/)`
    )
    const links = new Set(
      [...section(readme, 'Documentation').matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((match) => match[1])
    )
    for (const file of [...docFiles, contributingPath, architecturePath])
      assert.ok(
        links.has(path.relative(root, file)),
        `README's Documentation links ${path.relative(root, file)}`
      )
    for (const heading of ['Quick start (five minutes)', 'Install, run, test', 'Documentation'])
      assert.ok(readme.includes(`\n## ${heading}\n`), heading)
  })

  it('refers to nothing outside the repository and states the contract itself', () => {
    for (const file of [readmePath, contributingPath, architecturePath, ...docFiles]) {
      const text = fs.readFileSync(file, 'utf8')
      assert.doesNotMatch(text, /\.\.\/shared|spec\/interface\.md|design\/architecture\.md/, file)
      assert.doesNotMatch(text, /\(interface \d|\binterface \d\.\d|§\s*\d|\((\d\.\d+)(, \d\.\d+)*\)/, file)
      for (const link of text.matchAll(/\]\(((?!https?:|#|mailto:)[^)#]+)(#[^)]*)?\)/g)) {
        assert.ok(
          fs.existsSync(path.resolve(path.dirname(file), link[1])),
          `${path.relative(root, file)} links to ${link[1]}, which does not exist`
        )
      }
      // A link to a part of a page (its own or another Markdown page) leads to one of its headings.
      for (const link of text.matchAll(/\]\(((?!https?:|mailto:)[^)#\s]*)#([^)\s]+)\)/g)) {
        const target = link[1] ? path.resolve(path.dirname(file), link[1]) : file
        if (!target.endsWith('.md')) continue
        assert.ok(
          headingAnchors(target).has(link[2]),
          `${path.relative(root, file)} links to ${link[1]}#${link[2]}, a heading that does not exist`
        )
      }
    }
    const contract = read(path.join(root, 'docs/api-contract.md'))
    for (const rule of [
      'Authorization: Bearer',
      '`id`',
      'milliseconds',
      '"total", "limit", "skip", "data"',
      '404',
      'finalize',
      'webhook'
    ])
      assert.ok(contract.includes(rule), rule)
    assert.match(readme, /\/docs\b/)
    assert.match(readme, /\/openapi\.json/)
  })

  it('lists every test left out on the MongoDB emulator, with the capability it misses, in CONTRIBUTING.md', () => {
    const tests = section(read(contributingPath), 'Tests')
    const rows = tests
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| Test') && !line.startsWith('|---'))
    assert.equal(rows.length, emulatorExclusions.length, rows.join('\n'))
    for (const { title, missing } of emulatorExclusions)
      assert.ok(
        rows.some((row) => row === `| ${title} | ${missing} |`),
        title
      )
  })

  it('names the command that runs the /docs browser test alone, and it selects that test', () => {
    const command = /`npm run mocha -- --grep '([^']+)'`/.exec(section(read(contributingPath), 'Tests'))
    assert.ok(command, 'no npm run mocha -- --grep command')
    const browserTest = fs.readFileSync(path.join(root, 'test/ops/docs-browser.test.ts'), 'utf8')
    const title = /describe\('([^']+)'/.exec(browserTest)![1]
    assert.ok(title.includes(command[1]), `${command[1]} does not select "${title}"`)
  })

  it('states the multi-instance set-up and the scaling plan in docs/deployment.md', () => {
    const deployment = read(path.join(root, 'docs/deployment.md'))
    for (const fact of [
      /both\*\* `MONGODB_URL`.*`REDIS_URL`/s,
      /start-up warns when `MONGODB_URL` is set without `REDIS_URL`/,
      /`compose\.yaml` runs two app instances/,
      /Instances per replica set/,
      /`audit-events` on `\{ facility: 1, at: 1 \}`/,
      /`medical-records` on `\{ facility: 1, patient: 1 \}`/,
      /`webhook-events` \(deliveries\) on `\{ webhook: 1, createdAt: 1 \}`/,
      /Redis sizing/,
      /10×/,
      /100×/,
      /What next/
    ]) {
      assert.match(deployment, fact)
    }
  })
})
