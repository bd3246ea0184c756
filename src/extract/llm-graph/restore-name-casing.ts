import type { ExtractedGraph } from './extracted-graph.js';
import { escapeRegExp } from '../../text/escape-reg-exp.js';

/** Whether a name is written in capitals only ("KESTER WEIR BRIDGE"), as GraphRAG's prompts teach models to. */
export function isAllCapitals(name: string): boolean {
  return /\p{Lu}/u.test(name) && !/\p{Ll}/u.test(name);
}

/** Words written in lower case inside a name ("Flood of 1990", "Bank of England"), unless first. */
const lowerCaseWords: ReadonlySet<string> = new Set(['of', 'the', 'and', 'on', 'in', 'at', 'for', 'to', 'a', 'an', 'by', 'upon', 'de', 'la', 'van', 'von']);

/**
 * A capitalized name the chunk never writes as a whole ("JUDITH ANN MARLE" from "Judith Ann, daughter of
 * … Marle"): each word takes its mixed-case spelling in the chunk, capitalized ones preferred, function
 * words in lower case after the first. If some word never appears in mixed case ("BBC"), the name stays as
 * written: half-restored names read worse than capitals.
 */
function restoreWordByWord(name: string, text: string): string {
  const restoredWords: string[] = [];
  for (const [index, word] of name.trim().split(/\s+/u).entries()) {
    const lower = word.toLowerCase();
    if (index > 0 && lowerCaseWords.has(lower)) {
      restoredWords.push(lower);
      continue;
    }
    if (!/\p{L}/u.test(word)) {
      restoredWords.push(word);
      continue;
    }
    const spelling = chunkSpelling(word, text, true);
    if (spelling === undefined) return name;
    restoredWords.push(spelling);
  }
  return restoredWords.join(' ');
}

/**
 * The chunk's mixed-case spelling of a word or phrase (whitespace-insensitive), capitalized if it is not
 * already. With `asPrefix`, a longer word lends its casing too ("FLOOD" from "floods").
 */
function chunkSpelling(phrase: string, text: string, asPrefix = false): string | undefined {
  const words = phrase.trim().split(/\s+/u).map(escapeRegExp);
  const end = asPrefix ? '' : '(?![\\p{L}\\p{N}])';
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${words.join('\\s+')}${end}`, 'giu');
  let fallback: string | undefined;
  for (const match of text.matchAll(pattern)) {
    if (isAllCapitals(match[0]) || (asPrefix && isAllCapitals(wordAt(text, match.index)))) continue;
    const spelling = match[0].replace(/\s+/gu, ' ');
    if (/^\p{Lu}/u.test(spelling)) return spelling;
    // Mid-sentence "the Quay" or "flood of 1947": a name still starts with a capital.
    fallback ??= spelling.charAt(0).toUpperCase() + spelling.slice(1);
  }
  return fallback;
}

/** The whole word starting at `index`: "KESTERMOUTH" must not lend "Kester" its capitals, nor "Kestermouth" lend them away. */
function wordAt(text: string, index: number): string {
  return /^[\p{L}\p{N}]+/u.exec(text.slice(index, index + 64))?.[0] ?? '';
}

/**
 * Gives capitalized entity names back the casing their chunk writes them in: GraphRAG's tuple prompt shows
 * names in capitals, so models answer "KESTER WEIR BRIDGE" for "Kester Weir Bridge", and titles shown to
 * users and to the report and answer prompts read as shouting. The first case-insensitive occurrence in
 * the chunk (whitespace may differ) that is not itself in capitals and starts with a capital wins, else the
 * first mixed-case one with its first letter capitalized ("the Quay" → "The Quay"). A name the chunk never
 * writes whole — one the model composed — is restored word by word, or kept as written when a word ("BBC")
 * never appears in mixed case. Relationship ends need no change: merging compares names case-insensitively.
 */
export function restoreNameCasing(graph: ExtractedGraph, text: string): ExtractedGraph {
  const restored = new Map<string, string>();
  const restore = (name: string): string => {
    if (!isAllCapitals(name)) return name;
    const known = restored.get(name);
    if (known !== undefined) return known;
    const found = chunkSpelling(name, text) ?? restoreWordByWord(name, text);
    restored.set(name, found);
    return found;
  };
  return { entities: graph.entities.map((entity) => ({ ...entity, name: restore(entity.name) })), relations: graph.relations };
}
