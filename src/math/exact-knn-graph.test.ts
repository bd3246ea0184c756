import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KgragError } from '../core/errors.js';
import { createRandom } from '../core/random.js';
import type { DenseMatrix } from './dense-matrix.js';
import { normalizeRows } from './dense-vectors.js';
import { exactKnnGraph, exactKnnGraphSync } from './exact-knn-graph.js';
import type { KnnGraph } from './knn-graph.js';

function randomMatrix(rows: number, cols: number, seed: number, integers = false): DenseMatrix {
  const random = createRandom(seed);
  // Small integers make every dot product exact in float32: ties are exact and the oracle agrees bit for bit.
  const draw = integers ? () => Math.floor(random() * 3) - 1 : () => random() * 2 - 1;
  return { rows, cols, data: Float32Array.from({ length: rows * cols }, draw) };
}

/** The oracle: all pairs in float64, each row sorted by (similarity desc, index asc), self excluded. */
function bruteForceGraph(matrix: DenseMatrix, k: number): { indices: number[][]; similarities: number[][] } {
  const { rows, cols, data } = matrix;
  const indices: number[][] = [];
  const similarities: number[][] = [];
  for (let i = 0; i < rows; i++) {
    const candidates: Array<{ index: number; score: number }> = [];
    for (let j = 0; j < rows; j++) {
      if (j === i) continue;
      let score = 0;
      for (let col = 0; col < cols; col++) score += (data[i * cols + col] as number) * (data[j * cols + col] as number);
      candidates.push({ index: j, score });
    }
    candidates.sort((a, b) => b.score - a.score || a.index - b.index);
    const kept = candidates.slice(0, k);
    while (kept.length < k) kept.push({ index: -1, score: Number.NEGATIVE_INFINITY });
    indices.push(kept.map((entry) => entry.index));
    similarities.push(kept.map((entry) => entry.score));
  }
  return { indices, similarities };
}

function rowsOf(graph: KnnGraph): { indices: number[][]; similarities: number[][] } {
  const indices: number[][] = [];
  const similarities: number[][] = [];
  for (let row = 0; row < graph.n; row++) {
    indices.push([...graph.indices.subarray(row * graph.k, (row + 1) * graph.k)]);
    similarities.push([...graph.similarities.subarray(row * graph.k, (row + 1) * graph.k)]);
  }
  return { indices, similarities };
}

describe('exact kNN graph', () => {
  test('equals brute force exactly, ties by lower index (integer data, blocks with remainders)', () => {
    const matrix = randomMatrix(301, 5, 1, true);
    for (const backend of ['wasm-simd', 'js'] as const) {
      const graph = exactKnnGraphSync(matrix, 12, { backend, blockRows: 64 });
      assert.deepEqual(rowsOf(graph), bruteForceGraph(matrix, 12));
    }
  });

  test('equals brute force on random unit vectors (neighbour lists exact, similarities within 1e-6)', () => {
    const matrix = normalizeRows(randomMatrix(400, 37, 2));
    const graph = exactKnnGraphSync(matrix, 10, { blockRows: 96 });
    const oracle = bruteForceGraph(matrix, 10);
    const actual = rowsOf(graph);
    assert.deepEqual(actual.indices, oracle.indices);
    actual.similarities.forEach((row, i) => row.forEach((value, slot) => assert.ok(Math.abs(value - (oracle.similarities[i]?.[slot] ?? 0)) < 1e-6)));
  });

  test('worker threads give the same graph as the calling thread', async () => {
    const matrix = randomMatrix(700, 19, 3, true);
    const inThread = exactKnnGraphSync(matrix, 15, { blockRows: 64 });
    const threaded = await exactKnnGraph(matrix, 15, { threads: 2, blockRows: 64, minimumWorkForThreads: 0 });
    assert.deepEqual(threaded.indices, inThread.indices);
    assert.deepEqual(threaded.similarities, inThread.similarities);
    assert.deepEqual(rowsOf(threaded), bruteForceGraph(matrix, 15));
  });

  test('n ≤ k pads with −1 / −∞; tiny inputs work', async () => {
    const matrix = randomMatrix(4, 3, 4);
    const graph = await exactKnnGraph(matrix, 6);
    assert.equal(graph.k, 6);
    for (let row = 0; row < 4; row++) {
      const neighbours = [...graph.indices.subarray(row * 6, row * 6 + 6)];
      assert.deepEqual(neighbours.slice(3), [-1, -1, -1]);
      assert.deepEqual(neighbours.slice(0, 3).sort(), [0, 1, 2, 3].filter((other) => other !== row));
      assert.deepEqual([...graph.similarities.subarray(row * 6 + 3, row * 6 + 6)], [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    }
    const single = await exactKnnGraph({ rows: 1, cols: 2, data: Float32Array.of(1, 0) }, 2);
    assert.deepEqual([...single.indices], [-1, -1]);
    const empty = await exactKnnGraph({ rows: 0, cols: 2, data: new Float32Array(0) }, 3);
    assert.equal(empty.indices.length, 0);
    assert.equal((await exactKnnGraph(matrix, 0)).indices.length, 0);
  });

  test('zero vectors have similarity 0 to everything and rank by index', () => {
    const matrix = randomMatrix(20, 4, 5);
    matrix.data.fill(0, 0, 3 * 4);
    const graph = exactKnnGraphSync(matrix, 5);
    assert.deepEqual([...graph.indices.subarray(0, 5)], [1, 2, 3, 4, 5]);
    assert.deepEqual([...graph.similarities.subarray(0, 5)], [0, 0, 0, 0, 0]);
    assert.deepEqual(rowsOf(graph).indices, bruteForceGraph(matrix, 5).indices);
  });

  test('stops with the abort reason when its signal aborts, in worker threads or in this thread', async () => {
    const matrix = randomMatrix(700, 19, 7);
    const controller = new AbortController();
    const isAbort = (error: unknown): boolean => error instanceof Error && error.name === 'AbortError';
    // The workers report through the event loop, so an abort right after the call comes before they finish.
    const threaded = exactKnnGraph(matrix, 15, { threads: 2, blockRows: 64, minimumWorkForThreads: 0, signal: controller.signal });
    controller.abort();
    await assert.rejects(threaded, isAbort);
    await assert.rejects(exactKnnGraph(matrix, 15, { threads: 1, signal: controller.signal }), isAbort);
    const unaborted = await exactKnnGraph(matrix, 15, { threads: 1, blockRows: 64, signal: new AbortController().signal });
    assert.deepEqual(unaborted.indices, exactKnnGraphSync(matrix, 15, { blockRows: 64 }).indices, 'a signal that never aborts changes nothing');
  });

  test('rejects a bad k', () => {
    assert.throws(() => exactKnnGraphSync(randomMatrix(3, 2, 6), 1.5), (error: unknown) => KgragError.isInstance(error) && error.code === 'MATH_INVALID_K');
  });
});
