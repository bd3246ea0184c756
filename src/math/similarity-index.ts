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
 * 525 MB per query, which alone takes ~50 ms here). Dense embeddings exceed it and keep the SIMD kernel.
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

/**
 * Postings (the transpose of the rows, dimensions × rows): for coordinate d, the rows with a non-zero value there
 * are `rowIds[pointers[d] .. pointers[d + 1])`, ascending, with `values` alongside.
 */
interface Postings {
  pointers: Int32Array;
  rowIds: Int32Array;
  values: Float32Array;
}

function postingsIndex(rows: number, dimensions: number, postings: Postings): SimilarityIndex {
  const { pointers, rowIds, values } = postings;
  const scores = new Float64Array(rows);
  return {
    rows,
    dimensions,
    layout: 'sparse',
    scoreMany(queries, count) {
      const out = new Float32Array(count * rows);
      for (let query = 0; query < count; query++) {
        scores.fill(0);
        const offset = query * dimensions;
        // rows·q, visiting only the postings of the query's non-zero coordinates; each row's sum runs over the
        // coordinates in ascending order, as a dense dot product's would (zero terms add nothing).
        for (let dimension = 0; dimension < dimensions; dimension++) {
          const weight = queries[offset + dimension] as number;
          if (weight === 0) continue;
          const end = pointers[dimension + 1] as number;
          for (let entry = pointers[dimension] as number; entry < end; entry++) {
            const row = rowIds[entry] as number;
            scores[row] = (scores[row] as number) + (values[entry] as number) * weight;
          }
        }
        out.set(scores, query * rows);
      }
      return out;
    },
  };
}

function sparseIndexFromDense(rows: number, dimensions: number, data: Float32Array, nonZeros: number): SimilarityIndex {
  const pointers = new Int32Array(dimensions + 1);
  for (let row = 0; row < rows; row++) {
    const offset = row * dimensions;
    for (let dimension = 0; dimension < dimensions; dimension++) if (data[offset + dimension] !== 0) pointers[dimension + 1] = (pointers[dimension + 1] as number) + 1;
  }
  for (let dimension = 0; dimension < dimensions; dimension++) pointers[dimension + 1] = (pointers[dimension + 1] as number) + (pointers[dimension] as number);
  const cursor = pointers.slice(0, dimensions);
  const rowIds = new Int32Array(nonZeros);
  const values = new Float32Array(nonZeros);
  for (let row = 0; row < rows; row++) {
    const offset = row * dimensions;
    for (let dimension = 0; dimension < dimensions; dimension++) {
      const value = data[offset + dimension] as number;
      if (value === 0) continue;
      const position = cursor[dimension] as number;
      rowIds[position] = row;
      values[position] = value;
      cursor[dimension] = position + 1;
    }
  }
  return postingsIndex(rows, dimensions, { pointers, rowIds, values });
}

/** Sparse rows in CSR form: row r's coordinates are `columnIndices[rowPointers[r] .. rowPointers[r + 1])`. */
export interface SparseRows {
  rowPointers: Int32Array;
  columnIndices: Int32Array;
  values: Float32Array;
}

/**
 * Query vectors a sparse index scores row by row before it builds postings. Row by row, a query costs one pass
 * over every stored entry (2Wiki's 75,000 fact vectors: 4.3 million, ~10 ms); postings cost about ten such
 * passes to build and then touch only the query's coordinates (a fiftieth of the entries). A one-question
 * process (a CLI query) never builds them; a server builds them once its queries have paid for them.
 */
export const sparseQueriesBeforePostings = 8;

