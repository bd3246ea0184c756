import { Int32List } from '../../../core/int32-list.js';
import { undeflatedBlob, undeflatedBytes } from '../../../core/undeflated-blob.js';
import { InternedStrings } from '../../../core/interned-strings.js';
import { positionsOf } from '../../../core/positions-of.js';

/*
 * The noun phrases of every chunk as the LLM-free keywords read them (cluster-tfidf-keywords.ts), with their strings
 * interned: per chunk its mentions (phrase key, surface, proper or not) and the distinct words it writes in lower case.
 * c-TF-IDF reads corpus-wide figures (a phrase's mentions, whether a word is ever written in lower case), so naming
 * the clusters a new chunk joined needs every chunk's phrases; kept between runs in the blob {@link phraseTableKey},
 * an update reads and parses the new chunks only instead of every chunk's stored extraction and text. Strings are
 * numbered in first use over the chunks in order, so a table updated row by row is the table built afresh from the
 * same chunks, bytes included.
 */

/** One noun-phrase mention: its normalized key and its text as written. */
export interface PhraseOccurrence {
  key: string;
  surface: string;
  /** The tagger's kind: a proper-noun span or a common noun phrase. Without it a phrase counts as common. */
  kind?: 'proper' | 'phrase';
}

/** Store blob of the table. */
export const phraseTableKey = 'autokg:phrase-table';

/** One chunk's row as given to {@link PhraseTableBuilder.add}. */
export interface PhraseRow {
  chunkId: string;
  mentions: readonly PhraseOccurrence[];
  /** Distinct words of the text written in lower case ({@link lowerCaseWords}). */
  words: Iterable<string>;
  /** Whether the mentions are nlp-extract's extraction (1), or the keywords step's own (0). */
  shared: 0 | 1;
}

/** Interned noun phrases of chunks in order; see the file header. */
export interface PhraseTable {
  /** Hash of what the mentions were extracted with; another one makes the table unusable. */
  settings: string;
  chunkIds: string[];
  keys: string[];
  surfaces: string[];
  words: string[];
  /** Chunk c's mentions are `[mentionStart[c], mentionStart[c + 1])`. */
  mentionStart: Int32Array;
  mentionKey: Int32Array;
  mentionSurface: Int32Array;
  mentionProper: Uint8Array;
  /** Chunk c's lower-case words are `wordIds[wordStart[c] … wordStart[c + 1])`. */
  wordStart: Int32Array;
  wordIds: Int32Array;
  /** Per chunk: 1 when its mentions are nlp-extract's. */
  shared: Uint8Array;
}

