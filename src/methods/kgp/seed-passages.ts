import { queryTerms } from '../../text/word-tokens.js';
import type { QueryTermCounts } from '../../text/tfidf-ranker.js';
import type { MethodContext } from '../query-method.js';
import type { KgpLookups } from './kgp-lookups.js';
import type { ScoredPassage } from './one-hop-traversal.js';
import { rankByScore } from './rank-by-score.js';

/**
 * The `count` best passages for the question by TF-IDF over every passage (scikit-learn defaults, as the
 * release's `tf_idf(question, all passages)`) or by the index's BM25 (SQLite FTS5), best first. Passages
 * that share no word with the question are not returned.
 */
export async function seedPassages(
  context: MethodContext,
  lookups: KgpLookups,
  question: string,
  questionTerms: QueryTermCounts,
  seeding: 'tfidf' | 'bm25',
  count: number,
): Promise<ScoredPassage[]> {
  if (seeding === 'bm25') {
    const hits = await context.store.searchText('chunks', queryTerms(question), count);
    return hits.flatMap((hit) => {
      const passage = lookups.passageOf.get(hit.id);
      return passage === undefined ? [] : [{ passage, score: hit.score }];
    });
  }
  const scores = lookups.ranker.scoreCorpus(questionTerms);
  return rankByScore(scores, count, true).map((passage) => ({ passage, score: scores[passage] as number }));
}
