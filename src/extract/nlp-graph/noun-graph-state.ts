import { inflateRawSync } from 'node:zlib';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import type { ChunkPhrases, NounGraphFit } from './build-noun-graph.js';
import type { TypingCutoff } from './type-entities.js';
import { positionsOf } from '../../core/positions-of.js';

/**
 * What an update of the noun graph between refreshes needs besides the added and removed chunks: the figures fitted
 * at the last refresh, and the counts of every phrase (chunks, surfaces, type hints, kept edges) and every chunk's
 * phrases, so that an update reads the extractions of the changed chunks only. Rebuilt from the corpus alone at a
 * refresh, so it does not depend on the history of updates (a refreshed index equals a fresh build, blobs included).
 */
export interface NounGraphState {
  version: 1;
  /** Hash of the settings it was built with; other settings rebuild the graph. */
  settings: string;
  totalWeight: number;
  totalFrequency: number;
  /** Null for −∞ (no edge survived node pruning at the refresh). */
  threshold: number | null;
  egoKey: string | null;
  typingCutoff: TypingCutoff | null;
  /** Title → type compromise gave it ('' for none), for every name typed so far. */
  typed: Array<[string, string]>;
  /** Per node, in order of first mention: key, proper mentions, surfaces and type hints as [value, count] in first-seen order, kept edges. */
  keys: string[];
  proper: number[];
  surfaces: Array<Array<[string, number]>>;
  typeHints: Array<Array<[string, number]>>;
  finalDegree: number[];
  /** Per entity, the leading chunks its description was taken from when it stopped early, else 0 (`describePhrase`). */
  described: number[];
  /** Per chunk, in corpus order: its distinct phrases `members[memberStart[c] … memberStart[c + 1])`, and whether each pairs up (1) or was capped out (0). */
  chunkIds: string[];
  memberStart: number[];
  members: number[];
  paired: number[];
  /** Multiset hash of the graph's rows (see {@link graphRowHash}): the step's output version. */
  graphHash: number[];
}

/**
 * Four 32-bit lanes of a row's hash, summed over rows: a hash of the whole graph that an update adjusts row by row.
 * Four multiplicative lanes, each mixed at the end, not a cryptographic hash: it tells versions apart, and a build hashes
 * every row (a SHA-1 per row was a second of 2Wiki's build).
 */
export function graphRowHash(row: { kind: 'entity'; entity: EntityRecord } | { kind: 'relation'; relation: RelationRecord }): number[] {
  // A weight goes in as its 64 bits: printing 100,000 floats cost more than hashing them.
  const text = row.kind === 'entity' ? `e:${row.entity.id}:${row.entity.type}` : `r:${row.relation.id}`;
  weightBits[0] = row.kind === 'entity' ? row.entity.chunkIds.length : row.relation.weight;
  const words = [weightWords[0] as number, weightWords[1] as number];
  let a = 0x811c9dc5 | 0;
  let b = 0x9e3779b9 | 0;
  let c = 0x85ebca6b | 0;
  let d = 0xc2b2ae35 | 0;
  for (let at = 0; at < text.length + 2; at++) {
    const code = at < text.length ? text.charCodeAt(at) : (words[at - text.length] as number);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    c = Math.imul(c ^ code, 0x27d4eb2d);
    d = Math.imul(d ^ code, 0x165667b1);
  }
  return [finish(a), finish(b), finish(c), finish(d)];
}

const weightBits = new Float64Array(1);
const weightWords = new Uint32Array(weightBits.buffer);

/** Spreads every bit of a lane over the whole word (an avalanche step). */
function finish(value: number): number {
  let mixed = Math.imul(value ^ (value >>> 15), 0x2c1b3c6d);
  mixed = Math.imul(mixed ^ (mixed >>> 12), 0x297a2d39);
  return (mixed ^ (mixed >>> 15)) >>> 0;
}

/** Adds (sign 1) or removes (sign −1) a row's hash lanes. */
export function addRowHash(total: number[], lanes: readonly number[], sign: 1 | -1): void {
  for (let lane = 0; lane < 4; lane++) total[lane] = ((total[lane] as number) + sign * (lanes[lane] as number)) >>> 0;
}