const lowerCaseWord = /(?<![\p{L}\p{N}'’-])\p{Ll}[\p{Ll}'’-]*/gu;

/** The distinct words a text writes in lower case, a trailing possessive dropped: what tells a common word from a name. */
export function lowerCaseWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.match(lowerCaseWord) ?? []) words.add(word.replace(/['’]s$/u, ''));
  return words;
}

/** Builds a {@link PhraseTable} row by row; rows of a stored table are copied with {@link PhraseTableBuilder.copy}. */
export class PhraseTableBuilder {
  private readonly chunkIds: string[];
  private readonly keys: InternedStrings;
  private readonly surfaces: InternedStrings;
  private readonly words: InternedStrings;
  private readonly mentionStart: Int32List;
  private readonly mentionKey: Int32List;
  private readonly mentionSurface: Int32List;
  private readonly mentionProper: Int32List;
  private readonly wordStart: Int32List;
  private readonly wordIds: Int32List;
  private readonly shared: Int32List;
  /**
   * The numbers here of the strings of the table rows are copied from (−1: not met yet), so that each is interned once;
   * `only` while every string here came from that table, when a string not met yet is new here without a lookup.
   */
  private copied: { table: PhraseTable; keys: Int32Array; surfaces: Int32Array; words: Int32Array; only: boolean } | undefined;

  /** An empty builder, or (`stored`) one holding a table's rows as they are: see {@link PhraseTableBuilder.continuing}. */
  constructor(
    private readonly settings: string,
    stored?: PhraseTable,
  ) {
    this.chunkIds = stored ? stored.chunkIds.slice() : [];
    // The stored strings are distinct and numbered in order: they are looked up only once a row is added.
    this.keys = new InternedStrings(stored ? stored.keys.slice() : []);
    this.surfaces = new InternedStrings(stored ? stored.surfaces.slice() : []);
    this.words = new InternedStrings(stored ? stored.words.slice() : []);
    this.mentionStart = Int32List.of(stored?.mentionStart ?? [0]);
    this.mentionKey = Int32List.of(stored?.mentionKey ?? []);
    this.mentionSurface = Int32List.of(stored?.mentionSurface ?? []);
    this.mentionProper = Int32List.of(stored?.mentionProper ?? []);
    this.wordStart = Int32List.of(stored?.wordStart ?? [0]);
    this.wordIds = Int32List.of(stored?.wordIds ?? []);
    this.shared = Int32List.of(stored?.shared ?? []);
  }

  /**
   * A builder holding `table`'s rows as they are, to add rows after them: the table it builds is the one copying each row
   * would give (strings are interned in the order first met, and the stored table met its own first), without interning
   * every stored mention again (175 ms of an update of 2Wiki that adds a few chunks), and with its number lists copied
   * as blocks (appending them item by item to arrays cost 70 ms of a 1 % add).
   */
  static continuing(table: PhraseTable): PhraseTableBuilder {
    return new PhraseTableBuilder(table.settings, table);
  }

  add(row: PhraseRow): void {
    if (this.copied) this.copied.only = false;
    this.chunkIds.push(row.chunkId);
    for (const mention of row.mentions) this.mention(this.keys.numberOf(mention.key), this.surfaces.numberOf(mention.surface), mention.kind === 'proper' ? 1 : 0);
    this.mentionStart.push(this.mentionKey.length);
    for (const word of row.words) this.wordIds.push(this.words.numberOf(word));
    this.wordStart.push(this.wordIds.length);
    this.shared.push(row.shared);
  }

  /**
   * Appends row `chunk` of `table` as it is. A string is numbered when first met, as `add` does, and by its number in
   * `table` after that; while a builder holds only rows copied from `table`, a string not met yet is new, and is not
   * looked up either (a deletion copies every other row: 150 ms of a 1 % deletion from 2Wiki, hashing each mention's
   * strings).
   */
  copy(table: PhraseTable, chunk: number): void {
    if (this.copied?.table !== table) {
      const unmet = (count: number): Int32Array => new Int32Array(count).fill(-1);
      // Only while the builder holds no string yet will every string here have come from `table`.
      const only = this.keys.values.length === 0 && this.surfaces.values.length === 0 && this.words.values.length === 0;
      this.copied = { table, keys: unmet(table.keys.length), surfaces: unmet(table.surfaces.length), words: unmet(table.words.length), only };
    }
    const { keys, surfaces, words, only } = this.copied;
    this.chunkIds.push(table.chunkIds[chunk] as string);
    for (let at = table.mentionStart[chunk] as number; at < (table.mentionStart[chunk + 1] as number); at++) {
      this.mention(numberVia(keys, table.mentionKey[at] as number, table.keys, this.keys, only), numberVia(surfaces, table.mentionSurface[at] as number, table.surfaces, this.surfaces, only), table.mentionProper[at] as number);
    }
    this.mentionStart.push(this.mentionKey.length);
    for (let at = table.wordStart[chunk] as number; at < (table.wordStart[chunk + 1] as number); at++) this.wordIds.push(numberVia(words, table.wordIds[at] as number, table.words, this.words, only));
    this.wordStart.push(this.wordIds.length);
    this.shared.push(table.shared[chunk] as number);
  }

  build(): PhraseTable {
    return {
      settings: this.settings,
      chunkIds: this.chunkIds,
      keys: this.keys.values,
      surfaces: this.surfaces.values,
      words: this.words.values,
      mentionStart: this.mentionStart.toInt32Array(),
      mentionKey: this.mentionKey.toInt32Array(),
      mentionSurface: this.mentionSurface.toInt32Array(),
      mentionProper: this.mentionProper.toUint8Array(),
      wordStart: this.wordStart.toInt32Array(),
      wordIds: this.wordIds.toInt32Array(),
      shared: this.shared.toUint8Array(),
    };
  }

  private mention(key: number, surface: number, proper: number): void {
    this.mentionKey.push(key);
    this.mentionSurface.push(surface);
    this.mentionProper.push(proper);
  }
}

/**
 * The number in `strings` of string `number` of `from`, remembered in `numbers`; when `fromOnly` (every string of
 * `strings` came from `from`, whose strings are distinct), one not remembered yet is new.
 */
function numberVia(numbers: Int32Array, number: number, from: readonly string[], strings: InternedStrings, fromOnly: boolean): number {
  let numbered = numbers[number] as number;
  if (numbered < 0) {
    numbered = fromOnly ? strings.appendNew(from[number] as string) : strings.numberOf(from[number] as string);
    numbers[number] = numbered;
  }
  return numbered;
}

/** The rows of `table` for the chunks of `chunkIds` it holds, in that order (a chunk it does not hold is left out). */
export function phraseTableRows(table: PhraseTable, chunkIds: readonly string[]): PhraseTable {
  const rowOf = positionsOf(table.chunkIds);
  const builder = new PhraseTableBuilder(table.settings);
  for (const id of chunkIds) {
    const row = rowOf.get(id);
    if (row !== undefined) builder.copy(table, row);
  }
  return builder.build();
}

/** A table of these rows (tests and one-off callers): chunk ids are the row numbers, every row the step's own. */
export function phraseTableOf(phrases: ReadonlyArray<readonly PhraseOccurrence[]>, texts: readonly string[] = []): PhraseTable {
  const builder = new PhraseTableBuilder('');
  phrases.forEach((mentions, chunk) => builder.add({ chunkId: String(chunk), mentions, words: lowerCaseWords(texts[chunk] ?? ''), shared: 0 }));
  return builder.build();
}

const arrays = ['mentionStart', 'mentionKey', 'mentionSurface', 'wordStart', 'wordIds'] as const;
const bytes = ['mentionProper', 'shared'] as const;

/**
 * The table as stored ({@link undeflatedBlob}): a 4-byte length, a JSON header with its strings, then its lists as
 * little-endian int32. Undeflated: deflating 3.6 MB (2Wiki) to 1.6 MB and inflating it again cost an update 75 ms, against
 * about 15 ms to write and read the bytes it saved.
 */
export function encodePhraseTable(table: PhraseTable): Uint8Array {
  const header = Buffer.from(JSON.stringify({ version: 1, settings: table.settings, chunkIds: table.chunkIds, keys: table.keys, surfaces: table.surfaces, words: table.words }), 'utf8');
  const lists = [...arrays.map((name) => table[name]), ...bytes.map((name) => Int32Array.from(table[name]))];
  const body = new Int32Array(lists.length + lists.reduce((sum, list) => sum + list.length, 0));
  lists.forEach((list, index) => (body[index] = list.length));
  let at = lists.length;
  for (const list of lists) {
    body.set(list, at);
    at += list.length;
  }
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return undeflatedBlob([length, header, new Uint8Array(body.buffer, body.byteOffset, body.byteLength)]);
}

/** The stored table, or undefined when it is missing or unreadable (the step then reads every chunk's phrases). */
export function decodePhraseTable(stored: Uint8Array | undefined): PhraseTable | undefined {
  if (stored === undefined || stored.length === 0) return undefined;
  try {
    const raw = undeflatedBytes(stored);
    const headerLength = raw.readUInt32LE(0);
    const header = JSON.parse(raw.subarray(4, 4 + headerLength).toString('utf8')) as Pick<PhraseTable, 'settings' | 'chunkIds' | 'keys' | 'surfaces' | 'words'> & { version: number };
    const numbers = new Int32Array(raw.buffer.slice(raw.byteOffset + 4 + headerLength, raw.byteOffset + raw.byteLength));
    const listCount = arrays.length + bytes.length;
    const lists: Int32Array[] = [];
    let at = listCount;
    for (let list = 0; list < listCount; list++) {
      const size = numbers[list] as number;
      lists.push(numbers.slice(at, at + size));
      at += size;
    }
    const [mentionStart, mentionKey, mentionSurface, wordStart, wordIds, mentionProper, shared] = lists as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
    const table: PhraseTable = {
      settings: header.settings,
      chunkIds: header.chunkIds,
      keys: header.keys,
      surfaces: header.surfaces,
      words: header.words,
      mentionStart,
      mentionKey,
      mentionSurface,
      mentionProper: Uint8Array.from(mentionProper),
      wordStart,
      wordIds,
      shared: Uint8Array.from(shared),
    };
    const chunks = table.chunkIds.length;
    const consistent =
      header.version === 1 &&
      at === numbers.length &&
      mentionStart.length === chunks + 1 &&
      wordStart.length === chunks + 1 &&
      shared.length === chunks &&
      mentionStart[chunks] === mentionKey.length &&
      mentionKey.length === mentionSurface.length &&
      mentionKey.length === mentionProper.length &&
      wordStart[chunks] === wordIds.length &&
      mentionKey.every((id) => id >= 0 && id < table.keys.length) &&
      mentionSurface.every((id) => id >= 0 && id < table.surfaces.length) &&
      wordIds.every((id) => id >= 0 && id < table.words.length);
    return consistent ? table : undefined;
  } catch {
    // An unreadable table only costs reading every chunk's phrases.
    return undefined;
  }
}
