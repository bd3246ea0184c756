import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../core/random.js';
import { csrToDense, denseToCsr, maxAbsDifference, randomSymmetricGraph, solveDense } from '../../test/helpers/dense-oracles.js';
import type { Dense } from '../../test/helpers/dense-oracles.js';
import { csrFromTriplets, undirectedGraphCsr } from '../math/csr-matrix.js';
import type { CsrMatrix, IndexedEdge } from '../math/csr-matrix.js';
import { transposeCsr } from '../math/csr-operations.js';
import type { KnnGraph } from '../math/knn-graph.js';
import { sparseMatrixProduct } from '../math/sparse-matrix-product.js';
import { knnKernelWeights } from './knn-kernel-weights.js';
import { laplaceLearning, prepareLaplaceLearning, selectAutoKgSeeds } from './laplace-learning.js';
import type { KeywordSeeds } from './laplace-learning.js';

/** The harmonic extension by a dense solve of L_uu·u_u = −L_ul·u_l. */
function denseHarmonic(w: Dense, seeds: KeywordSeeds): Float64Array {
  const n = w.rows;
  const label = new Float64Array(n).fill(Number.NaN);
  for (const node of Array.from(seeds.negatives)) label[node] = 0;
  for (const node of Array.from(seeds.positives)) label[node] = 1;
  const free = Array.from({ length: n }, (_, node) => node).filter((node) => Number.isNaN(label[node]));
  const system: Dense = { rows: free.length, cols: free.length, data: new Float64Array(free.length * free.length) };
  const rhs = new Float64Array(free.length);
  free.forEach((i, a) => {
    let degree = 0;
    for (let j = 0; j < n; j++) degree += j === i ? 0 : (w.data[i * n + j] as number);
    system.data[a * free.length + a] = degree;
    free.forEach((j, b) => {
      if (j !== i) system.data[a * free.length + b] = -(w.data[i * n + j] as number);
    });
    for (let j = 0; j < n; j++) if (!Number.isNaN(label[j])) rhs[a] = (rhs[a] as number) + (w.data[i * n + j] as number) * (label[j] as number);
  });
  const solution = solveDense(system, rhs);
  const u = Float64Array.from(label, (value) => (Number.isNaN(value) ? 0 : value));
  free.forEach((node, a) => {
    u[node] = solution[a] as number;
  });
  return u;
}

function path(n: number, weight = 1): CsrMatrix {
  return undirectedGraphCsr(
    n,
    Array.from({ length: n - 1 }, (_, node) => ({ source: node, target: node + 1, weight })),
  );
}