/** Counts a mention into [value, count] pairs kept in first-seen order (sign −1 takes it out; a count of 0 leaves). */
export function countValue(counts: Array<[string, number]>, value: string, sign: 1 | -1): void {
  const at = counts.findIndex(([known]) => known === value);
  if (at < 0) {
    if (sign > 0) counts.push([value, 1]);
    return;
  }
  const entry = counts[at] as [string, number];
  entry[1] += sign;
  if (entry[1] <= 0) counts.splice(at, 1);
}

/** The state of a freshly built graph (typed entities and relations as written), fitted at a refresh. */
export function fitNounGraphState(
  chunks: readonly ChunkPhrases[],
  fit: NounGraphFit,
  graph: { entities: readonly EntityRecord[]; relations: readonly RelationRecord[] },
  extras: { settings: string; typingCutoff: TypingCutoff | null; typed: ReadonlyMap<string, string> },
): NounGraphState {
  const nodeOf = positionsOf(fit.keys);
  const proper = new Array<number>(fit.keys.length).fill(0);
  const surfaces = fit.keys.map((): Array<[string, number]> => []);
  const typeHints = fit.keys.map((): Array<[string, number]> => []);
  for (const chunk of chunks) {
    for (const mention of chunk.extraction.mentions) {
      const node = nodeOf.get(mention.key) as number;
      if (mention.kind === 'proper') proper[node] = (proper[node] as number) + 1;
      countValue(surfaces[node] as Array<[string, number]>, mention.surface, 1);
      if (mention.typeHint) countValue(typeHints[node] as Array<[string, number]>, mention.typeHint, 1);
    }
  }
  const paired: number[] = [];
  chunks.forEach((_, chunk) => {
    const pairs = new Set(fit.capped[chunk]);
    for (let at = fit.memberStart[chunk] as number; at < (fit.memberStart[chunk + 1] as number); at++) paired.push(pairs.has(fit.members[at] as number) ? 1 : 0);
  });
  const graphHash = [0, 0, 0, 0];
  for (const entity of graph.entities) addRowHash(graphHash, graphRowHash({ kind: 'entity', entity }), 1);
  for (const relation of graph.relations) addRowHash(graphHash, graphRowHash({ kind: 'relation', relation }), 1);
  const { figures } = fit;
  return {
    version: 1,
    settings: extras.settings,
    totalWeight: figures.totalWeight,
    totalFrequency: figures.totalFrequency,
    threshold: Number.isFinite(figures.threshold) ? figures.threshold : null,
    egoKey: figures.egoKey,
    typingCutoff: extras.typingCutoff,
    typed: [...extras.typed].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
    keys: [...fit.keys],
    proper,
    surfaces,
    typeHints,
    finalDegree: Array.from(fit.finalDegree),
    described: Array.from(fit.described),
    chunkIds: chunks.map((chunk) => chunk.chunkId),
    memberStart: Array.from(fit.memberStart),
    members: [...fit.members],
    paired,
    graphHash,
  };
}

/** The state's number lists, stored as 32-bit integers after its strings (JSON parses big number lists slowly). */
const numberLists = ['proper', 'finalDegree', 'described', 'memberStart', 'members', 'paired'] as const;

/**
 * First word of the stored state (little-endian "\xffkgs"). Its first byte is not the start of a raw deflate stream
 * (block type 3 is reserved), which tells it from the deflated state of kgrag before it ({@link decodeDeflatedState}).
 */
const stateMagic = 0x73676bff;

/** The state's big string lists, stored as one UTF-8 text and each string's length (JSON parses them slowly too). */
const stringLists = ['keys', 'chunkIds'] as const;

