import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTerms } from '../../text/term-count-matrix.js';
import { TfidfRanker } from '../../text/tfidf-ranker.js';
import { oneHopTraversal } from './one-hop-traversal.js';

const texts = [
  'Redwater is a film directed by Maria Olsen', // 0: seed
  'Maria Olsen was born in Bergen', // 1
  'Redwater was filmed in winter', // 2
  'Bergen is a city in Norway', // 3
  'The river froze that winter', // 4
];
const ranker = new TfidfRanker(countTerms(texts));
const neighbours = (passage: number) => (passage === 0 ? { passages: [1, 2, 4], kinds: [2, 8, 2] } : { passages: [], kinds: [] });

describe('oneHopTraversal', () => {
  test("ranks each seed's neighbours by TF-IDF against its evidence, keeps perSeed, never a neighbour sharing no word", () => {
    const paths = oneHopTraversal({
      ranker,
      seeds: [{ passage: 0, score: 5 }, { passage: 3, score: 1 }],
      evidence: [ranker.queryTerms('born in winter'), ranker.queryTerms('born')],
      neighbours,
      perSeed: 3,
    });
    // Fitted on 1, 2, 4: "born" (df 1) only in 1; "in" and "winter" (df 2) both in 2, "winter" alone in 4.
    assert.deepEqual(
      paths[0]?.neighbours.map((neighbour) => neighbour.passage),
      [1, 2, 4],
    );
    assert.deepEqual(paths[0]?.neighbours.map((neighbour) => neighbour.kinds), [2, 8, 2]);
    const scores = paths[0]?.neighbours.map((neighbour) => neighbour.score) ?? [];
    assert.ok((scores[0] as number) > (scores[1] as number) && (scores[1] as number) > (scores[2] as number) && (scores[2] as number) > 0);
    assert.deepEqual(paths[1]?.neighbours, [], 'a seed without neighbours keeps an empty path');
    const filming = oneHopTraversal({ ranker, seeds: [{ passage: 0, score: 5 }], evidence: [ranker.queryTerms('filmed')], neighbours, perSeed: 3 });
    assert.deepEqual(
      filming[0]?.neighbours.map((neighbour) => neighbour.passage),
      [2],
      'the evidence, not the question, decides',
    );
  });
});
