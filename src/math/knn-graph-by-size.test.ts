import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../core/random.js';
import type { DenseMatrix } from './dense-matrix.js';
import { normalizeRows } from './dense-vectors.js';
import { exactKnnGraphSync } from './exact-knn-graph.js';
import { knnGraphBySize } from './knn-graph-by-size.js';
import { knnGraphRecall } from './nn-descent.js';

/** Unit vectors around 12 random centres: the structure NN-descent needs. */
function clustered(rows: number, cols: number, seed: number): DenseMatrix {
  const random = createRandom(seed);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  const centres = Float64Array.from({ length: 12 * cols }, gaussian);
  const data = new Float32Array(rows * cols);
  for (let row = 0; row < rows; row++) {
    const centre = Math.floor(random() * 12);
    for (let col = 0; col < cols; col++) data[row * cols + col] = (centres[centre * cols + col] as number) + 0.6 * gaussian();
  }
  return normalizeRows({ rows, cols, data });
}

describe('knnGraphBySize', () => {
  const matrix = clustered(1500, 32, 7);
  const exact = exactKnnGraphSync(matrix, 10);

  test('up to exactUpTo rows it is the exact graph', async () => {
    const graph = await knnGraphBySize(matrix, 10, { exactUpTo: 1500 });
    assert.equal(graph.exact, true);
    assert.deepEqual(graph.indices, exact.indices);
    assert.deepEqual(graph.similarities, exact.similarities);
  });

  test('above it NN-descent builds it, says so, finds nearly every exact neighbour, and gives the same graph for the same seed', async () => {
    const graph = await knnGraphBySize(matrix, 10, { exactUpTo: 1499 });
    assert.equal(graph.exact, false);
    assert.equal(graph.n, 1500);
    assert.equal(graph.k, 10);
    const recall = knnGraphRecall(graph, exact);
    assert.ok(recall >= 0.95, `recall ${recall}`);
    for (let row = 0; row < graph.n; row++) {
      for (let slot = row * 10 + 1; slot < (row + 1) * 10; slot++) assert.ok((graph.similarities[slot] as number) <= (graph.similarities[slot - 1] as number), `row ${row} is sorted best first`);
    }
    const inThisThread = await knnGraphBySize(matrix, 10, { exactUpTo: 1499, worker: false });
    assert.deepEqual(inThisThread.indices, graph.indices, 'the worker thread builds the graph this thread builds');
    assert.deepEqual(inThisThread.similarities, graph.similarities);
  });
});

/** `clustered` rows with copies planted: groups of 2 to 40 copies of one row, scattered through the matrix. */
function withCopies(rows: number, cols: number, seed: number): DenseMatrix {
  const matrix = clustered(rows, cols, seed);
  const random = createRandom(seed + 1);
  for (let row = 1; row < rows; row++) {
    if (random() < 0.4) continue;
    // Copy a recent row (so groups grow), or row 0 (so one group is far larger than k).
    const source = random() < 0.1 ? 0 : Math.max(0, row - 1 - Math.floor(random() * 20));
    matrix.data.copyWithin(row * cols, source * cols, (source + 1) * cols);
  }
  return matrix;
}

describe('knnGraphBySize with identical rows', () => {
  test('searches each distinct row once and gives the exact graph of all rows, ties by index', async () => {
    for (const [rows, k] of [[1200, 10], [300, 29], [12, 20]] as const) {
      const matrix = withCopies(rows, 24, rows);
      const graph = await knnGraphBySize(matrix, k);
      const exact = exactKnnGraphSync(matrix, k);
      assert.equal(graph.exact, true);
      assert.ok(graph.searchedRows < rows * 0.75, `${graph.searchedRows} rows searched of ${rows}`);
      assert.deepEqual(graph.indices, exact.indices, `${rows} rows, k = ${k}`);
      assert.deepEqual(graph.similarities, exact.similarities);
    }
  });

  test('a few copies are searched as they are, with the same graph', async () => {
    const matrix = clustered(400, 16, 4);
    for (const row of [10, 11, 12, 200]) matrix.data.copyWithin(row * 16, 5 * 16, 6 * 16);
    const graph = await knnGraphBySize(matrix, 10);
    assert.equal(graph.searchedRows, 400);
    assert.deepEqual(graph.indices, exactKnnGraphSync(matrix, 10).indices);
  });

  test('4,000 copies of one row are searched as one row', async () => {
    const rows = 4000;
    const row = clustered(1, 16, 3).data;
    const data = new Float32Array(rows * 16);
    for (let copy = 0; copy < rows; copy++) data.set(row, copy * 16);
    const matrix = { rows, cols: 16, data };
    const graph = await knnGraphBySize(matrix, 29);
    assert.equal(graph.searchedRows, 1);
    const exact = exactKnnGraphSync(matrix, 29);
    assert.deepEqual(graph.indices, exact.indices);
    assert.deepEqual(graph.similarities, exact.similarities);
  });

  test('is exact while the rows searched are at most exactUpTo, and NN-descent over them above', async () => {
    const matrix = withCopies(1500, 32, 9);
    const exact = exactKnnGraphSync(matrix, 10);
    const { searchedRows } = await knnGraphBySize(matrix, 10);
    const atLimit = await knnGraphBySize(matrix, 10, { exactUpTo: searchedRows });
    assert.equal(atLimit.exact, true);
    assert.deepEqual(atLimit.indices, exact.indices);
    const approximate = await knnGraphBySize(matrix, 10, { exactUpTo: searchedRows - 1 });
    assert.equal(approximate.exact, false);
    assert.ok(knnGraphRecall(approximate, exact) >= 0.95, `recall ${knnGraphRecall(approximate, exact)}`);
    const again = await knnGraphBySize(matrix, 10, { exactUpTo: searchedRows - 1, worker: false });
    assert.deepEqual(again.indices, approximate.indices, 'the same graph in this thread');
  });

  test('stops with the abort reason when its signal aborts while worker threads build the graph', async () => {
    const matrix = withCopies(1500, 32, 5);
    const controller = new AbortController();
    const building = knnGraphBySize(matrix, 10, { exactUpTo: 100, signal: controller.signal });
    controller.abort();
    await assert.rejects(building, (error: unknown) => error instanceof Error && error.name === 'AbortError');
    await assert.rejects(knnGraphBySize(matrix, 10, { signal: controller.signal }), (error: unknown) => error instanceof Error && error.name === 'AbortError');
  });
});
