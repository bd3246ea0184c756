import type { PhraseExtraction, PhraseMention } from './noun-phrase-extractor.js';

/**
 * The mentions of one chunk that count for the entity graph: proper names, and a common noun phrase only where
 * the chunk mentions it at least `minPhraseRepeats` times. Specificity is measured by burstiness, not by a list of
 * words: a term that names what a passage is about recurs within it, while a generic phrase ("same time", "commercial
 * success", "film director") is used once wherever it appears (Church & Gale, "Poisson mixtures", Natural Language
 * Engineering 1(2), 1995: content words are far burstier than function-like words of the same document frequency).
 * A one-word proper noun that opens a sentence counts only where the chunk also names it inside a sentence: every
 * sentence starts with a capital, and the tagger takes "Shortly", "Born" or "Nonetheless" there for names. The
 * chunk's first sentence is the exception: it usually names what the chunk is about ("Zagreb is the capital …").
 * The stored extraction keeps every mention (AutoKG's keywords read them all); the graph's builders read this view.
 */
export function graphMentions(extraction: PhraseExtraction, minPhraseRepeats: number): PhraseExtraction {
  if (minPhraseRepeats <= 1) return extraction;
  const repeats = new Map<string, number>();
  const inside = new Set<string>();
  const opensSentence = (mention: PhraseMention): boolean => (extraction.sentences[mention.sentence]?.[0] ?? -1) === mention.start;
  for (const mention of extraction.mentions) {
    repeats.set(mention.key, (repeats.get(mention.key) ?? 0) + 1);
    if (!opensSentence(mention)) inside.add(mention.key);
  }
  const mentions = extraction.mentions.filter((mention) =>
    mention.kind === 'proper'
      ? !opensSentence(mention) || mention.sentence === 0 || mention.key.includes(' ') || inside.has(mention.key)
      : (repeats.get(mention.key) ?? 0) >= minPhraseRepeats,
  );
  return mentions.length === extraction.mentions.length ? extraction : { sentences: extraction.sentences, mentions };
}
