// `npm run store:repair -- <file|folder>...`: repairs embedded data files that do not load (a unique value held by
// two documents, unreadable lines), keeping every document and reporting each change (src/store/nedb-repair.ts);
// the audit trail's file renumbers and re-chains a second writer's events in the open (src/audit/repair-chain.ts).
// It takes the data folder's lock first, so it never runs beside a server of that folder. A folder repairs each
// of its `*.db` files. Exit status: 0 repaired or nothing to repair, 1 refused (folder in use, a tampered audit
// chain, no such file), 2 usage.
import fs from 'node:fs'
import path from 'node:path'
import { DataDirError, lockDataDir, type DataLock } from '../store/data-lock'
import { repairDataFile, type RepairResult } from '../store/engines/nedb/repair'
import { ChainRepairRefused, repairAuditChain } from '../audit/repair-chain'
import { auditCollection } from '../services/audit-events/audit-events.class'

const say = (line: string) => process.stdout.write(line + '\n')
const complain = (line: string) => process.stderr.write(line + '\n')

// The data files named: a file as it is, a folder's `*.db` files (not the repair's own `.duplicates-…` files).
const filesOf = (target: string): string[] => {
  const stat = fs.statSync(target)
  if (!stat.isDirectory()) return [target]
  return fs
    .readdirSync(target)
    .filter((name) => /^[^.][^/]*\.db$/.test(name) && !/\.duplicates-.*\.db$/.test(name))
    .sort()
    .map((name) => path.join(target, name))
}

const summary = (file: string, result: RepairResult) => {
  const parts = [`${file}: repaired — ${result.kept} document(s) in the file`]
  if (result.duplicatesFile) parts.push(`${result.setAside} set aside in ${result.duplicatesFile}`)
  if (result.unreadableFile) parts.push(`unreadable lines in ${result.unreadableFile}`)
  parts.push(`the file as it was: ${result.backup}`)
  return parts.join('; ')
}

/** Runs the command with its arguments; resolves with the exit status. */
export const main = (args: string[]): number => {
  const targets = args.filter((arg) => arg !== '--')
  if (targets.length === 0 || targets.some((arg) => arg.startsWith('-'))) {
    complain(
      'Usage: npm run store:repair -- <data file or DATA_DIR> [...]   (stop every server using the folder first)'
    )
    return 2
  }
  const locks = new Map<string, DataLock>()
  try {
    const files: string[] = []
    for (const target of targets) {
      const resolved = path.resolve(target)
      if (!fs.existsSync(resolved)) {
        complain(`${resolved}: no such file or folder`)
        return 1
      }
      const found = filesOf(resolved)
      if (found.length === 0) say(`${resolved}: no data files (*.db) to repair`)
      files.push(...found)
    }
    for (const file of files) {
      const dir = path.dirname(file)
      if (!locks.has(dir)) locks.set(dir, lockDataDir(dir))
      const audit = path.basename(file) === `${auditCollection}.db`
      const result = repairDataFile(file, {
        declared: [{ fieldName: 'id', unique: true }],
        resolve: audit ? (docs) => repairAuditChain(docs) : undefined
      })
      for (const note of result.notes) say(note)
      say(
        result.changed
          ? summary(file, result)
          : `${file}: nothing to repair (${result.kept} document(s); it loads as it is)`
      )
    }
    return 0
  } catch (error) {
    if (error instanceof DataDirError || error instanceof ChainRepairRefused) {
      complain(error.message)
      return 1
    }
    throw error
  } finally {
    for (const lock of locks.values()) lock.release()
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2))
