import { normalizePhrase } from '../../text/normalize-phrase.js';
import { allTripleIndexStrings } from './triple-index-codec.js';
import { factSentence, type FlatIndexLists, type IndexList, type TripleIndex, type TripleIndexRemoval, type TripleRow } from './triple-index.js';
import { positionsOf } from '../../core/positions-of.js';

/** Reads the triples-table rows of chunks, in table order. */
export type ChunkRowReader = (chunkIds: readonly string[]) => Promise<readonly TripleRow[]>;

/**
 * The triple index of `index`'s rows without those of `removedChunkIds`: field for field what `buildTripleIndex` gives
 * for the kept rows (so its encoding is the same bytes), at the cost of the change — provided every row of the index
 * has a subject and an object that normalize to a phrase (a row without one still names its other phrase, at a place
 * no chunk list records; the caller then builds the index from the rows). See {@link planTripleChunkRemoval}.
 */
export async function removeTripleChunks(index: TripleIndex, removedChunkIds: readonly string[], readRows: ChunkRowReader): Promise<TripleIndex> {
  const removal = await planTripleChunkRemoval(index, removedChunkIds, readRows);
  const pick = <T>(values: ArrayLike<T>, items: Int32Array, replaced?: ReadonlyMap<number, T>): T[] => Array.from(items, (item) => replaced?.get(item) ?? (values[item] as T));
  const phraseTexts = pick(allTripleIndexStrings(index, 'phraseTexts'), removal.phraseOrder);
  const { newPhrase, factOrder } = removal;
  const lists = ({ pointers, values }: FlatIndexLists): Int32Array[] => Array.from({ length: pointers.length - 1 }, (_, item) => values.subarray(pointers[item], pointers[item + 1]));
  return {
    phraseTexts,
    phraseIds: pick(allTripleIndexStrings(index, 'phraseIds'), removal.phraseOrder),
    phraseLabels: pick(allTripleIndexStrings(index, 'phraseLabels'), removal.phraseOrder, removal.phraseLabels),
    phraseIndex: positionsOf(phraseTexts),
    factIds: pick(allTripleIndexStrings(index, 'factIds'), factOrder, removal.factIds),
    factTexts: pick(allTripleIndexStrings(index, 'factTexts'), factOrder, removal.factTexts),
    factSubject: Int32Array.from(factOrder, (fact) => newPhrase[index.factSubject[fact] as number] as number),
    factObject: Int32Array.from(factOrder, (fact) => newPhrase[index.factObject[fact] as number] as number),
    factPredicate: pick(allTripleIndexStrings(index, 'factPredicate'), factOrder),
    factChunks: lists(removal.factChunks),
    chunkIds: [...removal.chunkIds],
    phraseChunks: lists(removal.phraseChunks),
  };
}

/**
 * What removing `removedChunkIds` does to `index` ({@link TripleIndexRemoval}), at the cost of the change: phrases and
 * facts keep their relative order, but one whose first occurrence was in a removed chunk is now first seen in a later
 * chunk, among that chunk's rows: only the rows of such chunks are read (`readRows`) and walked again; every other
 * list is filtered and renumbered from the index itself, without decoding or normalizing a phrase.
 */
