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
  const failed: string[] = []
  for (const file of files) {
    const mod = await import(path.join(__dirname, file))
    let result: BenchResult
    try {
      result = await mod.run()
    } catch (error) {
      // One bench that cannot run here (a setting, a limit of the machine) does not stop the others.
      console.error(`\n== ${file} did not run:\n${error instanceof Error ? error.message : String(error)}`)
      failed.push(file)
      continue
    }
    const out = path.join(outDir, `${file.replace(/\.bench\.ts$/, '')}.json`)
    fs.writeFileSync(
      out,
      JSON.stringify({ ...result, at: new Date().toISOString(), node: process.version }, null, 2)
    )
    console.log(
      `\n== ${file}\n${JSON.stringify(result, null, 2)}\n(written to ${path.relative(process.cwd(), out)})`
    )
  }
  if (failed.length > 0) console.error(`\n${failed.length} bench(es) did not run: ${failed.join(', ')}`)
  process.exit(failed.length > 0 ? 1 : 0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
