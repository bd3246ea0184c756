import type { ScoredId } from '../../store/store.js';
import { queryTerms } from '../../text/word-tokens.js';
import { methodSpecificationVersion, type MethodContext, type QueryMethod, type Retrieval } from '../query-method.js';
import { basicConfig, type BasicConfig } from './config.js';

async function bm25(context: MethodContext, question: string, k: number): Promise<ScoredId[]> {
  return context.trace.time(
    'bm25',
    () => context.store.searchText('chunks', queryTerms(question), k),
    (hits) => ({ hits: hits.length }),
  );
}

async function dense(context: MethodContext, question: string, k: number): Promise<ScoredId[]> {
  const vector = await context.embedQuery(question);
  return context.trace.time(
    'dense',
    () => context.store.vectors('chunks').search(vector, k),
    (hits) => ({ hits: hits.length }),
  );
}

/** Reciprocal-rank fusion: score = Σ 1 / (k + rank), ranks from 1; ties keep first-list order. */
export function reciprocalRankFusion(lists: ReadonlyArray<readonly ScoredId[]>, k: number): ScoredId[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((hit, index) => scores.set(hit.id, (scores.get(hit.id) ?? 0) + 1 / (k + index + 1)));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((left, right) => right.score - left.score);
}

/** `basic`: top-k chunks by BM25 (SQLite FTS5), by dense vectors, or both fused (`hybrid`, the default). */
export const basicMethod: QueryMethod<BasicConfig> = {
  specificationVersion: methodSpecificationVersion,
  name: 'basic',
  description: 'naive RAG: top-k chunks by vector, BM25 or hybrid (reciprocal-rank fusion) similarity',
  variants: ['hybrid', 'bm25', 'dense'],
  config: basicConfig,
  ranking: { kind: 'native' },
  requires: ['chunk', 'embed-chunks'],

  async retrieve(context, question, params, variant): Promise<Retrieval> {
    if (variant === 'bm25') {
      const hits = await bm25(context, question, params.k);
      return { chunks: await context.chunks(hits.map((hit) => ({ ...hit, scores: { bm25: hit.score } }))), state: undefined };
    }
    if (variant === 'dense') {
      const hits = await dense(context, question, params.k);
      return { chunks: await context.chunks(hits.map((hit) => ({ ...hit, scores: { dense: hit.score } }))), state: undefined };
    }
    const depth = Math.max(params.candidates, params.k);
    const [lexical, semantic] = await Promise.all([bm25(context, question, depth), dense(context, question, depth)]);
    const lexicalScores = new Map(lexical.map((hit) => [hit.id, hit.score]));
    const semanticScores = new Map(semantic.map((hit) => [hit.id, hit.score]));
    const fused = reciprocalRankFusion([semantic, lexical], params.rrfK).slice(0, params.k);
    return {
      chunks: await context.chunks(
        fused.map((hit) => {
          const scores: Record<string, number> = { rrf: hit.score };
          const lexicalScore = lexicalScores.get(hit.id);
          const semanticScore = semanticScores.get(hit.id);
          if (lexicalScore !== undefined) scores.bm25 = lexicalScore;
          if (semanticScore !== undefined) scores.dense = semanticScore;
          return { ...hit, scores };
        }),
      ),
      state: undefined,
    };
  },
};
