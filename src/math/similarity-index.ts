import type { CsrMatrix } from './csr-matrix.js';
import { sparseMatrixTransposeVectorProduct } from './sparse-matrix-vector-product.js';
import { ResidentMatrix } from './wasm/resident-matrix.js';

/** Exact similarities of query vectors to every row of a vector space (unit vectors: cosine). */
export interface SimilarityIndex {
  readonly rows: number;
  readonly dimensions: number;
  /** How rows are held: a dense matrix in kernel memory, or a sparse dimension × row matrix. */
  readonly layout: 'dense' | 'sparse';
  /** `out[q · rows + r]` = ⟨query q, row r⟩ for `count` queries stored one after the other (a fresh array). */
  scoreMany(queries: Float32Array, count: number): Float32Array;
}

/**
 * Share of non-zero coordinates up to which rows are kept sparse. The weight-free local embedder hashes a
 * short text's few features into 1024 coordinates, so phrase and fact vectors are mostly zeros (2Wiki: 27
 * and 57 non-zeros per row, 3 % and 6 %); then scoring touches only the postings of the query's non-zero
 * coordinates instead of streaming every row (on 2Wiki's 128k phrase and fact vectors the dense scan reads
 * 525 MB per query). Dense embeddings exceed it and keep the SIMD kernel.
 */
export const maxSparseDensity = 0.2;

/** Queries scored per kernel call, so the kernel's scratch memory is sized once (at load) and never grows mid-query. */
const denseQueryBlock = 8;

function denseIndex(rows: number, dimensions: number, data: Float32Array): SimilarityIndex {
  const resident = ResidentMatrix.load({ rows, cols: dimensions, data });
  // Grows the scratch area to its largest use now, so no query pays for copying the matrix into a bigger memory.
  resident.scoreQueries(new Float32Array(denseQueryBlock * dimensions), denseQueryBlock);
  return {
    rows,
    dimensions,
    layout: 'dense',
    scoreMany(queries, count) {
      const out = new Float32Array(count * rows);
      for (let start = 0; start < count; start += denseQueryBlock) {
        const size = Math.min(denseQueryBlock, count - start);
        // The kernel's output is a view into its scratch memory, valid until its next call: copied at once.
        out.set(resident.scoreQueries(queries.subarray(start * dimensions, (start + size) * dimensions), size), start * rows);
      }
      return out;
    },
  };
}

function sparseIndex(rows: number, dimensions: number, data: Float32Array, nonZeros: number): SimilarityIndex {
  // The transpose (dimensions × rows) directly: postings per coordinate, rows ascending within each.
  const rowPointers = new Int32Array(dimensions + 1);
  for (let row = 0; row < rows; row++) {
    const offset = row * dimensions;
    for (let dimension = 0; dimension < dimensions; dimension++) if (data[offset + dimension] !== 0) rowPointers[dimension + 1] = (rowPointers[dimension + 1] as number) + 1;
  }
  for (let dimension = 0; dimension < dimensions; dimension++) rowPointers[dimension + 1] = (rowPointers[dimension + 1] as number) + (rowPointers[dimension] as number);
  const cursor = rowPointers.slice(0, dimensions);
  const columnIndices = new Int32Array(nonZeros);
  const values = new Float64Array(nonZeros);
  for (let row = 0; row < rows; row++) {
    const offset = row * dimensions;
    for (let dimension = 0; dimension < dimensions; dimension++) {
      const value = data[offset + dimension] as number;
      if (value === 0) continue;
      const position = cursor[dimension] as number;
      columnIndices[position] = row;
      values[position] = value;
      cursor[dimension] = position + 1;
    }
  }
  const postings: CsrMatrix = { rows: dimensions, cols: rows, rowPointers, columnIndices, values };
  const scores = new Float64Array(rows);
  return {
    rows,
    dimensions,
    layout: 'sparse',
    scoreMany(queries, count) {
      const out = new Float32Array(count * rows);
      for (let query = 0; query < count; query++) {
        // (postingsᵀ)·q = rows·q, visiting only the postings of the query's non-zero coordinates.
        sparseMatrixTransposeVectorProduct(postings, queries.subarray(query * dimensions, (query + 1) * dimensions), scores);
        out.set(scores, query * rows);
      }
      return out;
    },
  };
}

/**
 * A {@link SimilarityIndex} over `rows` vectors of `dimensions` stored row-major in `data`: sparse when at
 * most {@link maxSparseDensity} of the coordinates are non-zero, dense otherwise. Both are exact up to the
 * order of a float sum (the last bits of a score).
 */
export function createSimilarityIndex(rows: number, dimensions: number, data: Float32Array): SimilarityIndex {
  let nonZeros = 0;
  for (let position = 0; position < rows * dimensions; position++) if (data[position] !== 0) nonZeros++;
  return nonZeros <= maxSparseDensity * rows * dimensions ? sparseIndex(rows, dimensions, data, nonZeros) : denseIndex(rows, dimensions, data);
}
