import { factVectors, phraseVectors, storedTriples, tripleIndex } from '../shared/triple-lookups.js';
import type { MethodContext } from '../query-method.js';
import type { PprGraph } from './build/ppr-graph.js';
import { loadPprGraph } from './build/ppr-graph-step.js';
import { loadVectorScorer, vectorScorer, type VectorScorer } from './vector-scorer.js';

/** The `ppr` graph of the index, built on the first query and shared until the index changes. */
export function pprGraph(context: MethodContext): Promise<PprGraph> {
  return context.memo('ppr:graph', async () => {
    const { index, version } = await storedTriples(context);
    return loadPprGraph(context.store, index, version);
  });
}

/** Phrase vectors in phrase-node order (query-entity linking). */
export function phraseScorer(context: MethodContext): Promise<VectorScorer> {
  return context.memo('ppr:phrase-vectors', async () => vectorScorer('phrases', (await tripleIndex(context)).phraseTexts.length, await phraseVectors(context)));
}

/** Fact vectors in fact order (query-to-fact linking). */
export function factScorer(context: MethodContext): Promise<VectorScorer> {
  return context.memo('ppr:fact-vectors', async () => vectorScorer('facts', (await tripleIndex(context)).factSubject.length, await factVectors(context)));
}

/** Chunk vectors in passage-node order (dense passage seeds score every passage). */
export function passageScorer(context: MethodContext): Promise<VectorScorer> {
  return context.memo('ppr:passage-vectors', async () => loadVectorScorer(context.store, 'chunks', (await pprGraph(context)).passageIds));
}
