import { contentId } from '../../core/ids.js';
import type { TripleIndex } from '../../extract/triples/triple-index.js';
import { allTripleIndexStrings } from '../../extract/triples/triple-index-codec.js';
import type { PipelineStep, StepContext, StepOutput } from '../pipeline-step.js';
import { appendableTripleVectorRows, loadTripleIndex, storeAppendedTripleVectorRows, storeTripleVectorRows, type TripleIndexAppend } from '../stored-triple-index.js';
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
    const { index, version, appendedTo } = await loadTripleIndex(context.store);
    const appended = version !== undefined && appendedTo !== undefined ? await embedAppended(context, index, version, appendedTo) : undefined;
    if (appended) return appended;
    const { phraseTexts, factTexts } = index;
    const phraseIds = allTripleIndexStrings(index, 'phraseIds');
    const factIds = allTripleIndexStrings(index, 'factIds');
    // The index's version names the items: the spaces need not hash their sorted ids.
    const named = version === undefined ? {} : { outputVersion: '' };
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
    counts: { ...counts, embedded: phrases.embedded + facts.embedded, removed: 0, appended: 1 },
    outputVersion: outputVersionOf(context.embedder.id, version, '', ''),
    async write(tx) {
      await phrases.write(tx);
      await facts.write(tx);
      await storeAppendedTripleVectorRows(tx, previous, counts, version);
    },
  };
}