describe('laplaceLearning', () => {
  test('matches dense harmonic solves on random connected graphs, for any block size', () => {
    const random = createRandom(51);
    const n = 70;
    const w = randomSymmetricGraph(random, n, 0.12);
    // A ring keeps the graph connected.
    for (let node = 0; node < n; node++) {
      const next = (node + 1) % n;
      w.data[node * n + next] = 0.3;
      w.data[next * n + node] = 0.3;
    }
    const graph = prepareLaplaceLearning(denseToCsr(w));
    const keywords: KeywordSeeds[] = Array.from({ length: 11 }, () => {
      const similarities = Float64Array.from({ length: n }, () => random());
      return selectAutoKgSeeds(similarities, { trustNum: 3, negativeMultiplier: 4 });
    });
    for (const blockSize of [1, 4, 8]) {
      const results = laplaceLearning(graph, keywords, { tolerance: 1e-11, blockSize });
      results.forEach((result, index) => {
        const expected = denseHarmonic(w, keywords[index] as KeywordSeeds);
        assert.ok(maxAbsDifference(result.scores, expected) < 1e-8, `keyword ${index}, block ${blockSize}`);
      });
    }
    // The default tolerance (graphlearning's 1e-5 absolute) is close too.
    const loose = laplaceLearning(graph, keywords);
    loose.forEach((result, index) => assert.ok(maxAbsDifference(result.scores, denseHarmonic(w, keywords[index] as KeywordSeeds)) < 1e-4));
  });

  test('u ≥ 0.5 is membership, and an exact tie goes to the positive class', () => {
    // Path 0–1–2: positive 0, negative 2, so u₁ = 0.5 exactly.
    const [result] = laplaceLearning(prepareLaplaceLearning(path(3)), [{ positives: [0], negatives: [2] }], { connectThreshold: 1 });
    assert.equal(result?.scores[1], 0.5);
    assert.deepEqual(Array.from(result?.members ?? []), [0, 1]);
  });

  test('balanced membership: a cluster that u ≥ 0.5 misses on a densely cross-linked graph joins at u ≥ π₊', () => {
    // Clusters A = 0–5 and B = 6–25, cliques of weight 1, every A–B pair linked with 0.3 (a K-NN graph that
    // reaches a third of a small corpus looks like this). One positive in A, seven negatives in B (π₊ = 1/8).
    const edges: IndexedEdge[] = [];
    for (let i = 0; i < 26; i++) for (let j = i + 1; j < 26; j++) edges.push({ source: i, target: j, weight: i < 6 === j < 6 ? 1 : 0.3 });
    const graph = prepareLaplaceLearning(undirectedGraphCsr(26, edges));
    const seeds = [{ positives: [0], negatives: [19, 20, 21, 22, 23, 24, 25] }];
    const [argmax] = laplaceLearning(graph, seeds, { connectThreshold: 1, tolerance: 1e-12 });
    const [balanced] = laplaceLearning(graph, seeds, { connectThreshold: 1, tolerance: 1e-12, membership: 'balanced' });
    // u ≈ 0.18 on the rest of A and 0.065 on B's free nodes: the ranking is right, only the cut differs.
    assert.ok((argmax?.scores[1] as number) > 0.125 && (argmax?.scores[1] as number) < 0.5);
    assert.ok((argmax?.scores[6] as number) < 0.125);
    assert.deepEqual(Array.from(argmax?.members ?? []), [0]);
    assert.deepEqual(Array.from(balanced?.members ?? []), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(balanced?.scores, argmax?.scores);
  });

  test('the 20 % cap keeps the ⌊0.2·N⌋ highest u, and ties at the threshold keep more', () => {
    // Path of 20 from a positive at 0 to a negative at 19: u_i = 1 − i/19, ten members before the cap.
    const [capped] = laplaceLearning(prepareLaplaceLearning(path(20)), [{ positives: [0], negatives: [19] }], { tolerance: 1e-12 });
    assert.deepEqual(Array.from(capped?.members ?? []), [0, 1, 2, 3]);
    assert.equal(capped?.capped, true);
    // Path of 10, positives 0–2 (u = 1 exactly), negative 9: six members, cap 2, three tied at u = 1.
    const [tied] = laplaceLearning(prepareLaplaceLearning(path(10)), [{ positives: [0, 1, 2], negatives: [9] }], { tolerance: 1e-12 });
    assert.deepEqual(Array.from(tied?.members ?? []), [0, 1, 2]);
    // Not more members than the cap: nothing removed.
    const [uncapped] = laplaceLearning(prepareLaplaceLearning(path(20)), [{ positives: [0], negatives: [19] }], { connectThreshold: 0.5, tolerance: 1e-12 });
    assert.equal(uncapped?.members.length, 10);
    assert.equal(uncapped?.capped, false);
  });

  test('a component without labelled chunks is not connected: u = 0 and no member (the reference attached it)', () => {
    // Component A: path 0–1–2–3 with positive 0 and negative 3; component B: triangle 4–5–6; node 7 isolated.
    const edges: IndexedEdge[] = [
      { source: 0, target: 1, weight: 1 },
      { source: 1, target: 2, weight: 1 },
      { source: 2, target: 3, weight: 1 },
      { source: 4, target: 5, weight: 1 },
      { source: 5, target: 6, weight: 1 },
      { source: 4, target: 6, weight: 1 },
    ];
    const graph = prepareLaplaceLearning(undirectedGraphCsr(8, edges));
    assert.equal(graph.componentCount, 3);
    const [result] = laplaceLearning(graph, [{ positives: [0], negatives: [3] }], { connectThreshold: 1, tolerance: 1e-12 });
    assert.equal(result?.unconnected, 4);
    for (const node of [4, 5, 6, 7]) assert.equal(result?.scores[node], 0);
    assert.deepEqual(Array.from(result?.members ?? []), [0, 1]);
    // A component holding only positives is entirely attached (u = 1 there).
    const [onlyPositive] = laplaceLearning(graph, [{ positives: [0, 4], negatives: [3] }], { connectThreshold: 1, tolerance: 1e-12 });
    assert.deepEqual(Array.from(onlyPositive?.members ?? []), [0, 1, 4, 5, 6]);
  });

  test('labelled rows are overwritten: u = 1 on positives, 0 on negatives, positives win an overlap', () => {
    const random = createRandom(52);
    const graph = prepareLaplaceLearning(denseToCsr(randomSymmetricGraph(random, 30, 0.3)));
    const [result] = laplaceLearning(graph, [{ positives: [1, 2], negatives: [2, 3, 4] }]);
    assert.equal(result?.scores[1], 1);
    assert.equal(result?.scores[2], 1);
    assert.equal(result?.scores[3], 0);
    assert.equal(result?.scores[4], 0);
  });

  test('rejects seeds outside the graph', () => {
    const graph = prepareLaplaceLearning(path(4));
    assert.throws(() => laplaceLearning(graph, [{ positives: [4], negatives: [] }]), RangeError);
  });
});

describe('selectAutoKgSeeds', () => {
  test('nearest trustNum are positives, farthest negativeMultiplier·trustNum negatives, ties by index', () => {
    const similarities = Float64Array.from({ length: 100 }, (_, index) => Math.cos(index / 40));
    similarities[50] = 1;
    const { positives, negatives } = selectAutoKgSeeds(similarities);
    assert.deepEqual(Array.from(positives), [0, 50, 1, 2, 3]);
    assert.equal(negatives.length, 35);
    assert.deepEqual(Array.from(negatives).slice(0, 3), [99, 98, 97]);
    assert.ok(Array.from(negatives).every((node) => node >= 65));
    const tied = selectAutoKgSeeds([0.5, 0.9, 0.9, 0.1, 0.1, 0.1], { trustNum: 1, negativeMultiplier: 2 });
    assert.deepEqual(Array.from(tied.positives), [1]);
    assert.deepEqual(Array.from(tied.negatives), [3, 4]);
  });

  test('N < 40: negatives are the farthest of the non-positives, and N ≤ trustNum makes every chunk positive', () => {
    const twenty = selectAutoKgSeeds(Float64Array.from({ length: 20 }, (_, index) => -index));
    assert.deepEqual(Array.from(twenty.positives), [0, 1, 2, 3, 4]);
    assert.equal(twenty.negatives.length, 15);
    assert.ok(Array.from(twenty.negatives).every((node) => node >= 5));
    const four = selectAutoKgSeeds([0.1, 0.2, 0.3, 0.4]);
    assert.deepEqual(Array.from(four.positives), [3, 2, 1, 0]);
    assert.equal(four.negatives.length, 0);
  });
});

describe('AutoKG pipeline on clustered vectors', () => {
  test('keywords at cluster centres collect chunks of their own cluster; keyword graph A = PᵀP − diag', () => {
    const random = createRandom(53);
    const dimensions = 16;
    const clusters = 3;
    const perCluster = 40;
    const n = clusters * perCluster;
    const centres = Array.from({ length: clusters }, () => unit(Float64Array.from({ length: dimensions }, () => random() - 0.5)));
    const vectors = Array.from({ length: n }, (_, node) => unit((centres[node % clusters] as Float64Array).map((value) => value + 0.25 * (random() - 0.5))));
    const k = 10;
    const knn = exactKnn(vectors, k);
    const graph = prepareLaplaceLearning(knnKernelWeights(knn, { k }));
    const seeds = centres.map((centre) => selectAutoKgSeeds(Float64Array.from(vectors, (vector) => dot(vector, centre))));
    const assignments = laplaceLearning(graph, seeds, { connectThreshold: 0.5 });
    assignments.forEach((assignment, cluster) => {
      assert.ok(assignment.members.length >= perCluster / 2);
      assert.ok(Array.from(assignment.members).every((node) => node % clusters === cluster), `keyword ${cluster}`);
    });
    // Chunk × keyword membership P, then the keyword graph: shared-chunk counts off the diagonal.
    const rows: number[] = [];
    const cols: number[] = [];
    assignments.forEach((assignment, keyword) => {
      for (const node of Array.from(assignment.members)) {
        rows.push(node);
        cols.push(keyword);
      }
    });
    const membership = csrFromTriplets(n, clusters, rows, cols, rows.map(() => 1));
    const keywordGraph = csrToDense(sparseMatrixProduct(transposeCsr(membership), membership));
    for (let a = 0; a < clusters; a++) {
      assert.equal(keywordGraph.data[a * clusters + a], assignments[a]?.members.length);
      for (let b = 0; b < clusters; b++) if (a !== b) assert.equal(keywordGraph.data[a * clusters + b], 0);
    }
  });
});

function unit(vector: Float64Array): Float64Array {
  const norm = Math.sqrt(dot(vector, vector));
  return vector.map((value) => value / norm);
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
}

function exactKnn(vectors: readonly Float64Array[], k: number): KnnGraph {
  const n = vectors.length;
  const indices = new Int32Array(n * k);
  const similarities = new Float32Array(n * k);
  vectors.forEach((vector, node) => {
    const ranked = vectors
      .map((other, index) => ({ index, similarity: dot(vector, other) }))
      .filter((entry) => entry.index !== node)
      .sort((a, b) => b.similarity - a.similarity || a.index - b.index)
      .slice(0, k);
    ranked.forEach((entry, rank) => {
      indices[node * k + rank] = entry.index;
      similarities[node * k + rank] = entry.similarity;
    });
  });
  return { n, k, indices, similarities };
}
