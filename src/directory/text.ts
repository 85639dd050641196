// Text folding for the directory: lower-case, accents removed (NFD + combining marks dropped), split into words.
// The same functions build the index fields of entries and read the words of a query, so both always agree.

/** Lower-case and accent-folded: `Clínica` → `clinica`. */
export const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()

/** Longest word kept in the index (longer words are cut; a query word is cut the same way). */
export const MAX_WORD = 40

/** The folded words of a text, in order (letters and digits; everything else separates words). */
export const words = (text: string | undefined | null): string[] => foldedWords(fold(text ?? ''))

/** The words of an already folded text (`words` without the fold). */
export const foldedWords = (folded: string): string[] => {
  const out: string[] = []
  for (const word of folded.split(/[^\p{L}\p{N}]+/u))
    if (word) out.push(word.length > MAX_WORD ? word.slice(0, MAX_WORD) : word)
  return out
}

/** Every prefix of every word (edge n-grams): `cardio` → c, ca, car, card, cardi, cardio. */
export const prefixes = (list: string[]): string[] => {
  const out = new Set<string>()
  for (const word of list) for (let i = 1; i <= word.length; i++) out.add(word.slice(0, i))
  return [...out]
}

/** How well a word matches an entry: 3 a whole name word, 2 the prefix of a name word, 1 a description word only. */
export type Tier = 1 | 2 | 3
export const TIERS: readonly Tier[] = [3, 2, 1]
/** The indexed term of `word` at `tier` (`3:cardiology`). */
export const tierTerm = (tier: Tier, word: string) => `${tier}:${word}`

/**
 * The search terms of an entry: every prefix of its name's words and every whole word of its description, each
 * once, marked with the best tier it reaches (`3:cardiology`, `2:cardio`, `1:heart`). A query word is then one
 * `$in` over its three tiered terms (all words required: one such condition per word), and one tier alone is an
 * index lookup, so the store's index on `terms` answers both on both engines.
 */
export const termsOf = (name: string, description?: string) => {
  const nameWords = words(name)
  const best = new Map<string, Tier>()
  for (const word of words(description)) best.set(word, 1)
  for (const prefix of prefixes(nameWords)) best.set(prefix, 2)
  for (const word of nameWords) best.set(word, 3)
  return [...best].map(([word, tier]) => tierTerm(tier, word)).sort()
}

/** The original words of `text` whose folded form satisfies `test` (for highlights). */
export const originalWords = (text: string | undefined, test: (folded: string) => boolean): string[] => {
  const found: string[] = []
  for (const original of (text ?? '').split(/[^\p{L}\p{N}\p{M}]+/u)) {
    if (!original) continue
    const folded = fold(original).slice(0, MAX_WORD)
    if (folded && test(folded) && !found.includes(original)) found.push(original)
  }
  return found
}
