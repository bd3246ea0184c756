import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { finishTask } from '../../core/cooperative-task.js';
import { createRandom } from '../../core/random.js';
import type { DenseMatrix } from '../../math/dense-matrix.js';
import { normalizeRows } from '../../math/dense-vectors.js';
import { exactKnnGraph } from '../../math/exact-knn-graph.js';
import type { KnnGraph } from '../../math/knn-graph.js';
import { nnDescent } from '../../math/nn-descent.js';
import { updateKnnGraphTask } from './update-knn-graph.js';

/**
 * A pool of unit vectors, every fifth a copy of an earlier one, so that equal scores (ties, broken by index) are
 * common; the rows of a corpus are picked from the pool by id.
 */
function pool(size: number, cols: number, seed: number): Float32Array {
  const random = createRandom(seed);
  const data = Float32Array.from({ length: size * cols }, () => random() * 2 - 1);
  for (let row = 5; row < size; row += 5) {
    const of = Math.floor(random() * row);
    data.copyWithin(row * cols, of * cols, (of + 1) * cols);
  }
  normalizeRows({ rows: size, cols, data });
  return data;
}

function matrixOf(vectors: Float32Array, cols: number, ids: readonly number[]): DenseMatrix {
  const data = new Float32Array(ids.length * cols);
  ids.forEach((id, row) => data.set(vectors.subarray(id * cols, (id + 1) * cols), row * cols));
  return { rows: ids.length, cols, data };
}

function plain(graph: KnnGraph): { n: number; k: number; indices: number[]; similarities: number[] } {
  return { n: graph.n, k: graph.k, indices: Array.from(graph.indices), similarities: Array.from(graph.similarities) };
}

/** The rows of `next` in `previous` (−1 for new ones). */
function previousRows(previous: readonly number[], next: readonly number[]): Int32Array {
  const rowOf = new Map(previous.map((id, row) => [id, row]));
  return Int32Array.from(next, (id) => rowOf.get(id) ?? -1);
}

/**
 * One round of changes to `ids`: deletes about `deleteShare` of them anywhere, inserts a few between kept ids (their
 * order stays) and appends fewer than `appendBelow`; new ids count up from `firstNew`.
 */
function changeRows(ids: readonly number[], random: () => number, deleteShare: number, appendBelow: number, firstNew: number): { kept: number[]; next: number[] } {
  let nextId = firstNew;
  const kept = ids.filter(() => random() >= deleteShare);
  const next: number[] = [];
  for (const id of kept) {
    next.push(id);
    if (random() < 0.02) next.push(nextId++);
  }
  const appended = Math.floor(random() * appendBelow);
  for (let index = 0; index < appended; index++) next.push(nextId++);
  return { kept, next };
}

