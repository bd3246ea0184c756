import type { NlpExtractConfig } from '../../core/config/config-schema.js';
import { contentId } from '../../core/ids.js';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import {
  type ChunkPhrases,
  createSentenceLookup,
  describePhrase,
  maxRelationChunks,
  type MentionSentence,
  mostCommon,
  pairedPhrases,
  phraseEntityId,
  pmiWeight,
  properTitle,
  sharedSentence,
  strongerLeafPair,
} from './build-noun-graph.js';
import { addRowHash, countValue, graphRowHash, type NounGraphState } from './noun-graph-state.js';
import { typeEntities, withinTypingCutoff } from './type-entities.js';
import { positionsOf } from '../../core/positions-of.js';

/*
 * The noun graph between refreshes (issue 38). A fresh build (`buildNounGraph`) weighs every edge with corpus-wide
 * figures, so one added document re-weighs edges across the whole graph. Here those figures are the ones fitted at the
 * last refresh (the PMI normalizers, the percentile threshold, the ego node), and only what the change touches is
 * evaluated again: the pairs of phrases that pair up in an added or removed chunk (their own counts changed), and every
 * pair of a phrase that became prunable or stopped being so (minimum frequency, minimum degree). Each such pair is
 * weighed with the current counts of its two phrases; every other edge keeps its row as it is, weight, description and
 * combined degree included. Chunks already indexed keep the phrases that pair up in them (`maxPhrasesPerChunk` ranks
 * phrases by corpus frequency); an added chunk ranks its own with the current frequencies. Removing what was added
 * restores the rows it touched, since every count comes back and every touched pair is weighed again from them.
 */

/** What changed in the corpus since the state: chunks added (in corpus order, after every kept chunk) and removed. */
export interface NounGraphChange {
  added: readonly ChunkPhrases[];
  removed: ReadonlyArray<Pick<ChunkPhrases, 'chunkId' | 'extraction'>>;
}

/** What the update reads from the index: chunks with their extraction, and the stored rows, by id (unknown ids are left out). */
export interface NounGraphReader {
  chunks(ids: readonly string[]): Promise<ChunkPhrases[]>;
  entities(ids: readonly string[]): Promise<EntityRecord[]>;
  relations(ids: readonly string[]): Promise<RelationRecord[]>;
}

/** The rows to write and delete, and the state after the change. */
export interface NounGraphUpdate {
  entities: EntityRecord[];
  removedEntityIds: string[];
  relations: RelationRecord[];
  removedRelationIds: string[];
  state: NounGraphState;
  stats: { touchedPhrases: number; evaluatedPairs: number; entities: number; relations: number; typed: number };
}

/** Chunks read per round of description lookups, beyond the one a description needs next. */
const readAhead = 8;

