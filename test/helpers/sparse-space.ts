/*
 * Random sparse vectors and every read of a sparse space, for the SQLite tests that compare a store written one way
 * (appended, deferred) with a store given the same vectors in one upsert.
 */
import assert from 'node:assert/strict';
import type { SparseVector } from '../../src/providers/embed/embedder.js';
import { denseMatrixOfSparseRows } from '../../src/store/core/sparse-rows.js';
import type { Store } from '../../src/store/store.js';

/** The dimensions of the test space. */
export const sparseTestDimensions = 64;

/** A unit vector of up to six random columns. */
export function randomSparseVector(random: () => number): SparseVector {
  const columns = [...new Set(Array.from({ length: 6 }, () => Math.floor(random() * sparseTestDimensions)))].sort((left, right) => left - right);
  const values = Float32Array.from(columns, () => random() - 0.5);
  let norm = 0;
  for (const value of values) norm += value * value;
  return { dimensions: sparseTestDimensions, columns: Int32Array.from(columns), values: values.map((value) => value / Math.sqrt(norm)) };
}

/** Every read of the space `phrases`: ids, sparse rows, dense matrices (whole and of some ids), scores, a search. */
export async function describedSparseSpace(store: Store): Promise<unknown> {
  const space = store.vectors('phrases');
  const query = new Float32Array(sparseTestDimensions).fill(0.125);
  const ids = await space.ids();
  const some = ids.filter((_, index) => index % 3 === 1).reverse();
  const sparse = await space.loadSparse();
  const [dense, someDense] = [await space.load(), await space.load(some)];
  // The dense matrices filled from the postings are the sparse rows spread out.
  assert.deepEqual(dense, denseMatrixOfSparseRows(sparse, sparseTestDimensions));
  assert.deepEqual(someDense, denseMatrixOfSparseRows(sparse, sparseTestDimensions, some));
  return { ids, sparse, dense, someDense, scores: Array.from((await space.scoreMany(query, 1)).scores), top: await space.search(query, 7) };
}
