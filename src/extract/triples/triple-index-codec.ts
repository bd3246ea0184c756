import { tripleIndexAddition, type FlatIndexLists, type IndexList, type PhraseLookup, type TripleIndex, type TripleIndexRemoval, type TripleRow } from './triple-index.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';

/*
 * A {@link TripleIndex} as one blob, so a query process reads it instead of rebuilding it from every triple
 * (reading the table and normalizing every phrase of 2Wiki's 76,000 triples dominated a cold query). Every
 * section starts at a multiple of 4 bytes; numbers are little-endian as typed arrays are on every platform
 * Node runs on.
 *
 *   u32 magic, version, phrases, facts, chunks
 *   7 string lists (phraseTexts, phraseIds, phraseLabels, factIds, factTexts, factPredicate, chunkIds):
 *     u32 utf8Bytes, i32 byteOffsets[count + 1], utf8 text (padded to 4)
 *   i32 factSubject[facts], factObject[facts]
 *   2 lists of lists (factChunks, phraseChunks): u32 entries, i32 pointers[count + 1], i32 values[entries]
 *   i32 phraseOrder[phrases]: phrase indices by ascending text (JavaScript string order), for `phraseIndex`
 *
 * Decoding is lazy down to single strings: a query reads the few phrases and facts it shows, and finds a
 * phrase by binary search over `phraseOrder`, instead of decoding 390,000 strings and hashing 52,000.
 */

/** A surrogate code unit outside a pair (in `u` mode pairs match as one code point). */
const loneSurrogate = /\p{Cs}/u;
const magic = 0x6b747269; // "ktri"
const version = 2;
const stringFields = ['phraseTexts', 'phraseIds', 'phraseLabels', 'factIds', 'factTexts', 'factPredicate', 'chunkIds'] as const;
/** A string field of a {@link TripleIndex}. */
export type StringField = (typeof stringFields)[number];

class BlobWriter {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  private push(part: Uint8Array): void {
    this.section([part]);
  }

  private section(section: readonly Uint8Array[]): void {
    // A section's parts are copied once, into the blob (an appended string list is the old text and the new strings).
    let bytes = 0;
    for (const part of section) {
      this.parts.push(part);
      bytes += part.byteLength;
    }
    this.size += bytes;
    const padding = (4 - (bytes % 4)) % 4;
    if (padding > 0) {
      this.parts.push(new Uint8Array(padding));
      this.size += padding;
    }
  }

  ints(values: ArrayLike<number>): void {
    this.push(new Uint8Array(Int32Array.from(values).buffer));
  }

  strings(values: readonly string[]): void {
    // The joined text encoded once, not a buffer per string (a full encode of 2Wiki's index has 390,000 strings).
    const joined = values.join('');
    const text = Buffer.from(joined, 'utf8');
    const offsets = new Int32Array(values.length + 1);
    // Every byte ASCII (as many bytes as code units): a string's bytes are its length.
    const ascii = text.byteLength === joined.length;
    values.forEach((value, index) => (offsets[index + 1] = (offsets[index] as number) + (ascii ? value.length : Buffer.byteLength(value, 'utf8'))));
    this.ints([offsets[values.length] as number]);
    this.ints(offsets);
    this.push(text);
  }

  /** A string list as `strings` writes it, from the encoded list before it (offsets and UTF-8) and the strings after. */
  appendedStrings(offsets: Int32Array, text: Uint8Array, values: readonly string[]): void {
    const encoded = values.map((value) => Buffer.from(value, 'utf8'));
    const all = new Int32Array(offsets.length + values.length);
    all.set(offsets);
    const count = offsets.length - 1;
    encoded.forEach((bytes, index) => (all[count + index + 1] = (all[count + index] as number) + bytes.byteLength));
    this.ints([all[all.length - 1] as number]);
    this.push(new Uint8Array(all.buffer));
    this.section([text, ...encoded]);
  }