/** Updates the graph of `state` with `change`, weighing with the stored figures; reads only the rows it may change. */
export async function updateNounGraph(state: NounGraphState, change: NounGraphChange, config: NlpExtractConfig, reader: NounGraphReader): Promise<NounGraphUpdate> {
  const keys = [...state.keys];
  const proper = [...state.proper];
  // The state is left as it was: a node's counts are copied before its first change.
  const surfaces = [...state.surfaces];
  const typeHints = [...state.typeHints];
  const copied = new Set<number>();
  const finalDegree = [...state.finalDegree];
  const described = [...state.described];
  const nodeOf = positionsOf(keys);
  const nodeFor = (key: string): number => {
    let node = nodeOf.get(key);
    if (node === undefined) {
      node = keys.length;
      nodeOf.set(key, node);
      keys.push(key);
      proper.push(0);
      surfaces.push([]);
      typeHints.push([]);
      finalDegree.push(0);
      described.push(0);
    }
    return node;
  };
  const countMentions = (extraction: ChunkPhrases['extraction'], sign: 1 | -1): void => {
    for (const mention of extraction.mentions) {
      const node = nodeFor(mention.key);
      if (!copied.has(node)) {
        copied.add(node);
        surfaces[node] = (surfaces[node] as Array<[string, number]>).map(([value, count]): [string, number] => [value, count]);
        typeHints[node] = (typeHints[node] as Array<[string, number]>).map(([value, count]): [string, number] => [value, count]);
      }
      if (mention.kind === 'proper') proper[node] = (proper[node] as number) + sign;
      countValue(surfaces[node] as Array<[string, number]>, mention.surface, sign);
      if (mention.typeHint) countValue(typeHints[node] as Array<[string, number]>, mention.typeHint, sign);
    }
  };

  // Every chunk of the old corpus and then the added ones: status 0 kept, 1 removed, 2 added.
  const removedIds = new Set(change.removed.map((chunk) => chunk.chunkId));
  const chunkIds = [...state.chunkIds];
  const status: number[] = state.chunkIds.map((id) => (removedIds.has(id) ? 1 : 0));
  const memberStart = [...state.memberStart];
  const members = [...state.members];
  const paired = [...state.paired];
  for (const chunk of change.removed) countMentions(chunk.extraction, -1);
  for (const chunk of change.added) {
    countMentions(chunk.extraction, 1);
    const seen = new Set<number>();
    for (const mention of chunk.extraction.mentions) seen.add(nodeFor(mention.key));
    chunkIds.push(chunk.chunkId);
    status.push(2);
    for (const node of seen) members.push(node);
    memberStart.push(members.length);
  }
  const nodeCount = keys.length;
  const oldFrequency = new Int32Array(nodeCount);
  const frequency = new Int32Array(nodeCount);
  for (let chunk = 0; chunk < chunkIds.length; chunk++) {
    for (let at = memberStart[chunk] as number; at < (memberStart[chunk + 1] as number); at++) {
      const node = members[at] as number;
      if (status[chunk] !== 2) oldFrequency[node] = (oldFrequency[node] as number) + 1;
      if (status[chunk] !== 1) frequency[node] = (frequency[node] as number) + 1;
    }
  }
  // An added chunk's phrases pair up by the frequencies they have now.
  for (let chunk = state.chunkIds.length; chunk < chunkIds.length; chunk++) {
    const own = members.slice(memberStart[chunk], memberStart[chunk + 1]);
    const kept = new Set(pairedPhrases([...own], frequency, config.maxPhrasesPerChunk));
    for (const node of own) paired.push(kept.has(node) ? 1 : 0);
  }

  // Each node's chunks (all, and those where it pairs up), in corpus order.
  const inverted = (flag: (at: number) => boolean): { start: Int32Array; chunks: Int32Array } => {
    const start = new Int32Array(nodeCount + 1);
    for (let at = 0; at < members.length; at++) {
      const slot = (members[at] as number) + 1;
      if (flag(at)) start[slot] = (start[slot] as number) + 1;
    }
    for (let node = 0; node < nodeCount; node++) start[node + 1] = (start[node + 1] as number) + (start[node] as number);
    const fill = start.slice(0, nodeCount);
    const chunks = new Int32Array(start[nodeCount] as number);
    for (let chunk = 0; chunk < chunkIds.length; chunk++) {
      for (let at = memberStart[chunk] as number; at < (memberStart[chunk + 1] as number); at++) {
        if (!flag(at)) continue;
        const node = members[at] as number;
        chunks[fill[node] as number] = chunk;
        fill[node] = (fill[node] as number) + 1;
      }
    }
    return { start, chunks };
  };
  const mentioned = inverted(() => true);
  const pairing = inverted((at) => paired[at] === 1);
  const pairedIn = (chunk: number): number[] => {
    const list: number[] = [];
    for (let at = memberStart[chunk] as number; at < (memberStart[chunk + 1] as number); at++) if (paired[at] === 1) list.push(members[at] as number);
    return list;
  };

  // Which phrases may have edges, before the change (old) and after it.
  const stamp = new Int32Array(nodeCount);
  let stampValue = 0;
  const hasDegree = (node: number, excluded: number): boolean => {
    if (config.minNodeDegree <= 0) return true;
    stampValue++;
    let count = 0;
    for (let at = pairing.start[node] as number; at < (pairing.start[node + 1] as number); at++) {
      const chunk = pairing.chunks[at] as number;
      if (status[chunk] === excluded) continue;
      for (const other of pairedIn(chunk)) {
        if (other === node || stamp[other] === stampValue) continue;
        stamp[other] = stampValue;
        if (++count >= config.minNodeDegree) return true;
      }
    }
    return false;
  };
  const isEgo = (node: number): boolean => state.egoKey !== null && keys[node] === state.egoKey;
  const minFrequency = (properMentions: number | undefined): number => ((properMentions ?? 0) > 0 ? config.minProperNameFrequency : config.minNodeFrequency);
  const aliveNow = new Int8Array(nodeCount);
  const alive = (node: number): boolean => {
    if (aliveNow[node] === 0) aliveNow[node] = !isEgo(node) && (frequency[node] as number) >= minFrequency(proper[node]) && hasDegree(node, 1) ? 1 : -1;
    return aliveNow[node] === 1;
  };
  const wasAlive = (node: number): boolean => !isEgo(node) && (oldFrequency[node] as number) >= minFrequency(state.proper[node]) && hasDegree(node, 2);

  const touched = new Set<number>();
  for (let chunk = 0; chunk < chunkIds.length; chunk++) {
    if (status[chunk] === 0) continue;
    for (let at = memberStart[chunk] as number; at < (memberStart[chunk + 1] as number); at++) touched.add(members[at] as number);
  }
  const pairs = new Set<number>();
  const addPair = (a: number, b: number): void => {
    if (a !== b) pairs.add(a < b ? a * nodeCount + b : b * nodeCount + a);
  };
  for (let chunk = 0; chunk < chunkIds.length; chunk++) {
    if (status[chunk] === 0) continue;
    const list = pairedIn(chunk);
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) addPair(list[i] as number, list[j] as number);
  }
  // A proper name of one chunk is a leaf that keeps only its strongest pair (as in `buildNounGraph`): every pair of a
  // name that gains or loses that standing is weighed again, and so is every pair of such a name whose pairs are.
  const isLeaf = (node: number): boolean => (proper[node] ?? 0) > 0 && frequency[node] === 1 && alive(node);
  const wasLeaf = (node: number): boolean => (state.proper[node] ?? 0) > 0 && oldFrequency[node] === 1 && wasAlive(node);
  const expanded = new Set<number>();
  const addPairsOf = (node: number): void => {
    if (expanded.has(node)) return;
    expanded.add(node);
    for (let at = pairing.start[node] as number; at < (pairing.start[node + 1] as number); at++) for (const other of pairedIn(pairing.chunks[at] as number)) addPair(node, other);
  };
  for (const node of touched) {
    if (wasAlive(node) !== alive(node) || wasLeaf(node) !== isLeaf(node)) addPairsOf(node);
  }
  for (const key of [...pairs]) {
    const low = Math.floor(key / nodeCount);
    const high = key % nodeCount;
    if (isLeaf(low)) addPairsOf(low);
    if (isLeaf(high)) addPairsOf(high);
  }

  const entityIds = new Map<number, string>();
  const entityIdOf = (node: number): string => {
    let id = entityIds.get(node);
    if (id === undefined) entityIds.set(node, (id = phraseEntityId(keys[node] as string)));
    return id;
  };
  const threshold = state.threshold ?? Number.NEGATIVE_INFINITY;
  interface Evaluated {
    a: number;
    b: number;
    id: string;
    source: string;
    target: string;
    kept: boolean;
    weight: number;
    shared: number[];
  }
  const evaluated: Evaluated[] = [];
  for (const key of [...pairs].sort((left, right) => left - right)) {
    const a = Math.floor(key / nodeCount);
    const b = key % nodeCount;
    // Chunks where both pair up, in corpus order: each chunk of the shorter list searched in the longer one (a hub
    // phrase pairs up in thousands of chunks, most of its partners in a few).
    let weight = 0;
    const shared: number[] = [];
    const [short, long] = (pairing.start[a + 1] as number) - (pairing.start[a] as number) <= (pairing.start[b + 1] as number) - (pairing.start[b] as number) ? [a, b] : [b, a];
    let low = pairing.start[long] as number;
    const end = pairing.start[long + 1] as number;
    for (let at = pairing.start[short] as number; at < (pairing.start[short + 1] as number); at++) {
      const chunk = pairing.chunks[at] as number;
      let high = end;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((pairing.chunks[middle] as number) < chunk) low = middle + 1;
        else high = middle;
      }
      if (low < end && pairing.chunks[low] === chunk && status[chunk] !== 1) {
        weight++;
        if (shared.length < maxRelationChunks) shared.push(chunk);
      }
    }
    const pmi = weight > 0 ? pmiWeight(weight, frequency[a] as number, frequency[b] as number, state.totalWeight, state.totalFrequency) : 0;
    // A pair of a name of one chunk is kept only as that name's strongest pair, below.
    const kept = weight > 0 && alive(a) && alive(b) && (config.minEdgeWeightPercentile <= 0 || (!isLeaf(a) && !isLeaf(b) && pmi >= threshold));
    const [source, target] = [entityIdOf(a), entityIdOf(b)].sort() as [string, string];
    evaluated.push({ a, b, id: contentId('relation', source, target), source, target, kept, weight: pmi, shared });
  }
  const strongest = new Map<number, Evaluated>();
  for (const pair of evaluated) {
    if (pair.shared.length === 0 || !alive(pair.a) || !alive(pair.b)) continue;
    for (const [node, partner] of [[pair.a, pair.b], [pair.b, pair.a]] as const) {
      if (!isLeaf(node)) continue;
      const current = strongest.get(node);
      const currentPartner = current === undefined ? -1 : current.a === node ? current.b : current.a;
      if (
        current === undefined ||
        strongerLeafPair(
          { weight: pair.weight, partner: keys[partner] as string, partnerIsLeaf: isLeaf(partner) },
          { weight: current.weight, partner: keys[currentPartner] as string, partnerIsLeaf: isLeaf(currentPartner) },
        )
      ) {
        strongest.set(node, pair);
      }
    }
  }
  for (const pair of strongest.values()) pair.kept = true;

  const oldRelations = new Map((await reader.relations(evaluated.map((pair) => pair.id))).map((row) => [row.id, row]));
  const changedNodes = new Set(touched);
  for (const pair of evaluated) {
    const was = oldRelations.has(pair.id);
    if (was === pair.kept) continue;
    const delta = pair.kept ? 1 : -1;
    finalDegree[pair.a] = (finalDegree[pair.a] as number) + delta;
    finalDegree[pair.b] = (finalDegree[pair.b] as number) + delta;
    changedNodes.add(pair.a);
    changedNodes.add(pair.b);
  }
  const nodes = [...changedNodes].sort((left, right) => left - right);
  const oldEntities = new Map((await reader.entities(nodes.map(entityIdOf))).map((row) => [row.id, row]));

  // Descriptions quote chunks: they are read in rounds, for the rows whose chunks changed, as far as a quote needs.
  const loaded = new Map<string, ChunkPhrases | null>(change.added.map((chunk) => [chunk.chunkId, chunk]));
  const sentencesOf = createSentenceLookup();
  const quotes: Quote[] = [];
  const resolveQuotes = async (): Promise<void> => {
    let pending = quotes;
    while (pending.length > 0) {
      const wanted = new Set<string>();
      const next: Quote[] = [];
      for (const quote of pending) {
        const chunkAt = (at: number): ChunkPhrases | null => {
          const chunk = loaded.get(quote.chunks[at] as string);
          if (chunk === undefined) throw new ChunkNotRead(at);
          return chunk;
        };
        try {
          quote.run(chunkAt);
        } catch (error) {
          if (!(error instanceof ChunkNotRead)) throw error;
          for (const id of quote.chunks.slice(error.at, error.at + readAhead)) if (!loaded.has(id)) wanted.add(id);
          next.push(quote);
        }
      }
      const ids = [...wanted];
      for (const chunk of await reader.chunks(ids)) loaded.set(chunk.chunkId, chunk);
      for (const id of ids) if (!loaded.has(id)) loaded.set(id, null);
      pending = next;
    }
  };

  const idsOf = (chunks: Iterable<number>): string[] => Array.from(chunks, (chunk) => chunkIds[chunk] as string);
  const sameList = (left: readonly string[], right: readonly string[]): boolean => left.length === right.length && sameStart(left, right, left.length);
  const entities: EntityRecord[] = [];
  const removedEntityIds: string[] = [];
  for (const node of nodes) {
    const id = entityIdOf(node);
    const previous = oldEntities.get(id);
    if ((finalDegree[node] as number) <= 0) {
      if (previous) removedEntityIds.push(id);
      continue;
    }
    const key = keys[node] as string;
    const isProper = (proper[node] as number) > 0;
    const own = surfaces[node] as Array<[string, number]>;
    const title = isProper ? properTitle(own, key) : key;
    const chunks: number[] = [];
    for (let at = mentioned.start[node] as number; at < (mentioned.start[node + 1] as number); at++) if (status[mentioned.chunks[at] as number] !== 1) chunks.push(mentioned.chunks[at] as number);
    const entity: EntityRecord = {
      id,
      title,
      type: mostCommon(typeHints[node] as Array<[string, number]>) ?? (isProper ? 'proper noun' : 'noun phrase'),
      description: '',
      aliases: own.map(([surface]) => surface).filter((surface) => surface !== title && surface.toLowerCase() !== title.toLowerCase()).slice(0, 10),
      frequency: chunks.length,
      degree: finalDegree[node] as number,
      chunkIds: idsOf(chunks),
    };
    entities.push(entity);
    // A description stops at its first chunks: it stands while those stay.
    const through = described[node] as number;
    if (previous && (sameList(previous.chunkIds, entity.chunkIds) || (through > 0 && sameStart(previous.chunkIds, entity.chunkIds, through)))) {
      entity.description = previous.description;
      continue;
    }
    quotes.push({
      chunks: entity.chunkIds,
      run(chunkAt) {
        const description = describePhrase(mentionSentences(key, entity.chunkIds.length, chunkAt), title);
        entity.description = description.text;
        described[node] = description.through;
      },
    });
  }

  const relations: RelationRecord[] = [];
  const removedRelationIds: string[] = [];
  for (const pair of evaluated) {
    const previous = oldRelations.get(pair.id);
    if (!pair.kept) {
      if (previous) removedRelationIds.push(pair.id);
      continue;
    }
    const relation: RelationRecord = {
      id: pair.id,
      source: pair.source,
      target: pair.target,
      description: '',
      keywords: [],
      weight: pair.weight,
      combinedDegree: (finalDegree[pair.a] as number) + (finalDegree[pair.b] as number),
      chunkIds: idsOf(pair.shared),
    };
    relations.push(relation);
    // The first sentence the two share stands while the chunks before it stay; chunks after them are read only when none did.
    const grown = previous !== undefined && sameStart(previous.chunkIds, relation.chunkIds, previous.chunkIds.length);
    if (previous && (sameList(previous.chunkIds, relation.chunkIds) || (grown && previous.description !== ''))) {
      relation.description = previous.description;
      continue;
    }
    const [keyA, keyB] = [keys[pair.a] as string, keys[pair.b] as string];
    const from = grown ? (previous as RelationRecord).chunkIds.length : 0;
    quotes.push({
      chunks: relation.chunkIds,
      run(chunkAt) {
        relation.description = sharedSentence(keyA, keyB, readChunks(chunkAt, from, relation.chunkIds.length), sentencesOf);
      },
    });
  }
  await resolveQuotes();

  // Types: names new or changed that rank within the last refresh's cutoff, from the names typed so far when known.
  const memo = new Map(state.typed);
  let typed = 0;
  if (config.typing === 'auto' || config.typing === 'compromise') {
    const candidates = entities.filter((entity) => entity.type === 'proper noun' && (config.typing === 'compromise' || withinTypingCutoff(entity, state.typingCutoff)));
    typed = await typeEntities(candidates, 'compromise', memo);
  }

  const graphHash = [...state.graphHash];
  const changedEntities = entities.filter((entity) => {
    const previous = oldEntities.get(entity.id);
    return previous === undefined || !sameRecord(previous, entity);
  });
  const changedRelations = relations.filter((relation) => {
    const previous = oldRelations.get(relation.id);
    return previous === undefined || !sameRecord(previous, relation);
  });
  for (const entity of changedEntities) {
    const previous = oldEntities.get(entity.id);
    if (previous) addRowHash(graphHash, graphRowHash({ kind: 'entity', entity: previous }), -1);
    addRowHash(graphHash, graphRowHash({ kind: 'entity', entity }), 1);
  }
  for (const id of removedEntityIds) addRowHash(graphHash, graphRowHash({ kind: 'entity', entity: oldEntities.get(id) as EntityRecord }), -1);
  for (const relation of changedRelations) {
    const previous = oldRelations.get(relation.id);
    if (previous) addRowHash(graphHash, graphRowHash({ kind: 'relation', relation: previous }), -1);
    addRowHash(graphHash, graphRowHash({ kind: 'relation', relation }), 1);
  }
  for (const id of removedRelationIds) addRowHash(graphHash, graphRowHash({ kind: 'relation', relation: oldRelations.get(id) as RelationRecord }), -1);

  // The state after the change: removed chunks leave, added ones follow the kept ones, and phrases no chunk mentions
  // any more leave with every trace of their text (deleting means gone), the names typed among them included.
  const renumbered = new Int32Array(nodeCount).fill(-1);
  const live: number[] = [];
  for (let node = 0; node < nodeCount; node++) {
    if ((frequency[node] as number) === 0) continue;
    renumbered[node] = live.length;
    live.push(node);
  }
  // An update that removed no chunk keeps every node and chunk where it was: the lists built above are the next state's
  // (renumbering 600,000 memberships into new lists was a tenth of an add's noun-graph update on 2Wiki).
  const unmoved = change.removed.length === 0 && live.length === nodeCount;
  const next = unmoved ? { chunkIds, memberStart, members, paired } : { chunkIds: [] as string[], memberStart: [0], members: [] as number[], paired: [] as number[] };
  if (!unmoved) {
    for (let chunk = 0; chunk < chunkIds.length; chunk++) {
      if (status[chunk] === 1) continue;
      next.chunkIds.push(chunkIds[chunk] as string);
      for (let at = memberStart[chunk] as number; at < (memberStart[chunk + 1] as number); at++) {
        next.members.push(renumbered[members[at] as number] as number);
        next.paired.push(paired[at] as number);
      }
      next.memberStart.push(next.members.length);
    }
  }
  const pick = <T,>(values: T[]): T[] => (unmoved ? values : live.map((node) => values[node] as T));
  // A name typed stays typed while a phrase still has it as its key or a surface form. An update that removed no chunk
  // kept every phrase and form, and typed only names of its own phrases: the typed names are all still there, and the
  // set of every live text (80,000 on 2Wiki) is not built.
  let typedNames = [...memo];
  if (!unmoved) {
    const liveTexts = new Set<string>();
    for (const node of live) {
      liveTexts.add(keys[node] as string);
      for (const [surface] of surfaces[node] as Array<[string, number]>) liveTexts.add(surface);
    }
    typedNames = typedNames.filter(([title]) => liveTexts.has(title));
  }
  let entityCount = 0;
  let edgeEnds = 0;
  for (const degree of finalDegree) {
    if (degree > 0) entityCount++;
    edgeEnds += degree;
  }
  return {
    entities: changedEntities,
    removedEntityIds,
    relations: changedRelations,
    removedRelationIds,
    state: {
      ...state,
      egoKey: state.egoKey !== null && nodeOf.has(state.egoKey) && renumbered[nodeOf.get(state.egoKey) as number] === -1 ? null : state.egoKey,
      typed: typedNames.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
      keys: pick(keys),
      proper: pick(proper),
      surfaces: pick(surfaces),
      typeHints: pick(typeHints),
      finalDegree: pick(finalDegree),
      described: pick(described),
      ...next,
      graphHash,
    },
    stats: { touchedPhrases: touched.size, evaluatedPairs: evaluated.length, entities: entityCount, relations: edgeEnds / 2, typed },
  };
}