export async function planTripleChunkRemoval(index: TripleIndex, removedChunkIds: readonly string[], readRows: ChunkRowReader): Promise<TripleIndexRemoval> {
  const chunkIds = allTripleIndexStrings(index, 'chunkIds');
  const removed = new Set(removedChunkIds);
  // Old chunk index → new (−1: removed); chunks keep their order.
  const chunkMap = new Int32Array(chunkIds.length);
  const keptChunkIds: string[] = [];
  const chunkOrder: number[] = [];
  chunkIds.forEach((id, chunk) => {
    if (removed.has(id)) chunkMap[chunk] = -1;
    else {
      chunkMap[chunk] = keptChunkIds.push(id) - 1;
      chunkOrder.push(chunk);
    }
  });

  // Each phrase's and fact's kept chunks (renumbered, flat in item order) and the chunk it is now first seen in (−1: gone).
  const keptLists = (lists: TripleIndex['phraseChunks']) => {
    const count = lists.length;
    let total = 0;
    for (let item = 0; item < count; item++) total += (lists[item] as IndexList).length;
    const start = new Int32Array(count + 1);
    const values = new Int32Array(total);
    const first = new Int32Array(count);
    const moved: number[] = [];
    let at = 0;
    for (let item = 0; item < count; item++) {
      const list = lists[item] as IndexList;
      start[item] = at;
      for (let position = 0; position < list.length; position++) {
        const chunk = chunkMap[list[position] as number] as number;
        if (chunk >= 0) values[at++] = chunk;
      }
      const kept = at > (start[item] as number);
      first[item] = kept ? (values[start[item] as number] as number) : -1;
      if (kept && (chunkMap[list[0] as number] as number) < 0) moved.push(item);
    }
    start[count] = at;
    return { start, values, first, moved };
  };
  const phrases = keptLists(index.phraseChunks);
  const facts = keptLists(index.factChunks);

  // The chunks that now hold a first occurrence they did not: their rows say in what order, and in which surface form.
  const walked = new Set<number>();
  for (const phrase of phrases.moved) walked.add(phrases.first[phrase] as number);
  for (const fact of facts.moved) walked.add(facts.first[fact] as number);
  // Within a walked chunk, items rank by when its rows first name them; elsewhere by their old index (row order).
  const phraseRank = new Map<number, number>();
  const factRank = new Map<number, number>();
  const phraseLabels = new Map<number, string>();
  const factIds = new Map<number, string>();
  const factTexts = new Map<number, string>();
  if (walked.size > 0) {
    const walkedChunk = new Map([...walked].map((chunk) => [keptChunkIds[chunk] as string, chunk]));
    const factByKey = new Map<string, number>();
    const factPredicate = index.factPredicate;
    for (let fact = 0; fact < facts.first.length; fact++) {
      if (walked.has(facts.first[fact] as number)) factByKey.set(`${index.factSubject[fact]}\u0000${factPredicate[fact]}\u0000${index.factObject[fact]}`, fact);
    }
    const movedPhrases = new Set(phrases.moved);
    const movedFacts = new Set(facts.moved);
    const phraseIndex = index.phraseIndex;
    for (const row of await readRows([...walkedChunk.keys()])) {
      const chunk = walkedChunk.get(row.chunkId);
      const subject = phraseIndex.get(normalizePhrase(row.subject));
      const object = phraseIndex.get(normalizePhrase(row.object));
      if (subject === undefined || object === undefined || chunk === undefined) continue;
      for (const [phrase, surface] of [
        [subject, row.subject],
        [object, row.object],
      ] as const) {
        if (phrases.first[phrase] !== chunk || phraseRank.has(phrase)) continue;
        phraseRank.set(phrase, phraseRank.size);
        if (movedPhrases.has(phrase)) phraseLabels.set(phrase, surface.trim());
      }
      const predicate = row.predicate.trim().toLowerCase().replace(/\s+/g, ' ');
      const fact = factByKey.get(`${subject}\u0000${predicate}\u0000${object}`);
      if (fact === undefined || factRank.has(fact)) continue;
      factRank.set(fact, factRank.size);
      if (movedFacts.has(fact)) {
        factIds.set(fact, row.id);
        factTexts.set(fact, factSentence(row.subject, row.predicate, row.object));
      }
    }
  }

  // New order: by the chunk first seen in, then by rank; old indices are already in row order, so a counting sort by
  // chunk keeps them, and only the items of the walked chunks are sorted.
  const order = (first: Int32Array, rank: ReadonlyMap<number, number>): Int32Array => {
    const start = new Int32Array(keptChunkIds.length + 1);
    for (const chunk of first) if (chunk >= 0) start[chunk + 1] = (start[chunk + 1] as number) + 1;
    for (let chunk = 0; chunk < keptChunkIds.length; chunk++) start[chunk + 1] = (start[chunk + 1] as number) + (start[chunk] as number);
    const fill = start.slice(0, keptChunkIds.length);
    const items = new Int32Array(start[keptChunkIds.length] as number);
    first.forEach((chunk, item) => {
      if (chunk < 0) return;
      items[fill[chunk] as number] = item;
      fill[chunk] = (fill[chunk] as number) + 1;
    });
    for (const chunk of walked) items.subarray(start[chunk] as number, start[chunk + 1] as number).sort((left, right) => (rank.get(left) as number) - (rank.get(right) as number));
    return items;
  };
  const renumbered = (items: Int32Array, count: number): Int32Array => {
    const map = new Int32Array(count).fill(-1);
    items.forEach((item, position) => (map[item] = position));
    return map;
  };
  // The kept lists in the new order: runs of consecutive items copied at once.
  const reordered = (lists: { start: Int32Array; values: Int32Array }, items: Int32Array): FlatIndexLists => {
    const pointers = new Int32Array(items.length + 1);
    items.forEach((item, position) => (pointers[position + 1] = (pointers[position] as number) + (lists.start[item + 1] as number) - (lists.start[item] as number)));
    const values = new Int32Array(pointers[items.length] as number);
    for (let position = 0; position < items.length; ) {
      let end = position + 1;
      while (end < items.length && items[end] === (items[end - 1] as number) + 1) end++;
      values.set(lists.values.subarray(lists.start[items[position] as number] as number, lists.start[(items[end - 1] as number) + 1] as number), pointers[position] as number);
      position = end;
    }
    return { pointers, values };
  };
  const phraseOrder = order(phrases.first, phraseRank);
  const factOrder = order(facts.first, factRank);
  return {
    newPhrase: renumbered(phraseOrder, phrases.first.length),
    phraseOrder,
    newFact: renumbered(factOrder, facts.first.length),
    factOrder,
    chunkOrder,
    chunkIds: keptChunkIds,
    phraseChunks: reordered(phrases, phraseOrder),
    factChunks: reordered(facts, factOrder),
    phraseLabels,
    factIds,
    factTexts,
  };
}
