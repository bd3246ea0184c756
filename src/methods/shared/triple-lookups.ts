import type { TripleIndex } from '../../extract/triples/triple-index.js';
import { loadTripleIndex, loadTripleVectorRows } from '../../pipeline/stored-triple-index.js';
import type { MethodContext } from '../query-method.js';
import { spaceScorer, type SpaceScorer } from './space-vectors.js';

/**
 * The stored triple index (with its version, undefined when rebuilt from the triples) and the rows of its
 * vectors, loaded once per index (shared by `ppr` and `relations`).
 */
export function storedTriples(context: MethodContext): Promise<{ index: TripleIndex; version: string | undefined; vectorRows: Awaited<ReturnType<typeof loadTripleVectorRows>> }> {
  return context.memo('triples:stored', async () => {
    const { index, version } = await loadTripleIndex(context.store);
    return { index, version, vectorRows: await loadTripleVectorRows(context.store, version) };
  });
}

/** Loads the index's {@link TripleIndex} once per index (shared by `ppr` and `relations`). */
export async function tripleIndex(context: MethodContext): Promise<TripleIndex> {
  return (await storedTriples(context)).index;
}

/** Phrase vectors, rows in {@link TripleIndex} phrase order, loaded once per index and shared by `ppr` and `relations`. */
export function phraseVectors(context: MethodContext): Promise<SpaceScorer | undefined> {
  return context.memo('triples:phrase-vectors', async () => {
    const { index, vectorRows } = await storedTriples(context);
    return spaceScorer(context.store, 'phrases', { rows: index.phraseTexts.length, ids: () => index.phraseIds }, vectorRows?.phrases);
  });
}

/** Fact vectors, rows in {@link TripleIndex} fact order, loaded once per index and shared by `ppr` and `relations`. */
export function factVectors(context: MethodContext): Promise<SpaceScorer | undefined> {
  return context.memo('triples:fact-vectors', async () => {
    const { index, vectorRows } = await storedTriples(context);
    return spaceScorer(context.store, 'facts', { rows: index.factSubject.length, ids: () => index.factIds }, vectorRows?.facts);
  });
}