/** Postings of sparse rows (the transpose, dimensions × rows), index rows ascending within each coordinate. */
function transposeRows(rows: number, dimensions: number, source: SparseRows, sourceOf: Int32Array): Postings {
  const sourcePointers = source.rowPointers;
  const sourceColumns = source.columnIndices;
  const sourceValues = source.values;
  const pointers = new Int32Array(dimensions + 1);
  for (let row = 0; row < rows; row++) {
    const sourceRow = sourceOf[row] as number;
    if (sourceRow < 0) continue;
    const end = sourcePointers[sourceRow + 1] as number;
    for (let entry = sourcePointers[sourceRow] as number; entry < end; entry++) {
      const next = (sourceColumns[entry] as number) + 1;
      pointers[next] = (pointers[next] as number) + 1;
    }
  }
  for (let dimension = 0; dimension < dimensions; dimension++) pointers[dimension + 1] = (pointers[dimension + 1] as number) + (pointers[dimension] as number);
  const nonZeros = pointers[dimensions] as number;
  const cursor = pointers.slice(0, dimensions);
  const rowIds = new Int32Array(nonZeros);
  const values = new Float32Array(nonZeros);
  for (let row = 0; row < rows; row++) {
    const sourceRow = sourceOf[row] as number;
    if (sourceRow < 0) continue;
    const end = sourcePointers[sourceRow + 1] as number;
    for (let entry = sourcePointers[sourceRow] as number; entry < end; entry++) {
      const dimension = sourceColumns[entry] as number;
      const position = cursor[dimension] as number;
      rowIds[position] = row;
      values[position] = sourceValues[entry] as number;
      cursor[dimension] = position + 1;
    }
  }
  return { pointers, rowIds, values };
}

/**
 * A sparse {@link SimilarityIndex} of `rows` rows built straight from sparse rows, never holding a dense
 * `rows × dimensions` matrix. `rowOf[s]` is the index row of source row `s` (−1 leaves it out; identity when
 * omitted); index rows no source row maps to score 0. The first {@link sparseQueriesBeforePostings} query
 * vectors are scored row by row, later ones through postings; each row's sum runs over its coordinates in
 * ascending order either way (zero terms add nothing), so the scores are the same bit for bit, and equal those
 * of the same vectors held densely up to the order of a float sum.
 */
export function createSparseSimilarityIndex(rows: number, dimensions: number, source: SparseRows, rowOf?: Int32Array): SimilarityIndex {
  const sourceRows = source.rowPointers.length - 1;
  const sourceOf = new Int32Array(rows).fill(-1);
  for (let sourceRow = 0; sourceRow < sourceRows; sourceRow++) {
    const row = rowOf === undefined ? sourceRow : (rowOf[sourceRow] as number);
    if (row >= 0 && row < rows) sourceOf[row] = sourceRow;
  }
  let rowMajor: SparseRows | undefined = source;
  let postings: SimilarityIndex | undefined;
  let scored = 0;
  return {
    rows,
    dimensions,
    layout: 'sparse',
    scoreMany(queries, count) {
      if (!postings && scored + count > sparseQueriesBeforePostings) {
        postings = postingsIndex(rows, dimensions, transposeRows(rows, dimensions, rowMajor as SparseRows, sourceOf));
        rowMajor = undefined;
      }
      if (postings) return postings.scoreMany(queries, count);
      scored += count;
      const { rowPointers, columnIndices, values } = rowMajor as SparseRows;
      const out = new Float32Array(count * rows);
      for (let query = 0; query < count; query++) {
        const offset = query * dimensions;
        const target = query * rows;
        for (let row = 0; row < rows; row++) {
          const sourceRow = sourceOf[row] as number;
          if (sourceRow < 0) continue;
          let sum = 0;
          const end = rowPointers[sourceRow + 1] as number;
          for (let entry = rowPointers[sourceRow] as number; entry < end; entry++) sum += (values[entry] as number) * (queries[offset + (columnIndices[entry] as number)] as number);
          out[target + row] = sum;
        }
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
  return nonZeros <= maxSparseDensity * rows * dimensions ? sparseIndexFromDense(rows, dimensions, data, nonZeros) : denseIndex(rows, dimensions, data);
}