  /**
   * A string list as `strings` writes it, of the strings of an encoded list (`offsets`, `text`) at `order`, those in
   * `replaced` (by their place in the encoded list) replaced: the kept bytes are copied, a run of consecutive strings
   * at once, and not decoded.
   */
  pickedStrings(offsets: Int32Array, text: Uint8Array, order: ArrayLike<number>, replaced: ReadonlyMap<number, string>): void {
    const encoded = new Map([...replaced].map(([item, value]) => [item, Buffer.from(value, 'utf8')]));
    const out = new Int32Array(order.length + 1);
    for (let position = 0; position < order.length; position++) {
      const item = order[position] as number;
      const bytes = encoded.get(item);
      out[position + 1] = (out[position] as number) + (bytes ? bytes.byteLength : (offsets[item + 1] as number) - (offsets[item] as number));
    }
    const all = new Uint8Array(out[order.length] as number);
    for (let position = 0; position < order.length; ) {
      const item = order[position] as number;
      const bytes = encoded.get(item);
      if (bytes) {
        all.set(bytes, out[position] as number);
        position++;
        continue;
      }
      let end = position + 1;
      while (end < order.length && order[end] === (order[end - 1] as number) + 1 && !encoded.has(order[end] as number)) end++;
      all.set(text.subarray(offsets[item] as number, offsets[(order[end - 1] as number) + 1] as number), out[position] as number);
      position = end;
    }
    this.ints([all.length]);
    this.push(new Uint8Array(out.buffer));
    this.push(all);
  }

  /**
   * Lists as `lists` writes them, from the encoded lists before (`pointers`, `values`) and what each list gains (new
   * lists are numbered after the old ones): the runs of lists that gain nothing are copied in one piece each.
   */
  appendedLists(pointers: Int32Array, values: Int32Array, count: number, gained: ReadonlyMap<number, ReadonlySet<number>>): void {
    const oldCount = pointers.length - 1;
    const gains = [...gained.keys()].sort((a, b) => a - b);
    let extra = 0;
    for (const list of gained.values()) extra += list.size;
    const out = new Int32Array(count + 1);
    const all = new Int32Array((pointers[oldCount] as number) + extra);
    let item = 0;
    let written = 0;
    const copyOld = (until: number): void => {
      // Old lists item…until−1 gain nothing: their values move by the same shift.
      const end = Math.min(until, oldCount);
      if (item >= end) return;
      const shift = written - (pointers[item] as number);
      for (let list = item; list < end; list++) out[list + 1] = (pointers[list + 1] as number) + shift;
      all.set(values.subarray(pointers[item] as number, pointers[end] as number), written);
      written += (pointers[end] as number) - (pointers[item] as number);
      item = end;
    };
    for (const gaining of gains) {
      copyOld(gaining);
      for (; item < gaining; item++) out[item + 1] = written;
      if (item < oldCount) {
        all.set(values.subarray(pointers[item] as number, pointers[item + 1] as number), written);
        written += (pointers[item + 1] as number) - (pointers[item] as number);
      }
      for (const value of gained.get(gaining) as ReadonlySet<number>) all[written++] = value;
      out[++item] = written;
    }
    copyOld(count);
    for (; item < count; item++) out[item + 1] = written;
    this.ints([all.length]);
    this.push(new Uint8Array(out.buffer));
    this.push(new Uint8Array(all.buffer));
  }

