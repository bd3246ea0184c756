import { queryTerms } from '../../text/word-tokens.js';
import type { MethodContext } from '../query-method.js';
import type { PprGraph } from './build/ppr-graph.js';
import { minMaxNormalize } from './min-max-normalize.js';
import type { PprConfig } from './config.js';
import { passageScorer } from './ppr-lookups.js';

/** Passage scores in [0, 1] by passage index, and the raw scores behind them for the trace. */
export interface PassageSeedScores {
  scores: Float64Array;
  /** Cosine of question and passage, by passage index (dense and hybrid). */
  dense?: Float32Array;
  /** BM25 score of the passages that match a query term (bm25 and hybrid). */
  bm25?: Map<number, number>;
}

/** BM25 hits taken: enough to reach every passage that shares a rare word with the question. */
const bm25Depth = 200;

/**
 * The passage scores that seed passage nodes and rank passages when nothing links: HippoRAG 2's dense scores
 * min-max normalized over every passage (`dense`); BM25 scores divided by the best (`bm25`; passages without
 * a query term score 0, as BM25 ranks them last); or the mean of the two (`hybrid`).
 */
export async function passageSeedScores(context: MethodContext, question: string, graph: PprGraph, source: PprConfig['passageSeeds']): Promise<PassageSeedScores> {
  const count = graph.passageIds.length;
  const result: PassageSeedScores = { scores: new Float64Array(count) };
  const parts: Float64Array[] = [];
  if (source !== 'bm25') {
    const [scorer, query] = await Promise.all([passageScorer(context), context.embedQuery(question)]);
    result.dense = await scorer.scores(query);
    parts.push(minMaxNormalize(result.dense));
  }
  if (source !== 'dense') {
    const hits = await context.store.searchText('chunks', queryTerms(question), bm25Depth);
    const best = hits[0]?.score ?? 0;
    const lexical = new Float64Array(count);
    result.bm25 = new Map();
    for (const hit of hits) {
      const passage = graph.passageIndex.get(hit.id);
      if (passage === undefined) continue;
      result.bm25.set(passage, hit.score);
      lexical[passage] = best > 0 ? hit.score / best : 0;
    }
    parts.push(lexical);
  }
  for (const part of parts) for (let passage = 0; passage < count; passage++) result.scores[passage] = (result.scores[passage] as number) + (part[passage] as number) / parts.length;
  return result;
}
