import { contentId } from '../../core/ids.js';
import type { PipelineStep } from '../pipeline-step.js';
import { loadTripleIndex, storeTripleVectorRows } from '../stored-triple-index.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { embedSpace } from './embed-space.js';

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
    const phrases = await embedSpace(
      context,
      'phrases',
      index.phraseIds.map((id, phrase) => ({ id, text: index.phraseTexts[phrase] as string })),
    );
    const facts = await embedSpace(
      context,
      'facts',
      index.factIds.map((id, fact) => ({ id, text: index.factTexts[fact] as string })),
    );
    return {
      counts: {
        phrases: index.phraseIds.length,
        facts: index.factIds.length,
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