/**
 * The state as stored: a magic word, the length of a JSON header with the figures, then the string lists (keys, chunk
 * ids, surface values, type-hint values) as one UTF-8 text with each string's length in UTF-16 code units, and the
 * number lists, all as little-endian int32:
 *
 *   u32 magic, u32 headerBytes, header (padded to 4), u32 textEncoding, u32 textBytes, text (padded to 4),
 *   i32 sizes[listCount], i32 lists… (the number lists, surface and hint counts and sizes, the 4 string lists' lengths)
 *
 * The text is UTF-8 (encoding 0) unless a string holds a lone surrogate, which UTF-8 cannot carry: then UTF-16LE (1).
 *
 * Not compressed: an update reads and writes the whole state (3.5 MB for 2Wiki), and deflating it took longer than
 * writing the bytes it saved; parsing 100,000 strings out of JSON took longer than slicing them out of one text.
 */
export function encodeNounGraphState(state: NounGraphState): Uint8Array {
  const flat = (lists: ReadonlyArray<ReadonlyArray<[string, number]>>): { values: string[]; counts: number[]; sizes: number[] } => {
    const values: string[] = [];
    const counts: number[] = [];
    for (const list of lists) {
      for (const [value, count] of list) {
        values.push(value);
        counts.push(count);
      }
    }
    return { values, counts, sizes: lists.map((list) => list.length) };
  };
  const surfaces = flat(state.surfaces);
  const typeHints = flat(state.typeHints);
  const { proper: _p, finalDegree: _f, described: _d, memberStart: _s, members: _m, paired: _a, surfaces: _u, typeHints: _t, keys: _k, chunkIds: _c, ...rest } = state;
  const header = Buffer.from(JSON.stringify(rest), 'utf8');
  const strings = [...stringLists.map((name) => state[name]), surfaces.values, typeHints.values];
  const joined = strings.map((list) => list.join('')).join('');
  const encoding = loneSurrogate.test(joined) ? 1 : 0;
  const text = Buffer.from(joined, encoding === 1 ? 'utf16le' : 'utf8');
  const lists: ReadonlyArray<readonly number[]> = [
    ...numberLists.map((name) => state[name]),
    surfaces.counts,
    surfaces.sizes,
    typeHints.counts,
    typeHints.sizes,
    ...strings.map((list) => list.map((value) => value.length)),
  ];
  const sizes = Int32Array.from(lists, (list) => list.length);
  const body = new Int32Array(lists.reduce((sum, list) => sum + list.length, 0));
  let at = 0;
  for (const list of lists) {
    body.set(list, at);
    at += list.length;
  }
  const bytes = new Uint8Array(8 + padded(header.length) + 8 + padded(text.length) + sizes.byteLength + body.byteLength);
  const words = new DataView(bytes.buffer);
  words.setUint32(0, stateMagic, true);
  words.setUint32(4, header.length, true);
  bytes.set(header, 8);
  let offset = 8 + padded(header.length);
  words.setUint32(offset, encoding, true);
  words.setUint32(offset + 4, text.length, true);
  bytes.set(text, offset + 8);
  offset += 8 + padded(text.length);
  bytes.set(new Uint8Array(sizes.buffer), offset);
  bytes.set(new Uint8Array(body.buffer), offset + sizes.byteLength);
  return bytes;
}

/** A surrogate code unit outside a pair (in `u` mode pairs match as one code point). */
const loneSurrogate = /\p{Cs}/u;

const padded = (length: number): number => length + ((4 - (length % 4)) % 4);

