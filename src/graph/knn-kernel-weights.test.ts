import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csrToDense } from '../../test/helpers/dense-oracles.js';
import type { KnnGraph } from '../math/knn-graph.js';
import { csrFromTriplets } from '../math/csr-matrix.js';
import { symmetrizeCsr } from '../math/csr-operations.js';
import { knnKernelWeights } from './knn-kernel-weights.js';

/** A 3-node kNN graph with k = 2: cos(0,1) = 0.9, cos(0,2) = 0.5, cos(1,2) = 0.6. */
const triangle: KnnGraph = {
  n: 3,
  k: 2,
  indices: Int32Array.from([1, 2, 0, 2, 1, 0]),
  similarities: Float32Array.from([0.9, 0.5, 0.9, 0.6, 0.6, 0.5]),
};

const chord2 = (cos: number): number => 2 - 2 * Math.fround(cos);
const angle = (cos: number): number => Math.acos(Math.fround(cos));

function assertClose(actual: number | undefined, expected: number, message?: string): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-12, `${message ?? ''} ${actual} ≠ ${expected}`);
}

describe('knnKernelWeights', () => {
  test('gaussian (AutoKG code): exp(−4d²/d_K(i)²) with chord distances, (W + Wᵀ)/2', () => {
    const w = csrToDense(knnKernelWeights(triangle, { kernel: 'gaussian', k: 2 })).data;
    // d_K(0)² = chord²(0.5), d_K(1)² = chord²(0.6), d_K(2)² = chord²(0.5).
    const scale = [chord2(0.5), chord2(0.6), chord2(0.5)];
    const directed = (i: number, cos: number): number => Math.exp((-4 * chord2(cos)) / (scale[i] as number));
    assertClose(w[0 * 3 + 1], (directed(0, 0.9) + directed(1, 0.9)) / 2, '01');
    assertClose(w[0 * 3 + 2], (directed(0, 0.5) + directed(2, 0.5)) / 2, '02');
    assertClose(w[1 * 3 + 2], (directed(1, 0.6) + directed(2, 0.6)) / 2, '12');
    for (let i = 0; i < 3; i++) {
      assert.equal(w[i * 3 + i], 0);
      for (let j = 0; j < 3; j++) assert.equal(w[i * 3 + j], w[j * 3 + i]);
    }
    // The farthest neighbour of a row gets exp(−4) from that row's side.
    assertClose(directed(0, 0.5), Math.exp(-4));
  });

  test('angular (paper): exp(−θ²/√(τ_i τ_j)) with τ = θ_K², symmetric by construction', () => {
    const w = csrToDense(knnKernelWeights(triangle, { kernel: 'angular', k: 2 })).data;
    const thetaK = [angle(0.5), angle(0.6), angle(0.5)];
    const weight = (i: number, j: number, cos: number): number => Math.exp(-(angle(cos) ** 2) / Math.sqrt((thetaK[i] as number) ** 2 * (thetaK[j] as number) ** 2));
    assertClose(w[0 * 3 + 1], weight(0, 1, 0.9));
    assertClose(w[0 * 3 + 2], weight(0, 2, 0.5));
    assertClose(w[2 * 3 + 1], weight(1, 2, 0.6));
  });

  test('symgaussian: exp(−4d²/(d_K(i)·d_K(j))), symmetric by construction', () => {
    const w = csrToDense(knnKernelWeights(triangle, { kernel: 'symgaussian', k: 2 })).data;
    const dK = [Math.sqrt(chord2(0.5)), Math.sqrt(chord2(0.6)), Math.sqrt(chord2(0.5))];
    assertClose(w[0 * 3 + 1], Math.exp((-4 * chord2(0.9)) / ((dK[0] as number) * (dK[1] as number))));
    assertClose(w[1 * 3 + 2], Math.exp((-4 * chord2(0.6)) / ((dK[1] as number) * (dK[2] as number))));
  });

  test('a one-sided edge keeps half its weight under averaging and all of it under max', () => {
    // Node 0 lists node 1; node 1 lists only node 2; node 2 lists node 1.
    const graph: KnnGraph = { n: 3, k: 1, indices: Int32Array.from([1, 2, 1]), similarities: Float32Array.from([0.8, 0.7, 0.7]) };
    const average = csrToDense(knnKernelWeights(graph, { kernel: 'gaussian' })).data;
    const maximum = csrToDense(knnKernelWeights(graph, { kernel: 'symgaussian' })).data;
    // With k = 1 the only neighbour is the scale: exp(−4) from node 0's side.
    assertClose(average[0 * 3 + 1], Math.exp(-4) / 2);
    assertClose(average[1 * 3 + 2], Math.exp(-4));
    assert.ok((maximum[0 * 3 + 1] as number) > 0);
    assert.equal(maximum[0 * 3 + 1], maximum[1 * 3 + 0]);
  });

  test('uses only the first k columns (AutoKG K = 30 counts the point itself: k = 29), skips padding and self', () => {
    const graph: KnnGraph = {
      n: 4,
      k: 3,
      indices: Int32Array.from([1, 2, 3, 0, -1, -1, 0, 1, -1, 3, 1, 0]),
      similarities: Float32Array.from([0.9, 0.8, 0.1, 0.9, -Infinity, -Infinity, 0.8, 0.7, -Infinity, 1, 0.1, 0.2]),
    };
    const w = csrToDense(knnKernelWeights(graph, { k: 2 })).data;
    assert.equal(w[0 * 4 + 3], 0, 'third column ignored');
    assert.equal(w[3 * 4 + 3], 0, 'self entry skipped');
    assert.ok((w[1 * 4 + 0] as number) > 0);
    assert.ok(Array.from(w).every((value) => Number.isFinite(value)));
    // Default k = 29 on a k = 3 graph uses all three columns.
    assert.ok((csrToDense(knnKernelWeights(graph)).data[0 * 4 + 3] as number) > 0);
  });

  test('duplicate vectors (zero scale) get weight 1 instead of NaN', () => {
    const graph: KnnGraph = { n: 2, k: 1, indices: Int32Array.from([1, 0]), similarities: Float32Array.from([1, 1]) };
    for (const kernel of ['gaussian', 'angular', 'symgaussian'] as const) {
      const w = csrToDense(knnKernelWeights(graph, { kernel })).data;
      assert.equal(w[1], 1, kernel);
    }
  });

  test('a one-node graph (a one-chunk corpus, k = 0) has no weights; a k below 1 is still an error', () => {
    const single: KnnGraph = { n: 1, k: 0, indices: new Int32Array(0), similarities: new Float32Array(0) };
    const weights = knnKernelWeights(single, { k: 29 });
    assert.equal(weights.rows, 1);
    assert.equal(weights.values.length, 0);
    assert.throws(() => knnKernelWeights(triangle, { k: 0 }), /k = 0 must be a positive integer/);
  });

  test('rows in column order, a neighbour listed twice summed in list order: the matrix coordinate triplets give, bit for bit', () => {
    // Lists in similarity order, so columns arrive unsorted; padding (−1), self entries and repeats mixed in.
    let state = 7;
    const next = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const n = 40;
    const k = 6;
    const indices = new Int32Array(n * k);
    const similarities = new Float32Array(n * k);
    for (let node = 0; node < n; node++) {
      const scores = Array.from({ length: k }, () => next()).sort((left, right) => right - left);
      for (let rank = 0; rank < k; rank++) {
        const roll = next();
        indices[node * k + rank] = roll < 0.1 ? -1 : roll < 0.15 ? node : roll < 0.3 && rank > 0 ? (indices[node * k + rank - 1] as number) : Math.floor(next() * n);
        similarities[node * k + rank] = scores[rank] as number;
      }
    }
    for (const kernel of ['gaussian', 'angular', 'symgaussian'] as const) {
      const actual = knnKernelWeights({ n, k, indices, similarities }, { kernel, k });
      for (let node = 0; node < n; node++) {
        for (let entry = (actual.rowPointers[node] as number) + 1; entry < (actual.rowPointers[node + 1] as number); entry++) {
          assert.ok((actual.columnIndices[entry - 1] as number) < (actual.columnIndices[entry] as number), `${kernel}: row ${node} in column order`);
        }
      }
      // The oracle: each list entry as a triplet, merged by csrFromTriplets, symmetrized the same way.
      const distance = (cosine: number): number => (kernel === 'angular' ? Math.acos(Math.min(1, Math.max(-1, cosine))) : Math.sqrt(2 - 2 * Math.min(1, Math.max(-1, cosine))));
      const scale = Array.from({ length: n }, (_, node) => {
        for (let rank = k - 1; rank >= 0; rank--) if ((indices[node * k + rank] as number) >= 0) return distance(similarities[node * k + rank] as number);
        return 0;
      });
      const rows: number[] = [];
      const cols: number[] = [];
      const values: number[] = [];
      for (let node = 0; node < n; node++) {
        for (let rank = 0; rank < k; rank++) {
          const neighbour = indices[node * k + rank] as number;
          if (neighbour < 0 || neighbour === node) continue;
          const squared = distance(similarities[node * k + rank] as number) ** 2;
          const own = scale[node] as number;
          const their = scale[neighbour] as number;
          const denominator = kernel === 'gaussian' ? own ** 2 / 4 : kernel === 'symgaussian' ? (own * their) / 4 : own * their;
          rows.push(node);
          cols.push(neighbour);
          values.push(denominator > 0 ? Math.exp(-squared / denominator) : squared === 0 ? 1 : 0);
        }
      }
      const expected = symmetrizeCsr(csrFromTriplets(n, n, rows, cols, values), kernel === 'gaussian' ? 'average' : 'max');
      assert.deepEqual(actual, expected, kernel);
    }
  });
});
