import { contentId } from '../../core/ids.js';
import { allTripleIndexStrings } from '../../extract/triples/triple-index-codec.js';
import type { PipelineStep } from '../pipeline-step.js';
import { loadTripleIndex, storeTripleVectorRows } from '../stored-triple-index.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { embedSpace, type EmbeddingItem } from './embed-space.js';

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
    const { index, version } = await loadTripleIndex(context.store);
    const { phraseTexts, factTexts } = index;
    const phrases = await embedSpace(
      context,
      'phrases',
      allTripleIndexStrings(index, 'phraseIds').map((id, phrase) => new IndexItem(id, phraseTexts, phrase)),
    );
    const facts = await embedSpace(
      context,
      'facts',
      allTripleIndexStrings(index, 'factIds').map((id, fact) => new IndexItem(id, factTexts, fact)),
    );
    return {
      counts: {
        phrases: phraseTexts.length,
        facts: factTexts.length,
        embedded: (phrases.counts['embedded'] ?? 0) + (facts.counts['embedded'] ?? 0),
        removed: (phrases.counts['removed'] ?? 0) + (facts.counts['removed'] ?? 0),
      },
      outputVersion: contentId('triple-vectors', phrases.outputVersion, facts.outputVersion),
      async write(tx) {
        await phrases.write(tx);
        await facts.write(tx);
        await storeTripleVectorRows(tx, index, version);
      },
    };
  },
};
