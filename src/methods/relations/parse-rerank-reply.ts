import { parseJsonLoose } from '../../providers/llm/parse-json-loose.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';

/** What {@link parseRerankReply} read from a rerank reply. */
export interface ParsedRerankReply {
  /** Chosen candidates as 0-based positions in the prompt's list (local id − 1), in the order returned, distinct. */
  selected: number[];
  /** How the reply was read: its JSON list, or, when it had none, its lines that carry `[n]`. */
  format: 'json' | 'lines';
  /** Entries resolved by their `[n]` id (or a bare number). */
  byId: number;
  /** Entries resolved by matching their text to a candidate. */
  byText: number;
  /** Ids outside 1..N (ignored unless their text matched a candidate). */
  unknownIds: number;
  /** Entries that named no candidate at all, by id or by text. */
  unmatched: number;
  /** Entries naming a candidate already chosen. */
  duplicates: number;
  /** The model's `thought_process`, when it gave one. */
  thoughtProcess?: string;
}

/** Least token overlap (Dice coefficient) for a line to be taken as a candidate's text. */
export const minTextMatchDice = 0.6;

const bracketId = /\[\s*(\d+)\s*\]/;
const bareId = /^\s*(\d+)\s*[.):]?\s*$/;

function tokens(text: string): string[] {
  return normalizePhrase(text).split(' ').filter((token) => token.length > 0);
}

function dice(left: readonly string[], right: ReadonlySet<string>): number {
  const distinct = new Set(left);
  if (distinct.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const token of distinct) if (right.has(token)) shared++;
  return (2 * shared) / (distinct.size + right.size);
}

/** Whether the whole reply is one JSON value (no prose around it). */
function isWholeJson(text: string): boolean {
  try {
    JSON.parse(text.trim());
    return true;
  } catch {
    return false;
  }
}

/**
 * The JSON list of chosen lines in a parsed reply: `useful_relationships`, the successor's `useful_relations`,
 * or the value itself when it is a list of strings or the whole reply (a loose parse finds `[3]` in the
 * prose line "[3] Euler was born in Basel", which is a line to read, not a list).
 */
function chosenList(value: unknown, text: string): { items: unknown[]; thoughtProcess?: string } | undefined {
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string') || isWholeJson(text) ? { items: value } : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const items = record.useful_relationships ?? record.useful_relations ?? record.relationships;
  if (!Array.isArray(items)) return undefined;
  const thought = record.thought_process;
  return typeof thought === 'string' ? { items, thoughtProcess: thought } : { items };
}

/**
 * Reads the candidates an LLM chose from the rerank reply `{thought_process, useful_relationships: ["[id] text",
 * …]}`. An entry is resolved by its `[n]` id when 1 ≤ n ≤ N (the notebook's parse); failing that (no id, or
 * an unknown one) by its text, HippoRAG `_correct_line` style: the candidate whose normalized text equals
 * the entry's, else the one sharing the most words with it (Dice ≥ {@link minTextMatchDice}, ties to the
 * lower id). A reply that is not JSON, or has no list, is read line by line for `[n]` ids. Never throws.
 */
export function parseRerankReply(text: string, candidateTexts: readonly string[]): ParsedRerankReply {
  const parsed = parseJsonLoose(text);
  const list = parsed.ok ? chosenList(parsed.value, text) : undefined;
  const format: ParsedRerankReply['format'] = list ? 'json' : 'lines';
  const items: unknown[] = list ? list.items : text.split('\n').filter((line) => bracketId.test(line));
  const result: ParsedRerankReply = { selected: [], format, byId: 0, byText: 0, unknownIds: 0, unmatched: 0, duplicates: 0 };
  if (list?.thoughtProcess !== undefined) result.thoughtProcess = list.thoughtProcess;

  const normalized = candidateTexts.map((candidate) => normalizePhrase(candidate));
  const exact = new Map<string, number>();
  normalized.forEach((key, position) => {
    if (!exact.has(key)) exact.set(key, position);
  });
  const tokenSets = normalized.map((key) => new Set(key.split(' ').filter((token) => token.length > 0)));
  const byText = (line: string): number | undefined => {
    const key = normalizePhrase(line);
    if (key.length === 0) return undefined;
    const found = exact.get(key);
    if (found !== undefined) return found;
    const words = tokens(line);
    let best: number | undefined;
    let bestScore = minTextMatchDice;
    tokenSets.forEach((set, position) => {
      const score = dice(words, set);
      if (score > bestScore || (score === bestScore && best === undefined)) {
        best = position;
        bestScore = score;
      }
    });
    return best;
  };

  const choose = (position: number): void => {
    if (result.selected.includes(position)) result.duplicates++;
    else result.selected.push(position);
  };
  const count = candidateTexts.length;
  for (const item of items) {
    let id: number | undefined;
    let rest = '';
    if (typeof item === 'number' && Number.isInteger(item)) id = item;
    else if (typeof item === 'string') {
      const bracket = bracketId.exec(item);
      const bare = bracket ? null : bareId.exec(item);
      const match = bracket ?? bare;
      if (match) id = Number(match[1]);
      rest = bracket ? item.replace(bracketId, ' ') : bare ? '' : item;
    } else {
      result.unmatched++;
      continue;
    }
    if (id !== undefined && id >= 1 && id <= count) {
      result.byId++;
      choose(id - 1);
      continue;
    }
    if (id !== undefined) result.unknownIds++;
    const position = byText(rest);
    if (position === undefined) {
      result.unmatched++;
      continue;
    }
    result.byText++;
    choose(position);
  }
  return result;
}
