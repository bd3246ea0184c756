import type { NlpExtractConfig } from '../../core/config/config-schema.js';
import type { EntityEditRules } from '../entity-edits/entity-edit-rules.js';
import { normalizePhraseKey, type PhraseExtraction, type PhraseMention } from './noun-phrase-extractor.js';

/**
 * What {@link graphMentions} reads: the `extract.nlp` configuration, and the rules of the entity edits people made
 * (over phrase keys, {@link phraseKeyOfName}).
 */
export type GraphMentionRules = Pick<NlpExtractConfig, 'minPhraseRepeats' | 'mergeShortNames' | 'keepApart'> & { edits?: EntityEditRules };

/** The phrase key of a name as a person wrote it (an entity's title or alias): what fast mode's entity ids hash. */
export function phraseKeyOfName(name: string): string {
  return normalizePhraseKey(name.split(/\s+/));
}

/**
 * The mentions of one chunk that count for the entity graph: proper names, and a common noun phrase only where
 * the chunk mentions it at least `minPhraseRepeats` times. Specificity is measured by burstiness, not by a list of
 * words: a term that names what a passage is about recurs within it, while a generic phrase ("same time", "commercial
 * success", "film director") is used once wherever it appears (Church & Gale, "Poisson mixtures", Natural Language
 * Engineering 1(2), 1995: content words are far burstier than function-like words of the same document frequency).
 * A one-word proper noun that opens a sentence counts only where the chunk also names it inside a sentence: every
 * sentence starts with a capital, and the tagger takes "Shortly", "Born" or "Nonetheless" there for names. The
 * chunk's first sentence is the exception: it usually names what the chunk is about ("Zagreb is the capital …").
 * With `mergeShortNames`, a one-word name used after a longer name ending in it is that name ("Charles Babbage" …
 * "Babbage"), when the chunk holds one such longer name only and `keepApart` does not list the short one: the short
 * form becomes an alias, and `kgrag entities merges` lists and undoes these merges.
 * Then the entity edits: a name merged into another is re-keyed to it, and a name split off is kept apart as above.
 * The stored extraction keeps every mention (AutoKG's keywords read them all); the graph's builders read this view.
 */
export function graphMentions(extraction: PhraseExtraction, rules: GraphMentionRules): PhraseExtraction {
  const filtered = rules.minPhraseRepeats <= 1 ? extraction.mentions : specificMentions(extraction, rules.minPhraseRepeats);
  const keepApart = new Set(rules.keepApart.map((name) => name.toLowerCase()));
  for (const key of rules.edits?.keepApart ?? []) keepApart.add(key);
  const shortened = rules.mergeShortNames ? mergeShortNames(filtered, keepApart) : filtered;
  const mentions = rules.edits && rules.edits.sameAs.size > 0 ? mergedByEdits(shortened, rules.edits.sameAs) : shortened;
  return mentions === extraction.mentions ? extraction : { sentences: extraction.sentences, mentions };
}

/** The mentions with each name a person merged into another re-keyed to that one. */
function mergedByEdits(mentions: PhraseMention[], sameAs: ReadonlyMap<string, string>): PhraseMention[] {
  let changed = false;
  const merged = mentions.map((mention) => {
    const key = sameAs.get(mention.key);
    if (key === undefined) return mention;
    changed = true;
    return { ...mention, key };
  });
  return changed ? merged : mentions;
}

function specificMentions(extraction: PhraseExtraction, minPhraseRepeats: number): PhraseMention[] {
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
  return mentions.length === extraction.mentions.length ? extraction.mentions : mentions;
}

/** Words joining a name to a place or body ("Universidad Autónoma de Guadalajara"). */
const nameConnectors = new Set(['of', 'for', 'de', 'del', 'della', 'di', 'du', 'des', 'la', 'le']);
/** Words that qualify a place rather than start a name: "Northern China" is not a China's full name. */
const placeQualifiers = new Set(['north', 'south', 'east', 'west', 'northern', 'southern', 'eastern', 'western', 'upper', 'lower', 'greater', 'new', 'old', 'central', 'inner', 'outer', 'us', 'uk']);

/**
 * Whether a longer name's last word is a short form of it, as a surname is of a person's name: not a place or body
 * ("King of Bavaria", "University of Louvain", "General Student Committee": a connector or a type cue) and not a
 * qualified place ("North Hollywood").
 */
function shortenable(mention: PhraseMention): boolean {
  if (mention.typeHint !== undefined && mention.typeHint !== 'person') return false;
  const words = mention.key.split(' ');
  return !words.some((word) => nameConnectors.has(word)) && !placeQualifiers.has(words[0] as string);
}

/** The chunk's mentions with each one-word name re-keyed to the one longer name of the chunk that ends in it and came first. */
function mergeShortNames(mentions: PhraseMention[], keepApart: ReadonlySet<string>): PhraseMention[] {
  const longer = new Map<string, { key: string; start: number } | null>();
  for (const mention of mentions) {
    if (mention.kind !== 'proper' || mention.joined || !mention.key.includes(' ') || !shortenable(mention)) continue;
    const last = mention.key.slice(mention.key.lastIndexOf(' ') + 1);
    const known = longer.get(last);
    if (known === undefined) longer.set(last, { key: mention.key, start: mention.start });
    else if (known !== null && known.key !== mention.key) longer.set(last, null);
  }
  if (longer.size === 0) return mentions;
  let changed = false;
  const merged = mentions.map((mention) => {
    if (mention.kind !== 'proper' || mention.key.includes(' ') || keepApart.has(mention.key)) return mention;
    const full = longer.get(mention.key);
    if (!full || full.start >= mention.start) return mention;
    changed = true;
    return { ...mention, key: full.key };
  });
  return changed ? merged : mentions;
}
