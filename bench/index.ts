// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line), prints each result
// and writes it to bench/results/<name>.json. Figures are ratios against a baseline measured in the same run.
import fs from 'node:fs'
import path from 'node:path'

export interface BenchResult {
  name: string
  [key: string]: unknown
}

const main = async () => {
  const only = process.argv.slice(2)
  const files = fs
    .readdirSync(__dirname)
    .filter((file) => file.endsWith('.bench.ts'))
    .filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)))
    .sort()
  const outDir = path.join(__dirname, 'results')
  fs.mkdirSync(outDir, { recursive: true })
  for (const file of files) {
    const mod = await import(path.join(__dirname, file))
    const result: BenchResult = await mod.run()
    const out = path.join(outDir, `${file.replace(/\.bench\.ts$/, '')}.json`)
    fs.writeFileSync(
      out,
      JSON.stringify({ ...result, at: new Date().toISOString(), node: process.version }, null, 2)
    )
    console.log(
      `\n== ${file}\n${JSON.stringify(result, null, 2)}\n(written to ${path.relative(process.cwd(), out)})`
    )
  }
  process.exit(0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
