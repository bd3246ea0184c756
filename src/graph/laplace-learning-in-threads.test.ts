import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../core/random.js';
import { undirectedGraphCsr } from '../math/csr-matrix.js';
import { laplaceLearningInThreads } from './laplace-learning-in-threads.js';
import { laplaceLearning, prepareLaplaceLearning, type KeywordSeeds } from './laplace-learning.js';

/** A ring of `n` nodes with random chords, and two components: nodes ≥ n − 5 form a path of their own. */
function chordedRing(n: number, seed: number) {
  const random = createRandom(seed);
  const edges: Array<{ source: number; target: number; weight: number }> = [];
  const ring = n - 5;
  for (let node = 0; node < ring; node++) edges.push({ source: node, target: (node + 1) % ring, weight: 0.5 + random() });
  for (let chord = 0; chord < ring * 2; chord++) edges.push({ source: Math.floor(random() * ring), target: Math.floor(random() * ring), weight: random() });
  for (let node = ring; node < n - 1; node++) edges.push({ source: node, target: node + 1, weight: 1 });
  return prepareLaplaceLearning(undirectedGraphCsr(n, edges.filter((edge) => edge.source !== edge.target)));
}

describe('laplaceLearningInThreads', () => {
  const graph = chordedRing(400, 5);
  const random = createRandom(8);
  const keywords: KeywordSeeds[] = Array.from({ length: 21 }, () => ({
    positives: Array.from({ length: 3 }, () => Math.floor(random() * 395)),
    negatives: Array.from({ length: 12 }, () => Math.floor(random() * 400)),
  }));

  test('gives the calling-thread assignments in keyword order, with any number of worker threads', async () => {
    const expected = laplaceLearning(graph, keywords, { blockSize: 4 });
    for (const threads of [2, 3]) {
      const threaded = await laplaceLearningInThreads(graph, keywords, { blockSize: 4, threads, minimumWorkForThreads: 0 });
      assert.equal(threaded.length, keywords.length);
      assert.deepEqual(threaded, expected, `${threads} threads`);
    }
  });

  test('runs small inputs and one thread in the calling thread', async () => {
    const expected = laplaceLearning(graph, keywords);
    assert.deepEqual(await laplaceLearningInThreads(graph, keywords), expected);
    assert.deepEqual(await laplaceLearningInThreads(graph, keywords, { threads: 1, minimumWorkForThreads: 0 }), expected);
  });
});
