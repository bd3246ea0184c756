import { contentId } from '../../core/ids.js';
import { buildTripleIndex } from '../../extract/triples/triple-index.js';
import type { PipelineStep } from '../pipeline-step.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { embedSpace } from './embed-space.js';

/**
 * Embeds the triple index in two vector spaces: `phrases`, each distinct normalized triple argument under its
 * `phraseId` (HippoRAG's phrase nodes, which queries link to and synonym edges join), and `facts`, each
 * distinct triple as its fact sentence under the id of its first occurrence (HippoRAG 2's query-to-triple
 * linking, relation retrieval). Each space is brought up to date by `embedSpace`; both are written in the
 * step's one transaction.
 */
export const embedTriplesStep: PipelineStep = {
  name: 'embed-triples',
  version: 1,
  reads: ['embed-chunks', 'triples'],
  settings: embeddingSettings,

  async run(context) {
    const index = buildTripleIndex(await context.store.table('triples').all());
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
      },
    };
  },
};
