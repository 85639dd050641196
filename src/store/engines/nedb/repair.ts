// Checking and repairing an embedded engine's data file that does not load: a unique value held by two documents
// (what two servers writing to one DATA_DIR leave behind) or unreadable lines. `diagnoseDataFile` names the
// first problem (file, line, index) for the start-up message; `repairDataFile` (the `npm run store:repair`
// command, src/ops/store-repair.ts) fixes the file without losing a document:
//   1. reads the file as NeDB does (a later line of the same `_id` replaces the earlier one, `$$deleted` removes
//      it, `$$indexCreated`/`$$indexRemoved` declare indexes); unreadable lines are kept aside, verbatim;
//   2. lets the collection's own resolver change documents first (the audit trail renumbers a second writer's
//      events: src/audit/repair-chain.ts);
//   3. for each unique index, in file order, keeps the first document of each value and sets the later ones
//      aside — into `<file>.duplicates-<stamp>.db` (NeDB's format), each reported with its line, index and value;
//   4. copies the file as it was to `<file>.before-repair-<stamp>`, then replaces it (temp file, fsync, rename)
//      with the documents kept and the index declarations.
// Nothing is written when nothing needs repair.
import fs from 'node:fs'
import path from 'node:path'
import { deserialize, serialize } from '@seald-io/nedb/lib/model'
import type { StoreDoc } from '../../contract'
import { replaceFileWithLines } from './commit'

export interface IndexDeclaration {
  fieldName: string
  unique?: boolean
  sparse?: boolean
}

/** A document of the file with the line its last version is on (1-based). */
export interface LineDoc {
  line: number
  doc: StoreDoc
}

export interface ScannedFile {
  /** Documents in the order of their last line. */
  docs: LineDoc[]
  /** Lines that are not a readable document (a torn last line included), verbatim. */
  unreadable: { line: number; text: string }[]
  /** Lines read (not counting empty ones). */
  lines: number
  /** Index declarations of the file, by field name. */
  indexes: Record<string, IndexDeclaration>
}

/** Reads a data file with NeDB's line semantics. */
export const scanDataFile = (file: string): ScannedFile => {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
  const byId = new Map<unknown, LineDoc>()
  const indexes: Record<string, IndexDeclaration> = {}
  const unreadable: ScannedFile['unreadable'] = []
  let lines = 0
  text.split('\n').forEach((raw, index) => {
    if (raw === '') return
    lines++
    const line = index + 1
    let doc: StoreDoc
    try {
      doc = raw.includes('$$date') ? deserialize(raw) : JSON.parse(raw)
    } catch {
      unreadable.push({ line, text: raw })
      return
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      unreadable.push({ line, text: raw })
    } else if (doc._id !== undefined) {
      byId.delete(doc._id)
      if (doc.$$deleted !== true) byId.set(doc._id, { line, doc })
    } else if (doc.$$indexCreated && doc.$$indexCreated.fieldName != null) {
      indexes[doc.$$indexCreated.fieldName] = doc.$$indexCreated
    } else if (typeof doc.$$indexRemoved === 'string') {
      delete indexes[doc.$$indexRemoved]
    } else {
      unreadable.push({ line, text: raw })
    }
  })
  return { docs: [...byId.values()], unreadable, lines, indexes }
}

const dotValue = (doc: StoreDoc, field: string) =>
  field
    .split('.')
    .reduce((value, key) => (value !== null && typeof value === 'object' ? value[key] : undefined), doc)
const keyOf = (value: unknown) =>
  value instanceof Date ? `date:${value.getTime()}` : `${typeof value}:${JSON.stringify(value)}`

// The keys a document holds in a unique index, as NeDB indexes them (each element of an array; a compound index
// on the tuple; nothing for a sparse index's missing field).
const indexKeys = (doc: StoreDoc, index: IndexDeclaration): string[] => {
  const fields = index.fieldName.split(',')
  if (fields.length > 1) {
    const values = fields.map((field) => dotValue(doc, field))
    if (index.sparse && values.every((value) => value === undefined)) return []
    return [values.map((value) => (value === undefined ? 'undefined' : keyOf(value))).join('|')]
  }
  const value = dotValue(doc, fields[0])
  if (value === undefined) return index.sparse ? [] : ['undefined']
  if (Array.isArray(value)) return [...new Set(value.map(keyOf))]
  return [keyOf(value)]
}

