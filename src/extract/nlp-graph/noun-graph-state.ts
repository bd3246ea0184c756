import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import type { ChunkPhrases, NounGraphFit } from './build-noun-graph.js';
import type { TypingCutoff } from './type-entities.js';

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
  const nodeOf = new Map(fit.keys.map((key, index) => [key, index]));
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
 * The state as stored, deflated: a 4-byte length, a JSON header with every string and figure (surfaces and type hints
 * as flat lists of values with their counts and each node's share), then the number lists as little-endian int32.
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
  const { proper: _p, finalDegree: _f, described: _d, memberStart: _s, members: _m, paired: _a, surfaces: _u, typeHints: _t, ...rest } = state;
  const header = Buffer.from(JSON.stringify({ ...rest, surfaceValues: surfaces.values, hintValues: typeHints.values }), 'utf8');
  const lists = [...numberLists.map((name) => state[name]), surfaces.counts, surfaces.sizes, typeHints.counts, typeHints.sizes];
  const sizes = Int32Array.from(lists, (list) => list.length);
  const body = new Int32Array(lists.reduce((sum, list) => sum + list.length, 0));
  let at = 0;
  for (const list of lists) {
    body.set(list, at);
    at += list.length;
  }
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  // The fastest level: the state is rewritten on every update.
  return deflateRawSync(Buffer.concat([length, header, Buffer.from(sizes.buffer), Buffer.from(body.buffer, body.byteOffset, body.byteLength)]), { level: 1 });
}

/** The stored state, or undefined when it is missing or unreadable (the step then rebuilds the graph). */
export function decodeNounGraphState(bytes: Uint8Array | undefined): NounGraphState | undefined {
  if (bytes === undefined) return undefined;
  try {
    const raw = inflateRawSync(bytes);
    const headerLength = raw.readUInt32LE(0);
    const header = JSON.parse(raw.subarray(4, 4 + headerLength).toString('utf8')) as Omit<NounGraphState, (typeof numberLists)[number] | 'surfaces' | 'typeHints'> & {
      surfaceValues: string[];
      hintValues: string[];
    };
    const listCount = numberLists.length + 4;
    const numbers = new Int32Array(raw.buffer.slice(raw.byteOffset + 4 + headerLength, raw.byteOffset + raw.byteLength));
    const sizes = numbers.subarray(0, listCount);
    const lists: number[][] = [];
    let at = listCount;
    for (const size of sizes) {
      const list = new Array<number>(size);
      for (let index = 0; index < size; index++) list[index] = numbers[at + index] as number;
      lists.push(list);
      at += size;
    }
    const nested = (values: readonly string[], counts: readonly number[], perNode: readonly number[]): Array<Array<[string, number]>> => {
      let next = 0;
      return perNode.map((size) => {
        const list: Array<[string, number]> = [];
        for (let end = next + size; next < end; next++) list.push([values[next] as string, counts[next] as number]);
        return list;
      });
    };
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
    const consistent =
      state.version === 1 &&
      at === numbers.length &&
      state.keys.length === state.surfaces.length &&
      state.keys.length === state.finalDegree.length &&
      state.memberStart.length === state.chunkIds.length + 1 &&
      state.members.length === state.paired.length &&
      state.graphHash.length === 4;
    return consistent ? state : undefined;
  } catch {
    // An unreadable state only costs a rebuild.
    return undefined;
  }
}
