// Runs the README's quick start against a server and compares every answer with the one the README shows.
// The quick start's ```sh blocks run in order in one bash session (so shell variables carry over), with the
// README's http://localhost:3030 replaced by the server's address; each block's output must match its `# => …`
// lines, where `…` stands for any text. `npm run readme:check` starts a fresh server (development settings, an
// empty data directory) and runs it; test/readme/readme.test.ts does the same inside `npm test`.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const root = path.resolve(__dirname, '../..')
export const readmePath = path.join(root, 'README.md')

export interface Step {
  /** 1-based number of the block in the quick start. */
  index: number
  code: string
  expected: string[]
}

/** The text of one `## ` section of a Markdown document (its heading line excluded). */
export const section = (markdown: string, heading: string): string => {
  const lines = markdown.split('\n')
  const start = lines.findIndex((line) => line.startsWith('## ') && line.slice(3).trim().startsWith(heading))
  if (start < 0) throw new Error(`no "## ${heading}" section`)
  let end = start + 1
  let fence = false
  for (; end < lines.length; end++) {
    if (lines[end].startsWith('```')) fence = !fence
    if (!fence && lines[end].startsWith('## ')) break
  }
  return lines.slice(start + 1, end).join('\n')
}

/** The quick start's checked steps: its ```sh blocks (```shell blocks, such as starting the server, are not run). */
export const quickStartSteps = (markdown: string): Step[] => {
  const text = section(markdown, 'Quick start')
  const steps: Step[] = []
  for (const match of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const code = match[1]
    const expected = code
      .split('\n')
      .filter((line) => line.startsWith('# => '))
      .map((line) => line.slice('# => '.length))
    steps.push({ index: steps.length + 1, code, expected })
  }
  return steps
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Whether `actual` is what `expected` shows, `…` standing for any text. */
export const matches = (expected: string, actual: string) =>
  new RegExp(`^${expected.split('…').map(escape).join('[\\s\\S]*?')}$`).test(actual)

export interface Difference {
  step: number
  code: string
  expected: string
  actual: string
}

/** Runs the steps against `baseUrl` in one bash session; resolves with the differences (none: all answers match). */
export const runQuickStart = async (markdown: string, baseUrl: string): Promise<Difference[]> => {
  const steps = quickStartSteps(markdown)
  if (steps.length === 0) throw new Error('The quick start has no ```sh steps')
  const marker = (index: number) => `@@README-STEP-${index}@@`
  const script = [
    'set -u',
    ...steps.flatMap((step) => [
      `printf '\\n${marker(step.index)}\\n'`,
      step.code.replaceAll('http://localhost:3030', baseUrl)
    ])
  ].join('\n')
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clinic-readme-'))
  const output = await new Promise<string>((resolve, reject) => {
    const bash = spawn('bash', ['-c', script], { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    bash.stdout.on('data', (chunk) => (out += chunk))
    bash.stderr.on('data', (chunk) => (err += chunk))
    bash.on('error', reject)
    bash.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`the quick start failed (exit ${code}):\n${err}\n${out}`))
    )
  })
  const differences: Difference[] = []
  for (const step of steps) {
    const start = output.indexOf(`${marker(step.index)}\n`)
    const next = output.indexOf(`\n${marker(step.index + 1)}\n`)
    const actual = output.slice(start + marker(step.index).length + 1, next < 0 ? undefined : next).trim()
    const expected = step.expected.join('\n')
    if (!matches(expected, actual)) differences.push({ step: step.index, code: step.code, expected, actual })
  }
  return differences
}

export const describeDifferences = (differences: Difference[]) =>
  differences
    .map(
      (d) =>
        `Step ${d.step}:\n${d.code}\n--- README shows:\n${d.expected}\n--- the server answered:\n${d.actual}\n`
    )
    .join('\n')

// `npm run readme:check`: a fresh server (as `npm start` runs it, on an empty data directory), the quick start, a verdict.
if (require.main === module) {
  void (async () => {
    const { startServerProcess } = await import('../helpers/server-process')
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clinic-readme-data-'))
    const server = await startServerProcess({
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      MONGODB_URL: '',
      LOG_LEVEL: 'warn'
    })
    let failed = true
    try {
      const differences = await runQuickStart(fs.readFileSync(readmePath, 'utf8'), server.url)
      failed = differences.length > 0
      console.log(
        failed
          ? describeDifferences(differences)
          : `README quick start: all ${quickStartSteps(fs.readFileSync(readmePath, 'utf8')).length} steps answer as shown`
      )
    } catch (error) {
      console.error(error instanceof Error ? error.message : error)
    } finally {
      await server.kill('SIGTERM')
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
    process.exit(failed ? 1 : 0)
  })()
}
