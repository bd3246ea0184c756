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