describe('updateKnnGraphTask', () => {
  test('random adds and deletes: the updated graph is the exact graph of the new rows, bit for bit', async () => {
    const cols = 12;
    const vectors = pool(600, cols, 7);
    const random = createRandom(11);
    let ids = Array.from({ length: 150 }, (_, id) => id);
    let nextId = 150;
    let graph = await exactKnnGraph(matrixOf(vectors, cols, ids), 8, { threads: 1 });
    let rescored = 0;
    for (let round = 0; round < 12; round++) {
      const { kept, next } = changeRows(ids, random, 0.04, 6, nextId);
      nextId += next.length - kept.length;
      const matrix = matrixOf(vectors, cols, next);
      // Random vectors have no structure: a deleted row sits in many lists, so the share is lifted to score them all.
      const updated = finishTask(updateKnnGraphTask(graph, previousRows(ids, next), matrix, 8, { maxScoredShare: 1 }));
      assert.ok(updated, `round ${round}`);
      assert.deepEqual(plain(updated.graph), plain(await exactKnnGraph(matrix, 8, { threads: 1 })), `round ${round}`);
      assert.equal(updated.addedRows, next.length - kept.length);
      rescored += updated.rescoredRows;
      ids = next;
      graph = updated.graph;
    }
    assert.ok(rescored > 0, 'some rows lost a neighbour to a deletion and were scored again');
  });

  test('more rows to score than one block, against more rows than one tile: the exact graph, bit for bit', async () => {
    const cols = 12;
    const vectors = pool(700, cols, 5);
    const ids = Array.from({ length: 560 }, (_, id) => id);
    const next = [...ids.filter((id) => id % 50 !== 3), ...Array.from({ length: 140 }, (_, index) => 560 + index)];
    const graph = await exactKnnGraph(matrixOf(vectors, cols, ids), 6, { threads: 1 });
    const matrix = matrixOf(vectors, cols, next);
    const updated = finishTask(updateKnnGraphTask(graph, previousRows(ids, next), matrix, 6, { maxScoredShare: 1 }));
    assert.ok(updated);
    assert.equal(updated.addedRows, 140);
    assert.deepEqual(plain(updated.graph), plain(await exactKnnGraph(matrix, 6, { threads: 1 })));
  });

  test('with a reserve: adds and deletes keep every list the exact top of the rows, and rows that lose no more than their reserve are not scored again', async () => {
    const cols = 12;
    const k = 6;
    const reserve = 6;
    const vectors = pool(700, cols, 17);
    const random = createRandom(19);
    let ids = Array.from({ length: 160 }, (_, id) => id);
    let nextId = 160;
    let lists = await exactKnnGraph(matrixOf(vectors, cols, ids), k + reserve, { threads: 1 });
    let graph = await exactKnnGraph(matrixOf(vectors, cols, ids), k, { threads: 1 });
    let rescoredWithReserve = 0;
    let rescoredWithout = 0;
    for (let round = 0; round < 14; round++) {
      const { kept, next } = changeRows(ids, random, 0.03, 5, nextId);
      nextId += next.length - kept.length;
      const matrix = matrixOf(vectors, cols, next);
      const links = previousRows(ids, next);
      const updated = finishTask(updateKnnGraphTask(lists, links, matrix, k, { maxScoredShare: 1, reserve }));
      const plainUpdate = finishTask(updateKnnGraphTask(graph, links, matrix, k, { maxScoredShare: 1 }));
      assert.ok(updated && plainUpdate, `round ${round}`);
      assert.equal(updated.graph.k, k + reserve);
      // Every list is a prefix, at least k long, of the row's exact list of k + reserve (ties by index as the search ranks them).
      const exact = await exactKnnGraph(matrix, k + reserve, { threads: 1 });
      for (let row = 0; row < next.length; row++) {
        const slots = (graph: KnnGraph): [number[], number[]] => [Array.from(graph.indices.subarray(row * (k + reserve), (row + 1) * (k + reserve))), Array.from(graph.similarities.subarray(row * (k + reserve), (row + 1) * (k + reserve)))];
        const [indices, similarities] = slots(updated.graph);
        const length = indices.indexOf(-1) < 0 ? k + reserve : indices.indexOf(-1);
        assert.ok(length >= k, `round ${round} row ${row}: ${length} neighbours`);
        assert.ok(indices.slice(length).every((index) => index === -1), `round ${round} row ${row}: padding only at the end`);
        const [exactIndices, exactSimilarities] = slots(exact);
        assert.deepEqual(indices.slice(0, length), exactIndices.slice(0, length), `round ${round} row ${row}`);
        assert.deepEqual(similarities.slice(0, length), exactSimilarities.slice(0, length), `round ${round} row ${row}`);
      }
      assert.equal(updated.addedRows, next.length - kept.length);
      rescoredWithReserve += updated.rescoredRows;
      rescoredWithout += plainUpdate.rescoredRows;
      ids = next;
      lists = updated.graph;
      graph = plainUpdate.graph;
    }
    assert.ok(rescoredWithout > 0, 'some rows lost a neighbour to a deletion');
    assert.ok(rescoredWithReserve < rescoredWithout / 4, `with a reserve ${rescoredWithReserve} rows were scored again, without ${rescoredWithout}`);
  });

  test('on an NN-descent graph: new lists are exact, and no kept list gets worse', async () => {
    const cols = 16;
    const vectors = pool(1300, cols, 13);
    const ids = Array.from({ length: 1200 }, (_, id) => id);
    const previous = nnDescent(matrixOf(vectors, cols, ids), 10, { sampleRate: 1, delta: 1e-4, maxIterations: 20, seed: 42 });
    const next = [...ids, ...Array.from({ length: 30 }, (_, index) => 1200 + index)];
    const matrix = matrixOf(vectors, cols, next);
    const updated = finishTask(updateKnnGraphTask(previous, previousRows(ids, next), matrix, 10, { maxScoredShare: 1 / 32 }));
    assert.ok(updated);
    const exact = await exactKnnGraph(matrix, 10, { threads: 1 });
    const row = (graph: KnnGraph, index: number): number[] => Array.from(graph.indices.subarray(index * 10, index * 10 + 10));
    for (let index = 1200; index < next.length; index++) assert.deepEqual(row(updated.graph, index), row(exact, index));
    for (let index = 0; index < 1200; index++) {
      const last = index * 10 + 9;
      assert.ok((updated.graph.similarities[last] as number) >= (previous.similarities[last] as number), `row ${index}`);
    }
  });

  test('kept rows in another order, or another k: undefined, so that the caller searches afresh', async () => {
    const cols = 8;
    const vectors = pool(40, cols, 3);
    const ids = Array.from({ length: 30 }, (_, id) => id);
    const graph = await exactKnnGraph(matrixOf(vectors, cols, ids), 5, { threads: 1 });
    const swapped = [1, 0, ...ids.slice(2)];
    assert.equal(finishTask(updateKnnGraphTask(graph, previousRows(ids, swapped), matrixOf(vectors, cols, swapped), 5)), undefined);
    assert.equal(finishTask(updateKnnGraphTask(graph, previousRows(ids, ids), matrixOf(vectors, cols, ids), 6)), undefined);
  });

  test('more rows to score than the share allows: undefined', async () => {
    const cols = 8;
    const vectors = pool(80, cols, 5);
    const ids = Array.from({ length: 40 }, (_, id) => id);
    const graph = await exactKnnGraph(matrixOf(vectors, cols, ids), 4, { threads: 1 });
    const next = [...ids, ...Array.from({ length: 20 }, (_, index) => 40 + index)];
    const matrix = matrixOf(vectors, cols, next);
    assert.equal(finishTask(updateKnnGraphTask(graph, previousRows(ids, next), matrix, 4)), undefined);
    const updated = finishTask(updateKnnGraphTask(graph, previousRows(ids, next), matrix, 4, { maxScoredShare: 1 }));
    assert.ok(updated);
    assert.deepEqual(plain(updated.graph), plain(await exactKnnGraph(matrix, 4, { threads: 1 })));
  });
});
