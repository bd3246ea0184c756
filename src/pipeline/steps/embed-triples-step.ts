import { contentId } from '../../core/ids.js';
import type { TripleIndex } from '../../extract/triples/triple-index.js';
import { allTripleIndexStrings } from '../../extract/triples/triple-index-codec.js';
import type { PipelineStep, StepContext, StepOutput } from '../pipeline-step.js';
import {
  appendableTripleVectorRows,
  loadTripleIndex,
  loadTripleIndexRemovalMaps,
  storeAppendedTripleVectorRows,
  storeTripleVectorRowMaps,
  storeTripleVectorRows,
  type TripleIndexAppend,
  type TripleIndexRemovalRecord,
} from '../stored-triple-index.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { embedNewItems, embedSpace, type EmbeddingItem } from './embed-space.js';

/**
 * A phrase or fact to embed whose text is decoded from the stored index only when read: an update embeds the few
 * new ones, and decoding all 128,000 texts of 2Wiki's index cost more than the rest of the step.
 */
class IndexItem implements EmbeddingItem {
  constructor(
    readonly id: string,
    private readonly texts: readonly string[],
    private readonly row: number,
  ) {}

  get text(): string {
    return this.texts[this.row] as string;
  }
}

/**
 * Embeds the triple index in two vector spaces: `phrases`, each distinct normalized triple argument under its
 * `phraseId` (HippoRAG's phrase nodes, which queries link to and synonym edges join), and `facts`, each
 * distinct triple as its fact sentence under the id of its first occurrence (HippoRAG 2's query-to-triple
 * linking, relation retrieval). Each space is brought up to date by `embedSpace`; both are written in the
 * step's one transaction, with the triple-index row of every stored vector (so queries need not match ids).
 */
export const embedTriplesStep: PipelineStep = {
  name: 'embed-triples',
  // 2: vectors stored sparsely (a workspace of version 1 re-embeds once) and their rows in the triple index stored.
  version: 2,
  reads: ['embed-chunks', 'triples'],
  settings: embeddingSettings,

  async run(context) {
    const { index, version, appendedTo, removedFrom } = await loadTripleIndex(context.store);
    const appended = version !== undefined && appendedTo !== undefined ? await embedAppended(context, index, version, appendedTo) : undefined;
    if (appended) return appended;
    const removed = version !== undefined && removedFrom !== undefined ? await followRemoval(context, index, version, removedFrom) : undefined;
    if (removed) return removed;
    const { phraseTexts, factTexts } = index;
    const phraseIds = allTripleIndexStrings(index, 'phraseIds');
    const factIds = allTripleIndexStrings(index, 'factIds');
    // The index's version names the items: the spaces need not hash their sorted ids. The row maps stored below are
    // made from the spaces' order after the write, so the vectors keep insertion order.
    const named = { keepsRowOrder: true, ...(version === undefined ? {} : { outputVersion: '' }) };
    const phrases = await embedSpace(
      context,
      'phrases',
      phraseIds.map((id, phrase) => new IndexItem(id, phraseTexts, phrase)),
      named,
    );
    const facts = await embedSpace(
      context,
      'facts',
      factIds.map((id, fact) => new IndexItem(id, factTexts, fact)),
      named,
    );
    return {
      counts: {
        phrases: phraseTexts.length,
        facts: factTexts.length,
        embedded: (phrases.counts['embedded'] ?? 0) + (facts.counts['embedded'] ?? 0),
        removed: (phrases.counts['removed'] ?? 0) + (facts.counts['removed'] ?? 0),
        appended: 0,
        followedRemoval: 0,
      },
      outputVersion: outputVersionOf(context.embedder.id, version, phrases.outputVersion, facts.outputVersion),
      async write(tx) {
        await phrases.write(tx);
        await facts.write(tx);
        await storeTripleVectorRows(tx, index, version, phrases.idsAfterWrite && facts.idsAfterWrite && { phrases: phrases.idsAfterWrite, facts: facts.idsAfterWrite });
      },
    };
  },
};

/**
 * The step's output version: the stored index's version names every phrase and fact, so with the embedder it names
 * the vectors, and an update need not list every id to say which (a rebuilt index has none: its spaces' versions).
 */