/** The stored state, or undefined when it is missing or unreadable (the step then rebuilds the graph). */
export function decodeNounGraphState(bytes: Uint8Array | undefined): NounGraphState | undefined {
  if (bytes === undefined) return undefined;
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.byteLength < 8 || view.getUint32(0, true) !== stateMagic) return decodeDeflatedState(bytes);
    const headerLength = view.getUint32(4, true);
    const header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, headerLength).toString('utf8')) as Omit<
      NounGraphState,
      (typeof numberLists)[number] | (typeof stringLists)[number] | 'surfaces' | 'typeHints'
    >;
    let offset = 8 + padded(headerLength);
    const encoding = view.getUint32(offset, true);
    const textLength = view.getUint32(offset + 4, true);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset + offset + 8, textLength).toString(encoding === 1 ? 'utf16le' : 'utf8');
    offset += 8 + padded(textLength);
    // An aligned copy of the number lists: a blob read from the store may start at any byte offset.
    const numbers = new Int32Array(bytes.slice(offset).buffer);
    const listCount = numberLists.length + 4 + stringLists.length + 2;
    const { lists, end } = readLists(numbers, listCount);
    const [proper, finalDegree, described, memberStart, members, paired, surfaceCounts, surfaceSizes, hintCounts, hintSizes, keyLengths, chunkIdLengths, surfaceLengths, hintLengths] = lists as [
      number[], number[], number[], number[], number[], number[], number[], number[], number[], number[], number[], number[], number[], number[],
    ];
    let position = 0;
    const sliced = (lengths: readonly number[]): string[] =>
      lengths.map((length) => {
        const value = text.slice(position, position + length);
        position += length;
        return value;
      });
    const keys = sliced(keyLengths);
    const chunkIds = sliced(chunkIdLengths);
    const surfaceValues = sliced(surfaceLengths);
    const hintValues = sliced(hintLengths);
    const state: NounGraphState = {
      ...header,
      keys,
      chunkIds,
      proper,
      finalDegree,
      described,
      memberStart,
      members,
      paired,
      surfaces: nested(surfaceValues, surfaceCounts, surfaceSizes),
      typeHints: nested(hintValues, hintCounts, hintSizes),
    };
    return end === numbers.length && position === text.length && consistent(state) ? state : undefined;
  } catch {
    // An unreadable state only costs a rebuild.
    return undefined;
  }
}

/** `count` lists stored as their sizes and then their values, from the start of `numbers`, and where they end. */
function readLists(numbers: Int32Array, count: number): { lists: number[][]; end: number } {
  const sizes = numbers.subarray(0, count);
  const lists: number[][] = [];
  let at = count;
  for (const size of sizes) {
    const list = new Array<number>(size);
    for (let index = 0; index < size; index++) list[index] = numbers[at + index] as number;
    lists.push(list);
    at += size;
  }
  return { lists, end: at };
}

/** [value, count] lists of each node, from the flat values and counts and each node's share. */
function nested(values: readonly string[], counts: readonly number[], perNode: readonly number[]): Array<Array<[string, number]>> {
  let next = 0;
  return perNode.map((size) => {
    const list: Array<[string, number]> = [];
    for (let end = next + size; next < end; next++) list.push([values[next] as string, counts[next] as number]);
    return list;
  });
}

function consistent(state: NounGraphState): boolean {
  return (
    state.version === 1 &&
    state.keys.length === state.surfaces.length &&
    state.keys.length === state.finalDegree.length &&
    state.memberStart.length === state.chunkIds.length + 1 &&
    state.members.length === state.paired.length &&
    state.graphHash.length === 4
  );
}

/**
 * The state as kgrag stored it before {@link encodeNounGraphState}: deflated, a 4-byte length, a JSON header with every
 * string and figure, then the number lists. Read, so that an index updated by an older kgrag is updated, not refitted.
 */
function decodeDeflatedState(bytes: Uint8Array): NounGraphState | undefined {
  const raw = inflateRawSync(bytes);
  const headerLength = raw.readUInt32LE(0);
  const header = JSON.parse(raw.subarray(4, 4 + headerLength).toString('utf8')) as Omit<NounGraphState, (typeof numberLists)[number] | 'surfaces' | 'typeHints'> & {
    surfaceValues: string[];
    hintValues: string[];
  };
  const numbers = new Int32Array(raw.buffer.slice(raw.byteOffset + 4 + headerLength, raw.byteOffset + raw.byteLength));
  const { lists, end } = readLists(numbers, numberLists.length + 4);
  const [proper, finalDegree, described, memberStart, members, paired, surfaceCounts, surfaceSizes, hintCounts, hintSizes] = lists as [number[], number[], number[], number[], number[], number[], number[], number[], number[], number[]];
  const { surfaceValues, hintValues, ...rest } = header;
  const state: NounGraphState = {
    ...rest,
    proper,
    finalDegree,
    described,
    memberStart,
    members,
    paired,
    surfaces: nested(surfaceValues, surfaceCounts, surfaceSizes),
    typeHints: nested(hintValues, hintCounts, hintSizes),
  };
  return end === numbers.length && consistent(state) ? state : undefined;
}
