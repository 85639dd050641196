// Repairing the audit trail's file after two writers (two servers on one DATA_DIR): each kept its own copy of the
// chain's tail, so after the last common event the file holds two chains — both genuine, both numbered from the
// same `seq` — and the unique index on `seq` refuses the load. The repair keeps every event, hides nothing:
//   1. the main chain is followed in `seq` order from the oldest event; where it forks, the branch that runs
//      longer wins (the earlier line on a tie); every event off it belongs to the other writer(s);
//   2. every event is checked as verify checks it — its hash recomputed, and linked to its predecessor (on the
//      main chain or on its own branch). If one does not check, that is not what two writers leave: the repair is
//      refused and nothing is changed (an edited or removed event must stay visible);
//   3. a `store-repair` event is appended after the main chain's last event, naming the other writer's events
//      (`ids`) and their original numbers (`subject`); then those events follow it, renumbered and re-chained
//      (new `seq`, `prevHash`, `hash`; every other field — `at` included — as it was). So verify answers intact,
//      and the trail itself says which events were re-chained, when and from which numbers; the file as it was
//      is kept next to it (`.before-repair-<stamp>`) with their original hashes.
import { newId } from '../store'
import type { LineDoc, ResolverResult } from '../store/engines/nedb/repair'
import { GENESIS_HASH, hashEvent, type AuditEvent } from './chain'

export class ChainRepairRefused extends Error {}

const range = (seqs: number[]) => (seqs.length === 1 ? `${seqs[0]}` : `${seqs[0]}–${seqs[seqs.length - 1]}`)

/** Resolves duplicate `seq`s of the audit trail's file (see above); throws ChainRepairRefused when it must not. */
export const repairAuditChain = (docs: LineDoc[], now = Date.now()): ResolverResult => {
  const unique = [{ fieldName: 'seq', unique: true }]
  const events = docs.filter((entry) => typeof entry.doc.seq === 'number')
  const bySeq = new Map<number, LineDoc[]>()
  for (const entry of events) {
    const group = bySeq.get(entry.doc.seq) ?? []
    group.push(entry)
    bySeq.set(entry.doc.seq, group)
  }
  if ([...bySeq.values()].every((group) => group.length === 1))
    return { docs, unique, notes: [], changed: false }
  const seqs = [...bySeq.keys()].sort((a, b) => a - b)
  for (const group of bySeq.values()) group.sort((a, b) => a.line - b.line)

  // How far each event's branch runs (itself and its longest line of successors), from the last seq down.
  const depth = new Map<LineDoc, number>()
  for (let i = seqs.length - 1; i >= 0; i--) {
    const next = bySeq.get(seqs[i] + 1) ?? []
    for (const entry of bySeq.get(seqs[i])!) {
      const children = next.filter((child) => child.doc.prevHash === entry.doc.hash)
      depth.set(entry, 1 + Math.max(0, ...children.map((child) => depth.get(child)!)))
    }
  }
  const main: LineDoc[] = []
  for (const seq of seqs) {
    const previous = main[main.length - 1]
    if (previous && seq !== previous.doc.seq + 1) break
    const group = bySeq.get(seq)!
    const candidates = previous ? group.filter((entry) => entry.doc.prevHash === previous.doc.hash) : group
    if (candidates.length === 0) break
    main.push(candidates.reduce((best, entry) => (depth.get(entry)! > depth.get(best)! ? entry : best)))
  }
  const onMain = new Set(main)
  const others = events
    .filter((entry) => !onMain.has(entry))
    .sort((a, b) => a.doc.seq - b.doc.seq || a.line - b.line)

  // Every event as verify checks it: its own hash, and its link to a predecessor of the main chain or its branch.
  const hashes = new Set(events.map((entry) => `${entry.doc.seq}:${entry.doc.hash}`))
  const firstPrev = main[0]?.doc.prevHash ?? GENESIS_HASH
  for (const entry of [...main, ...others]) {
    const doc = entry.doc
    const intact = typeof doc.hash === 'string' && hashEvent(doc) === doc.hash
    const linked =
      onMain.has(entry) ||
      hashes.has(`${doc.seq - 1}:${doc.prevHash}`) ||
      (doc.seq === main[0].doc.seq && doc.prevHash === firstPrev)
    if (!intact || !linked) {
      throw new ChainRepairRefused(
        `audit-events.db: the event on line ${entry.line} (id ${doc.id}, seq ${doc.seq}) ${intact ? 'follows no event of the file' : 'does not match its hash'}: it was changed, or an event before it removed — not what two writers leave. Nothing was changed: keep the file as evidence and restore the data folder from a backup`
      )
    }
  }

  // The repair event, then the other writer's events renumbered and re-chained after the main chain.
  const tail = main[main.length - 1].doc
  const originalSeqs = others.map((entry) => entry.doc.seq as number)
  const forkedAfter = originalSeqs.reduce((low, seq) => Math.min(low, seq), Infinity) - 1
  const repairId = newId()
  const repair: Record<string, unknown> = {
    at: now,
    actor: null,
    subject: `store:repair re-chained ${others.length} event(s) of a second writer after seq ${tail.seq}, originally seq ${range(originalSeqs)} (forked after seq ${forkedAfter})`,
    action: 'store-repair',
    service: 'audit-events',
    ids: others.map((entry) => entry.doc.id),
    outcome: 'allowed',
    status: 200,
    id: repairId,
    _id: repairId,
    seq: tail.seq + 1,
    prevHash: tail.hash
  }
  repair.hash = hashEvent(repair)
  let previous = repair as unknown as AuditEvent
  const rechained: LineDoc[] = others.map((entry) => {
    const doc: Record<string, unknown> = { ...entry.doc, seq: previous.seq + 1, prevHash: previous.hash }
    doc.hash = hashEvent(doc)
    previous = doc as unknown as AuditEvent
    return { line: entry.line, doc }
  })
  const lastLine = docs.reduce((last, entry) => Math.max(last, entry.line), 0)
  const notes = [
    `audit-events.db: ${others.length} event(s) of a second writer shared seq ${range(originalSeqs)} with the chain (forked after seq ${forkedAfter}); each checked against its hash, then renumbered seq ${range(rechained.map((entry) => entry.doc.seq))} after a store-repair event (seq ${repair.seq}, id ${repairId}) and re-chained:`,
    ...others.map((entry, i) => `  id ${entry.doc.id}: seq ${entry.doc.seq} -> ${rechained[i].doc.seq}`)
  ]
  const kept = docs.filter((entry) => !others.includes(entry))
  return {
    docs: [
      ...kept,
      { line: lastLine + 1, doc: repair },
      ...rechained.map((entry, i) => ({ line: lastLine + 2 + i, doc: entry.doc }))
    ],
    unique,
    notes,
    changed: true
  }
}