function outputVersionOf(embedderId: string, indexVersion: string | undefined, phrases: string, facts: string): string {
  return indexVersion === undefined ? contentId('triple-vectors', phrases, facts) : contentId('triple-vectors', embedderId, indexVersion);
}

/**
 * An update of an index that was appended to (`appendedTo`) while the spaces hold exactly the vectors of the index
 * before: only the phrases and facts after the old ones are embedded, and their rows appended to the stored row maps.
 * Undefined when that does not hold (or the embedder stores its vectors as they arrive): then every id is compared.
 */
async function embedAppended(context: StepContext, index: TripleIndex, version: string, appendedTo: TripleIndexAppend): Promise<StepOutput | undefined> {
  const previous = await appendableTripleVectorRows(context.store, context.embedder.id, appendedTo);
  if (!previous) return undefined;
  const counts = { phrases: index.phraseTexts.length, facts: index.factTexts.length };
  const newItems = (ids: readonly string[], texts: readonly string[], from: number, to: number): IndexItem[] =>
    Array.from({ length: to - from }, (_, offset) => new IndexItem(ids[from + offset] as string, texts, from + offset));
  const phrases = await embedNewItems(context, 'phrases', newItems(index.phraseIds, index.phraseTexts, appendedTo.phrases, counts.phrases));
  const facts = phrases && (await embedNewItems(context, 'facts', newItems(index.factIds, index.factTexts, appendedTo.facts, counts.facts)));
  if (!phrases || !facts) return undefined;
  return {
    counts: { ...counts, embedded: phrases.embedded + facts.embedded, removed: 0, appended: 1, followedRemoval: 0 },
    outputVersion: outputVersionOf(context.embedder.id, version, '', ''),
    async write(tx) {
      await phrases.write(tx);
      await facts.write(tx);
      await storeAppendedTripleVectorRows(tx, previous, counts, version);
    },
  };
}

/**
 * An update of an index that a delete removed chunks from (`removedFrom`) while the spaces hold exactly the vectors of
 * the index before: the vectors of the phrases and facts that went are deleted, the facts that took a new id (their
 * first occurrence was removed) are embedded under it, and the row maps follow the renumbering, without reading the
 * spaces' ids or the index's. Undefined when that does not hold (or the embedder stores its vectors as they arrive):
 * then every id is compared.
 */
async function followRemoval(context: StepContext, index: TripleIndex, version: string, removedFrom: TripleIndexRemovalRecord): Promise<StepOutput | undefined> {
  const [previous, maps] = await Promise.all([appendableTripleVectorRows(context.store, context.embedder.id, removedFrom), loadTripleIndexRemovalMaps(context.store, removedFrom)]);
  if (!previous || !maps) return undefined;
  const counts = { phrases: index.phraseTexts.length, facts: index.factTexts.length };
  const renamed = removedFrom.renamedFacts;
  const facts = await embedNewItems(
    context,
    'facts',
    renamed.map((fact) => new IndexItem(index.factIds[fact] as string, index.factTexts, fact)),
  );
  if (!facts) return undefined;
  // The stored vectors keep their order when others are deleted; the renamed facts' vectors go after them.
  const follow = (rows: Int32Array, map: Int32Array, skip: ReadonlySet<number>, appended: readonly number[]): Int32Array => {
    const next: number[] = [];
    for (const row of rows) {
      const moved = map[row] as number;
      if (moved >= 0 && !skip.has(moved)) next.push(moved);
    }
    return Int32Array.from([...next, ...appended]);
  };
  const phraseRows = follow(previous.phrases, maps.phrases, new Set(), []);
  const factRows = follow(previous.facts, maps.facts, new Set(renamed), renamed);
  return {
    counts: { ...counts, embedded: facts.embedded, removed: removedFrom.removedPhraseIds.length + removedFrom.staleFactIds.length, appended: 0, followedRemoval: 1 },
    outputVersion: outputVersionOf(context.embedder.id, version, '', ''),
    async write(tx) {
      await tx.vectors('phrases').delete(removedFrom.removedPhraseIds);
      await tx.vectors('facts').delete(removedFrom.staleFactIds);
      await facts.write(tx);
      await storeTripleVectorRowMaps(tx, version, { phrases: phraseRows, facts: factRows });
    },
  };
}