const shown = (doc: StoreDoc, index: IndexDeclaration) => {
  const fields = index.fieldName.split(',')
  const value =
    fields.length > 1
      ? Object.fromEntries(fields.map((field) => [field, dotValue(doc, field)]))
      : dotValue(doc, fields[0])
  const text = JSON.stringify(value) ?? 'undefined'
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

export interface Duplicate {
  index: string
  /** The value, as JSON (shortened). */
  value: string
  /** The line of the document that keeps the value. */
  firstLine: number
  /** The line of the later document with the same value. */
  line: number
  doc: LineDoc
}

/** The unique indexes to check: the file's own declarations and `declared` (a service's), by field name. */
const uniqueIndexes = (scan: ScannedFile, declared: IndexDeclaration[]): IndexDeclaration[] => {
  const byName = new Map<string, IndexDeclaration>()
  for (const index of [...Object.values(scan.indexes), ...declared])
    if (index.unique && !byName.has(index.fieldName)) byName.set(index.fieldName, index)
  return [...byName.values()]
}

/** Every later document holding a value a unique index already has, in file order. */
export const findDuplicates = (docs: LineDoc[], indexes: IndexDeclaration[]): Duplicate[] => {
  const duplicates: Duplicate[] = []
  const seen = indexes.map(() => new Map<string, number>())
  const ordered = [...docs].sort((a, b) => a.line - b.line)
  for (const entry of ordered) {
    const clash = indexes.findIndex((index, i) => indexKeys(entry.doc, index).some((key) => seen[i].has(key)))
    if (clash >= 0) {
      const index = indexes[clash]
      const firstLine = indexKeys(entry.doc, index)
        .map((key) => seen[clash].get(key))
        .find((line) => line !== undefined) as number
      duplicates.push({
        index: index.fieldName,
        value: shown(entry.doc, index),
        firstLine,
        line: entry.line,
        doc: entry
      })
      continue
    }
    indexes.forEach((index, i) => {
      for (const key of indexKeys(entry.doc, index)) seen[i].set(key, entry.line)
    })
  }
  return duplicates
}

/** The command that repairs `file` (as the start-up message and the docs give it). */
export const repairCommand = (file: string) => `npm run store:repair -- ${file}`

/**
 * Why `file` does not load, in one line naming the file, the line, the index and what to do — or undefined when the
 * file shows neither a duplicate nor an unreadable line (the original error then stands).
 */
export const diagnoseDataFile = (
  file: string,
  declared: IndexDeclaration[],
  corruptAlertThreshold?: number
): string | undefined => {
  const scan = scanDataFile(file)
  const dir = path.dirname(file)
  const fix = `Stop every server using ${dir}, then run: ${repairCommand(file)}`
  const [duplicate] = findDuplicates(scan.docs, uniqueIndexes(scan, declared))
  if (duplicate) {
    return `Cannot load ${file}: line ${duplicate.line} repeats ${duplicate.index} ${duplicate.value} of line ${duplicate.firstLine} (unique index "${duplicate.index}"), which happens when two servers write to one DATA_DIR. ${fix} (it keeps every document and reports what it changed)`
  }
  const bad = scan.unreadable
  if (
    bad.length > 0 &&
    (corruptAlertThreshold === undefined || bad.length / scan.lines > corruptAlertThreshold)
  ) {
    const share =
      corruptAlertThreshold === undefined
        ? ''
        : `, more than the ${Math.floor(corruptAlertThreshold * 100)}% tolerated`
    return `Cannot load ${file}: line ${bad[0].line} is not a readable document (${bad.length} of ${scan.lines} lines${share}). ${fix} (it sets the unreadable lines aside, verbatim, and keeps every readable document)`
  }
  return undefined
}

/** What a collection's own resolver did before the unique indexes are checked. */
export interface ResolverResult {
  docs: LineDoc[]
  /** Unique indexes the resolver guarantees beyond the file's declarations. */
  unique: IndexDeclaration[]
  /** Report lines. */
  notes: string[]
  /** Whether it changed or added documents. */
  changed: boolean
}

export type Resolver = (docs: LineDoc[]) => ResolverResult

export interface RepairResult {
  changed: boolean
  notes: string[]
  /** Documents in the repaired file, and set aside. */
  kept: number
  setAside: number
  backup?: string
  duplicatesFile?: string
  unreadableFile?: string
}

const stampOf = (date: Date) => date.toISOString().replace(/[:.]/g, '-')

const writeAtomically = (file: string, lines: string[]) => replaceFileWithLines(file, `${file}~repair`, lines)

/** Repairs `file` (see the steps at the top); `declared` adds unique indexes the file does not declare. */
export const repairDataFile = (
  file: string,
  options: { declared?: IndexDeclaration[]; resolve?: Resolver; now?: Date } = {}
): RepairResult => {
  const scan = scanDataFile(file)
  const name = path.basename(file)
  const notes: string[] = []
  let docs = scan.docs
  let extra: IndexDeclaration[] = options.declared ?? []
  let changed = false
  if (options.resolve) {
    const resolved = options.resolve(docs)
    docs = resolved.docs
    extra = [...extra, ...resolved.unique]
    notes.push(...resolved.notes)
    changed = resolved.changed
  }
  const duplicates = findDuplicates(docs, uniqueIndexes(scan, [{ fieldName: '_id', unique: true }, ...extra]))
  const aside = new Set(duplicates.map((duplicate) => duplicate.doc))
  for (const duplicate of duplicates) {
    notes.push(
      `${name}: line ${duplicate.line} (_id ${JSON.stringify(duplicate.doc.doc._id)}) repeats ${duplicate.index} ${duplicate.value} of line ${duplicate.firstLine}: set aside`
    )
  }
  for (const line of scan.unreadable)
    notes.push(`${name}: line ${line.line} is not a readable document: set aside verbatim`)
  const kept = docs.filter((entry) => !aside.has(entry))
  const result: RepairResult = {
    changed: changed || aside.size > 0 || scan.unreadable.length > 0,
    notes,
    kept: kept.length,
    setAside: aside.size
  }
  if (!result.changed) return result

  const stamp = stampOf(options.now ?? new Date())
  result.backup = `${file}.before-repair-${stamp}`
  fs.copyFileSync(file, result.backup, fs.constants.COPYFILE_EXCL)
  if (aside.size > 0) {
    result.duplicatesFile = `${file}.duplicates-${stamp}.db`
    writeAtomically(
      result.duplicatesFile,
      duplicates.map((duplicate) => serialize(duplicate.doc.doc))
    )
  }
  if (scan.unreadable.length > 0) {
    result.unreadableFile = `${file}.unreadable-${stamp}.txt`
    writeAtomically(
      result.unreadableFile,
      scan.unreadable.map((line) => line.text)
    )
  }
  const declarations = Object.values(scan.indexes).map((index) =>
    serialize({
      $$indexCreated: { fieldName: index.fieldName, unique: !!index.unique, sparse: !!index.sparse }
    })
  )
  writeAtomically(file, [...kept.map((entry) => serialize(entry.doc)), ...declarations])
  return result
}
