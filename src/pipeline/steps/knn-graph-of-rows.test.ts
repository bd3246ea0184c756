import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../../core/random.js';
import type { DenseMatrix } from '../../math/dense-matrix.js';
import { normalizeRows } from '../../math/dense-vectors.js';
import { exactKnnGraph } from '../../math/exact-knn-graph.js';
import type { KnnGraph } from '../../math/knn-graph.js';
import { nnDescent } from '../../math/nn-descent.js';
import { knnGraphOfRows } from './knn-graph-of-rows.js';

/** Unit rows; rows listed in `copies` repeat an earlier row (a duplicated chunk) and lie among its nearest. */
function vectors(rows: number, cols: number, seed: number, copies: ReadonlyMap<number, number> = new Map()): DenseMatrix {
  const random = createRandom(seed);
  const data = Float32Array.from({ length: rows * cols }, () => random() * 2 - 1);
  for (const [copy, of] of copies) data.copyWithin(copy * cols, of * cols, (of + 1) * cols);
  const matrix = { rows, cols, data };
  normalizeRows(matrix);
  return matrix;
}

function pick(matrix: DenseMatrix, rows: Int32Array): DenseMatrix {
  const data = new Float32Array(rows.length * matrix.cols);
  rows.forEach((row, index) => data.set(matrix.data.subarray(row * matrix.cols, (row + 1) * matrix.cols), index * matrix.cols));
  return { rows: rows.length, cols: matrix.cols, data };
}

function plain(graph: KnnGraph): { k: number; indices: number[]; similarities: number[] } {
  return { k: graph.k, indices: Array.from(graph.indices), similarities: Array.from(graph.similarities) };
}

describe('knnGraphOfRows', () => {
  test("truncating the exact graph's rows gives the exact graph of a smaller k, bit for bit", async () => {
    const matrix = vectors(300, 24, 1);
    const rows = Int32Array.from({ length: 300 }, (_, row) => row);
    const wide = await exactKnnGraph(matrix, 29, { threads: 1 });
    const narrow = knnGraphOfRows(wide, rows, 10);
    assert.ok(narrow);
    assert.deepEqual(plain(narrow.graph), plain(await exactKnnGraph(matrix, 10, { threads: 1 })));
    assert.equal(narrow.rescored, 0);
  });

  test('leaving rows out gives the exact graph of the rest; rows that lost neighbours to them are rescored', async () => {
    // Rows 200–219 copy rows 0–19 and are left out, as AutoKG leaves out near-duplicate chunks: every copied row
    // loses its twin, the first of its neighbours, and most rows lose a copy among their 29 (random vectors have no
    // structure), so their lists run short and are scored again; the share is lifted so that all of them are.
    const copies = new Map(Array.from({ length: 20 }, (_, index) => [200 + index, index] as const));
    const matrix = vectors(260, 16, 2, copies);
    const kept = Int32Array.from({ length: 260 }, (_, row) => row).filter((row) => !copies.has(row));
    const full = await exactKnnGraph(matrix, 29, { threads: 1 });
    const restricted = knnGraphOfRows(full, kept, 29, { matrix, maxRescoredShare: 1 });
    assert.ok(restricted);
    assert.ok(restricted.rescored >= 20, `rescored ${restricted.rescored}`);
    assert.deepEqual(plain(restricted.graph), plain(await exactKnnGraph(pick(matrix, kept), 29, { threads: 1 })));
  });

  test('too many rows to rescore: undefined, so that the caller searches the kept rows afresh', async () => {
    const copies = new Map(Array.from({ length: 100 }, (_, index) => [100 + index, index] as const));
    const matrix = vectors(200, 8, 3, copies);
    const kept = Int32Array.from({ length: 100 }, (_, row) => row);
    assert.equal(knnGraphOfRows(await exactKnnGraph(matrix, 5, { threads: 1 }), kept, 5, { matrix }), undefined);
  });

  test('on an NN-descent graph, truncated rows are not the lists NN-descent finds at the smaller k, and lose no recall', async () => {
    // What sharing changes above `index.knn.exactUpTo`: kgp's k = 10 lists become the first 10 of the k = 29 search.
    const matrix = vectors(1500, 24, 4);
    const rows = Int32Array.from({ length: 1500 }, (_, row) => row);
    const options = { sampleRate: 1, delta: 1e-4, maxIterations: 20, seed: 42 };
    const truncated = knnGraphOfRows(nnDescent(matrix, 29, options), rows, 10);
    assert.ok(truncated);
    const direct = nnDescent(matrix, 10, options);
    const exact = await exactKnnGraph(matrix, 10, { threads: 1 });
    const recall = (graph: KnnGraph): number => {
      let found = 0;
      for (let row = 0; row < 1500; row++) {
        const truth = new Set(exact.indices.subarray(row * 10, row * 10 + 10));
        for (const index of graph.indices.subarray(row * 10, row * 10 + 10)) if (truth.has(index)) found++;
      }
      return found / (1500 * 10);
    };
    assert.notDeepEqual(Array.from(truncated.graph.indices), Array.from(direct.indices));
    assert.ok(recall(truncated.graph) >= recall(direct), `recall truncated ${recall(truncated.graph)} vs direct ${recall(direct)}`);
  });
});
