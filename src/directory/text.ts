// Text folding for the directory: lower-case, accents removed (NFD + combining marks dropped), split into words.
// The same functions build the index fields of entries and read the words of a query, so both always agree.

/** Lower-case and accent-folded: `Clínica` → `clinica`. */
export const fold = (text: string) => text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase()

/** Longest word kept in the index (longer words are cut; a query word is cut the same way). */
export const MAX_WORD = 40

/** The folded words of a text, in order (letters and digits; everything else separates words). */
export const words = (text: string | undefined | null): string[] =>
  fold(text ?? '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word.slice(0, MAX_WORD))

/** Every prefix of every word (edge n-grams): `cardio` → c, ca, car, card, cardi, cardio. */
export const prefixes = (list: string[]): string[] => {
  const out = new Set<string>()
  for (const word of list) for (let i = 1; i <= word.length; i++) out.add(word.slice(0, i))
  return [...out]
}

/**
 * The search terms of an entry: the prefixes of its name's words and the whole words of its description.
 * A query word is looked up as one term, so the store's index on `terms` answers it on both engines.
 */
export const termsOf = (name: string, description?: string) => [...new Set([...prefixes(words(name)), ...words(description)])].sort()

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