/** A quote (a description) to take from a row's chunks, `run` with a reader that throws {@link ChunkNotRead} for a chunk not read yet. */
interface Quote {
  chunks: readonly string[];
  run(chunkAt: (at: number) => ChunkPhrases | null): void;
}

/** Thrown by a quote's chunk reader: the chunk at this position of its list must be read first. */
class ChunkNotRead {
  constructor(readonly at: number) {}
}

/** Each chunk's first sentence mentioning `key`, over a node's chunks in order, read as far as the caller goes. */
function* mentionSentences(key: string, count: number, chunkAt: (at: number) => ChunkPhrases | null): Generator<MentionSentence> {
  for (let at = 0; at < count; at++) {
    const chunk = chunkAt(at);
    const mention = chunk?.extraction.mentions.find((candidate) => candidate.key === key);
    const span = mention === undefined ? undefined : chunk?.extraction.sentences[mention.sentence];
    if (chunk && span) yield { position: at, read: () => chunk.text.slice(span[0], span[1]) };
  }
}

/** The chunks from `from` to `to`, read as far as the caller goes (those that could not be read left out). */
function* readChunks(chunkAt: (at: number) => ChunkPhrases | null, from: number, to: number): Generator<ChunkPhrases> {
  for (let at = from; at < to; at++) {
    const chunk = chunkAt(at);
    if (chunk) yield chunk;
  }
}

/** Whether both lists have at least `count` values and agree on the first `count`. */
function sameStart(left: readonly string[], right: readonly string[], count: number): boolean {
  if (left.length < count || right.length < count) return false;
  for (let at = 0; at < count; at++) if (left[at] !== right[at]) return false;
  return true;
}

/** Whether the stored row holds the computed row's values (it may carry `hid` besides); values are strings, numbers or lists of strings. */
function sameRecord(stored: object, computed: object): boolean {
  const values = stored as Record<string, unknown>;
  return Object.entries(computed).every(([field, value]) => {
    const known = values[field];
    return Array.isArray(value) ? Array.isArray(known) && known.length === value.length && sameStart(known as string[], value as string[], value.length) : known === value;
  });
}