  /** Numbers as `ints` writes them, already 32-bit integers (not copied here: `bytes` copies every part). */
  int32s(values: Int32Array): void {
    this.push(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  /** Lists as `lists` writes them, already one after another. */
  flatLists({ pointers, values }: FlatIndexLists): void {
    this.ints([values.length]);
    this.push(new Uint8Array(pointers.buffer, pointers.byteOffset, pointers.byteLength));
    this.push(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  lists(lists: ReadonlyArray<IndexList>): void {
    const pointers = new Int32Array(lists.length + 1);
    lists.forEach((list, index) => (pointers[index + 1] = (pointers[index] as number) + list.length));
    const values = new Int32Array(pointers[lists.length] as number);
    lists.forEach((list, index) => values.set(Array.from(list), pointers[index] as number));
    this.ints([values.length]);
    this.push(new Uint8Array(pointers.buffer));
    this.push(new Uint8Array(values.buffer));
  }

  bytes(): Uint8Array {
    // Not zero-filled first: every byte is written (13 MB for 2Wiki's index).
    return Buffer.concat(this.parts, this.size);
  }
}

/**
 * Encodes `index` (see the format above), or undefined when a text is not well-formed UTF-16 (a lone surrogate
 * would come back as U+FFFD): such an index is rebuilt from the triples instead.
 */
export function encodeTripleIndex(index: TripleIndex): Uint8Array | undefined {
  for (const field of stringFields) if (index[field].some((value) => loneSurrogate.test(value))) return undefined;
  const writer = new BlobWriter();
  writer.ints([magic, version, index.phraseTexts.length, index.factIds.length, index.chunkIds.length]);
  for (const field of stringFields) writer.strings(index[field]);
  writer.ints(index.factSubject);
  writer.ints(index.factObject);
  writer.lists(index.factChunks);
  writer.lists(index.phraseChunks);
  const texts = index.phraseTexts;
  writer.ints(Array.from(texts.keys()).sort((left, right) => byText(texts, left, right)));
  return writer.bytes();
}

/** Phrase order of the encoded index: by text (JavaScript string order), then by index. */
function byText(texts: readonly string[], left: number, right: number): number {
  const a = texts[left] as string;
  const b = texts[right] as string;
  return a < b ? -1 : a > b ? 1 : left - right;
}

/**
 * The encoded index of the rows of `blob`'s index followed by `rows`, which must all be of chunks the index does not
 * hold: byte for byte what {@link encodeTripleIndex} gives for a build over all the rows, but at the cost of the new
 * rows — the old strings, lists and phrase order are copied as they are encoded, not decoded and encoded again. Undefined
 * when `blob` is not an encoded index, a row is of a chunk it holds, or a new text is not well-formed UTF-16 (the
 * caller then builds the index from all the rows).
 */
export function appendTripleRows(blob: Uint8Array, rows: ReadonlyArray<TripleRow>): Uint8Array | undefined {
  const bytes = blob.byteOffset % 4 === 0 ? blob : Uint8Array.from(blob);
  const layout = layoutOf(bytes);
  if (layout === undefined) return undefined;
  const index = new StoredTripleIndex(bytes, layout);
  const { counts } = layout;
  const oldChunks = new Set(index.chunkIds);
  if (rows.some((row) => oldChunks.has(row.chunkId))) return undefined;

  // The facts of the subjects the new rows name, by (subject, object): the only old facts they can meet again.
  const phraseCount = counts.phrases;
  const subjects = new Set<number>();
  for (const row of rows) {
    const subject = index.phraseIndex.get(normalizePhrase(row.subject));
    if (subject !== undefined) subjects.add(subject);
  }
  const factsByPair = new Map<number, number[]>();
  const factSubject = index.factSubject;
  const factObject = index.factObject;
  for (let fact = 0; fact < counts.facts; fact++) {
    const subject = factSubject[fact] as number;
    if (!subjects.has(subject)) continue;
    const key = subject * phraseCount + (factObject[fact] as number);
    const list = factsByPair.get(key);
    if (list) list.push(fact);
    else factsByPair.set(key, [fact]);
  }
  const factPredicate = index.factPredicate;
  const addition = tripleIndexAddition(
    {
      phrases: counts.phrases,
      facts: counts.facts,
      chunks: counts.chunks,
      phraseIndex: index.phraseIndex,
      factOf: (subject, predicate, object) =>
        subject < phraseCount && object < phraseCount ? factsByPair.get(subject * phraseCount + object)?.find((fact) => factPredicate[fact] === predicate) : undefined,
      chunkOf: () => undefined,
    },
    rows,
  );
  const added: Record<StringField, readonly string[]> = {
    phraseTexts: addition.phraseTexts,
    phraseIds: addition.phraseIds,
    phraseLabels: addition.phraseLabels,
    factIds: addition.factIds,
    factTexts: addition.factTexts,
    factPredicate: addition.factPredicate,
    chunkIds: addition.chunkIds,
  };
  for (const field of stringFields) if (added[field].some((value) => loneSurrogate.test(value))) return undefined;

  const phrases = counts.phrases + addition.phraseTexts.length;
  const facts = counts.facts + addition.factIds.length;
  const writer = new BlobWriter();
  writer.ints([magic, version, phrases, facts, counts.chunks + addition.chunkIds.length]);
  for (const field of stringFields) {
    const { offsets, text, count } = layout.strings[field];
    const bounds = index.ints(offsets, count + 1);
    writer.appendedStrings(bounds, new Uint8Array(bytes.buffer, bytes.byteOffset + text, bounds[count] as number), added[field]);
  }
  writer.ints(concatenated(factSubject, addition.factSubject));
  writer.ints(concatenated(factObject, addition.factObject));
  for (const [key, count] of [
    ['factChunks', facts],
    ['phraseChunks', phrases],
  ] as const) {
    const { pointers, values, entries } = layout[key];
    const oldCount = key === 'factChunks' ? counts.facts : counts.phrases;
    writer.appendedLists(index.ints(pointers, oldCount + 1), index.ints(values, entries), count, key === 'factChunks' ? addition.factChunks : addition.phraseChunks);
  }
  writer.ints(mergedPhraseOrder(index, layout, addition.phraseTexts));
  return writer.bytes();
}

/**
 * The encoded index of `blob`'s index after `removal` (see `planTripleChunkRemoval`): byte for byte what
 * {@link encodeTripleIndex} gives for the index `removeTripleChunks` makes, but the kept strings are copied as they are
 * encoded, not decoded and encoded again, and the phrase order is the stored one without the removed phrases (the
 * kept phrases keep their texts). Undefined when `blob` is not an encoded index or a new string is not well-formed
 * UTF-16 (the caller then builds the index from the rows).
 */
export function encodeTripleIndexRemoval(blob: Uint8Array, removal: TripleIndexRemoval): Uint8Array | undefined {
  const bytes = blob.byteOffset % 4 === 0 ? blob : Uint8Array.from(blob);
  const layout = layoutOf(bytes);
  if (layout === undefined) return undefined;
  for (const strings of [removal.phraseLabels, removal.factIds, removal.factTexts]) for (const value of strings.values()) if (loneSurrogate.test(value)) return undefined;
  const index = new StoredTripleIndex(bytes, layout);
  const { phraseOrder, factOrder, newPhrase } = removal;
  const orders: Record<StringField, ArrayLike<number>> = {
    phraseTexts: phraseOrder,
    phraseIds: phraseOrder,
    phraseLabels: phraseOrder,
    factIds: factOrder,
    factTexts: factOrder,
    factPredicate: factOrder,
    chunkIds: removal.chunkOrder,
  };
  const none = new Map<number, string>();
  const replaced: Record<StringField, ReadonlyMap<number, string>> = {
    phraseTexts: none,
    phraseIds: none,
    phraseLabels: removal.phraseLabels,
    factIds: removal.factIds,
    factTexts: removal.factTexts,
    factPredicate: none,
    chunkIds: none,
  };
  const writer = new BlobWriter();
  writer.ints([magic, version, phraseOrder.length, factOrder.length, removal.chunkOrder.length]);
  for (const field of stringFields) {
    const { offsets, text, count } = layout.strings[field];
    const bounds = index.ints(offsets, count + 1);
    writer.pickedStrings(bounds, new Uint8Array(bytes.buffer, bytes.byteOffset + text, bounds[count] as number), orders[field], replaced[field]);
  }
  const factSubject = index.factSubject;
  const factObject = index.factObject;
  const subjects = new Int32Array(factOrder.length);
  const objects = new Int32Array(factOrder.length);
  for (let position = 0; position < factOrder.length; position++) {
    const fact = factOrder[position] as number;
    subjects[position] = newPhrase[factSubject[fact] as number] as number;
    objects[position] = newPhrase[factObject[fact] as number] as number;
  }
  writer.int32s(subjects);
  writer.int32s(objects);
  writer.flatLists(removal.factChunks);
  writer.flatLists(removal.phraseChunks);
  const kept = new Int32Array(phraseOrder.length);
  let next = 0;
  for (const phrase of index.ints(layout.phraseOrder, layout.counts.phrases)) if ((newPhrase[phrase] as number) >= 0) kept[next++] = newPhrase[phrase] as number;
  writer.int32s(kept.subarray(0, next));
  return writer.bytes();
}

function concatenated(first: ArrayLike<number>, second: readonly number[]): Int32Array {
  const all = new Int32Array(first.length + second.length);
  all.set(first);
  all.set(second, first.length);
  return all;
}

/** The stored phrase order with the new phrases (numbered after the old ones) merged in by text. */
function mergedPhraseOrder(index: StoredTripleIndex, layout: Layout, newTexts: readonly string[]): Int32Array {
  const old = index.ints(layout.phraseOrder, layout.counts.phrases);
  const oldText = index.stringAt('phraseTexts');
  const first = layout.counts.phrases;
  const fresh = Array.from(newTexts.keys()).sort((left, right) => byText(newTexts, left, right));
  const merged = new Int32Array(old.length + fresh.length);
  let from = 0;
  let to = 0;
  for (const position of fresh) {
    const text = newTexts[position] as string;
    // The first old phrase whose text sorts after the new one (texts are distinct).
    let low = from;
    let high = old.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (oldText(old[middle] as number) < text) low = middle + 1;
      else high = middle;
    }
    merged.set(old.subarray(from, low), to);
    to += low - from;
    from = low;
    merged[to++] = first + position;
  }
  merged.set(old.subarray(from), to);
  return merged;
}

/**
 * Every string of one field of `index`, decoded at once: what reading all of a stored index's field through its
 * lazy list costs a trap and a decode per string (an update's embedding step lists 128,000 phrase and fact ids).
 */
export function allTripleIndexStrings(index: TripleIndex, field: StringField): readonly string[] {
  return index instanceof StoredTripleIndex ? index.allStrings(field) : index[field];
}

/** The phrase indices by ascending text (JavaScript string order) that a stored index holds; undefined for one built in memory. */
export function tripleIndexPhraseOrder(index: TripleIndex): Int32Array | undefined {
  return index instanceof StoredTripleIndex ? index.phraseOrder() : undefined;
}

/** The phrase, fact and chunk counts of an encoded index, read from its header; undefined for another format or version. */
export function encodedTripleIndexCounts(blob: Uint8Array): { phrases: number; facts: number; chunks: number } | undefined {
  if (blob.byteLength < 20) return undefined;
  const header = new DataView(blob.buffer, blob.byteOffset, 20);
  if (header.getInt32(0, true) !== magic || header.getInt32(4, true) !== version) return undefined;
  return { phrases: header.getInt32(8, true), facts: header.getInt32(12, true), chunks: header.getInt32(16, true) };
}

/** Where a section lies in the blob, found by one pass over the section sizes. */
interface Layout {
  counts: { phrases: number; facts: number; chunks: number };
  strings: Record<StringField, { offsets: number; text: number; count: number }>;
  factSubject: number;
  factObject: number;
  factChunks: { pointers: number; values: number; entries: number };
  phraseChunks: { pointers: number; values: number; entries: number };
  phraseOrder: number;
}

const padded = (bytes: number): number => bytes + ((4 - (bytes % 4)) % 4);

/** Decodes a blob written by {@link encodeTripleIndex}; undefined for another format or version. */
export function decodeTripleIndex(blob: Uint8Array): TripleIndex | undefined {
  // An aligned copy: a blob read from the store may start at any byte offset.
  const bytes = blob.byteOffset % 4 === 0 ? blob : Uint8Array.from(blob);
  const layout = layoutOf(bytes);
  return layout && new StoredTripleIndex(bytes, layout);
}

/** Where the sections of an aligned blob lie, or undefined for another format or version. */
function layoutOf(bytes: Uint8Array): Layout | undefined {
  if (bytes.byteLength < 20) return undefined;
  const int = (offset: number): number => new Int32Array(bytes.buffer, bytes.byteOffset + offset, 1)[0] as number;
  if (int(0) !== magic || int(4) !== version) return undefined;
  const counts = { phrases: int(8), facts: int(12), chunks: int(16) };
  const countOf: Record<StringField, number> = {
    phraseTexts: counts.phrases,
    phraseIds: counts.phrases,
    phraseLabels: counts.phrases,
    factIds: counts.facts,
    factTexts: counts.facts,
    factPredicate: counts.facts,
    chunkIds: counts.chunks,
  };
  let offset = 20;
  const strings = {} as Layout['strings'];
  for (const field of stringFields) {
    const textBytes = int(offset);
    const count = countOf[field];
    strings[field] = { offsets: offset + 4, text: offset + 4 + 4 * (count + 1), count };
    offset += 4 + 4 * (count + 1) + padded(textBytes);
  }
  const factSubject = offset;
  const factObject = factSubject + 4 * counts.facts;
  offset = factObject + 4 * counts.facts;
  const list = (count: number): Layout['factChunks'] => {
    const entries = int(offset);
    const section = { pointers: offset + 4, values: offset + 4 + 4 * (count + 1), entries };
    offset = section.values + 4 * entries;
    return section;
  };
  const factChunks = list(counts.facts);
  const phraseChunks = list(counts.phrases);
  const phraseOrder = offset;
  offset += 4 * counts.phrases;
  if (offset !== bytes.byteLength) return undefined;
  return { counts, strings, factSubject, factObject, factChunks, phraseChunks, phraseOrder };
}

/** A decoded {@link TripleIndex} whose fields are decoded from the blob on first use. */
class StoredTripleIndex implements TripleIndex {
  private readonly decoded = new Map<string, unknown>();

  constructor(
    private readonly bytes: Uint8Array,
    private readonly layout: Layout,
  ) {}

  private once<T>(key: string, decode: () => T): T {
    if (!this.decoded.has(key)) this.decoded.set(key, decode());
    return this.decoded.get(key) as T;
  }

  ints(offset: number, count: number): Int32Array {
    return new Int32Array(this.bytes.buffer, this.bytes.byteOffset + offset, count);
  }

  /**
   * A list of strings decoded one at a time on first access: an array behind a proxy that fills its holes, so
   * `list[i]`, `length`, `map` and iteration work as on the array a rebuilt index has.
   */
  private strings(field: StringField): string[] {
    return this.lazyStrings(field).list;
  }

  /** The string of `field` at an index, decoded on first use: what the lazy list gives, without its proxy's trap. */
  stringAt(field: StringField): (index: number) => string {
    return this.lazyStrings(field).at;
  }

  /** A field's lazy list ({@link strings}) and the function behind it. */
  private lazyStrings(field: StringField): { list: string[]; at: (index: number) => string } {
    return this.once(field, () => {
      const { offsets, text, count } = this.layout.strings[field];
      const bounds = this.ints(offsets, count + 1);
      const utf8 = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + text, bounds[count] as number);
      const decoded = new Array<string | undefined>(count).fill(undefined);
      const at = (index: number): string => {
        let value = decoded[index];
        if (value === undefined) {
          value = utf8.toString('utf8', bounds[index] as number, bounds[index + 1] as number);
          decoded[index] = value;
        }
        return value;
      };
      const list = new Proxy(decoded as string[], {
        get(target, property, receiver) {
          if (typeof property === 'string') {
            const index = Number(property);
            if (Number.isInteger(index) && index >= 0 && index < count && String(index) === property) return at(index);
          }
          return Reflect.get(target, property, receiver) as unknown;
        },
      });
      return { list, at };
    });
  }

  /** The whole list of a field as a plain array (see {@link allTripleIndexStrings}). */
  allStrings(field: StringField): readonly string[] {
    return this.once(`${field}:all`, () => {
      const { offsets, text, count } = this.layout.strings[field];
      const bounds = this.ints(offsets, count + 1);
      const utf8 = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + text, bounds[count] as number);
      const whole = utf8.toString('utf8');
      // Valid UTF-8 decodes to as many code units as bytes only when every byte is ASCII: then byte offsets are string offsets.
      if (whole.length === utf8.byteLength) return Array.from({ length: count }, (_, index) => whole.slice(bounds[index], bounds[index + 1]));
      return Array.from({ length: count }, (_, index) => utf8.toString('utf8', bounds[index] as number, bounds[index + 1] as number));
    });
  }

  private lists(key: 'factChunks' | 'phraseChunks', count: number): Int32Array[] {
    return this.once(key, () => {
      const { pointers, values, entries } = this.layout[key];
      const starts = this.ints(pointers, count + 1);
      const all = this.ints(values, entries);
      return Array.from({ length: count }, (_, index) => all.subarray(starts[index] as number, starts[index + 1] as number));
    });
  }

  get phraseTexts(): readonly string[] {
    return this.strings('phraseTexts');
  }
  get phraseIds(): readonly string[] {
    return this.strings('phraseIds');
  }
  get phraseLabels(): readonly string[] {
    return this.strings('phraseLabels');
  }
  /** The stored phrase order ({@link tripleIndexPhraseOrder}). */
  phraseOrder(): Int32Array {
    return this.once('phraseOrder', () => this.ints(this.layout.phraseOrder, this.layout.counts.phrases));
  }
  get phraseIndex(): PhraseLookup {
    return this.once('phraseIndex', () => {
      const order = this.phraseOrder();
      const textAt = this.lazyStrings('phraseTexts').at;
      return {
        get(text: string): number | undefined {
          let low = 0;
          let high = order.length - 1;
          while (low <= high) {
            const middle = (low + high) >> 1;
            const phrase = order[middle] as number;
            const candidate = textAt(phrase);
            if (candidate === text) return phrase;
            if (candidate < text) low = middle + 1;
            else high = middle - 1;
          }
          return undefined;
        },
      };
    });
  }
  get factIds(): readonly string[] {
    return this.strings('factIds');
  }
  get factTexts(): readonly string[] {
    return this.strings('factTexts');
  }
  get factPredicate(): readonly string[] {
    return this.strings('factPredicate');
  }
  get chunkIds(): readonly string[] {
    return this.strings('chunkIds');
  }
  get factSubject(): Int32Array {
    return this.once('factSubject', () => this.ints(this.layout.factSubject, this.layout.counts.facts));
  }
  get factObject(): Int32Array {
    return this.once('factObject', () => this.ints(this.layout.factObject, this.layout.counts.facts));
  }
  get factChunks(): ReadonlyArray<IndexList> {
    return this.lists('factChunks', this.layout.counts.facts);
  }
  get phraseChunks(): ReadonlyArray<IndexList> {
    return this.lists('phraseChunks', this.layout.counts.phrases);
  }
}
