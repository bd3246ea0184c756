import type { CsrMatrix } from '../../math/csr-matrix.js';
import { sparseMatrixProduct } from '../../math/sparse-matrix-product.js';

/** The incidence matrix and its transpose (see `RelationsGraph`). */
export interface Incidence {
  /** M: phrases × facts. */
  incidence: CsrMatrix;
  /** Mᵀ: facts × phrases. */
  incidenceTransposed: CsrMatrix;
}

/** Result of {@link expandRelations}. */
export interface RelationExpansion {
  /** Row i = row `seedFacts[i]` of RRd = (Mᵀ·M)^d: path counts from that seed fact to every fact. */
  fromRelation: CsrMatrix;
  /** Row i = row `seedPhrases[i]` of ERd = (M·Mᵀ)^d · M: path counts from that seed phrase to every fact. */
  fromEntity: CsrMatrix;
  /** Facts with a non-zero entry in any row of either matrix (from_relation ∪ from_entity), ascending. */
  candidates: Int32Array;
}

/** The |seeds| × n selection matrix S with S[i, seeds[i]] = 1, so that S·A is the rows `seeds` of A. */
function selectionMatrix(seeds: readonly number[], n: number): CsrMatrix {
  const rowPointers = new Int32Array(seeds.length + 1);
  const columnIndices = new Int32Array(seeds.length);
  seeds.forEach((seed, row) => {
    if (!Number.isInteger(seed) || seed < 0 || seed >= n) throw new RangeError(`expandRelations: seed ${seed} outside 0..${n - 1}`);
    columnIndices[row] = seed;
    rowPointers[row + 1] = row + 1;
  });
  return { rows: seeds.length, cols: n, rowPointers, columnIndices, values: new Float64Array(seeds.length).fill(1) };
}

/**
 * The expansion of Graph RAG with Milvus (milvus-io/bootcamp `tutorials/quickstart/graph_rag_with_milvus.ipynb` steps 3–4): with the phrase × fact
 * incidence M, EE1 = M·Mᵀ, RR1 = Mᵀ·M, EEd = EE1^d, RRd = RR1^d and ERd = EEd·M; the candidates are the
 * non-zero columns of the seed facts' rows of RRd and of the seed phrases' rows of ERd. At d = 1 a seed fact
 * reaches every fact sharing an endpoint with it, and a seed phrase reaches its facts and the facts of its
 * neighbours (two phrase hops; d = 0 gives the seeds themselves and each seed phrase's own facts).
 *
 * Only the seeds' rows are computed, by associativity — S·(Mᵀ·M)^d = ((S·Mᵀ)·M)… — so the entries are exactly
 * those of the notebook's whole-matrix products (path counts) at the cost of the rows a query touches,
 * never the |facts|² of RR1 that one hub phrase would fill.
 */
export function expandRelations(graph: Incidence, seedPhrases: readonly number[], seedFacts: readonly number[], degree: number): RelationExpansion {
  if (!Number.isInteger(degree) || degree < 0) throw new RangeError(`expandRelations: degree ${degree} is not a non-negative integer`);
  const { incidence, incidenceTransposed } = graph;
  let fromRelation = selectionMatrix(seedFacts, incidence.cols);
  for (let hop = 0; hop < degree; hop++) fromRelation = sparseMatrixProduct(sparseMatrixProduct(fromRelation, incidenceTransposed), incidence);
  let entityRows = selectionMatrix(seedPhrases, incidence.rows);
  for (let hop = 0; hop < degree; hop++) entityRows = sparseMatrixProduct(sparseMatrixProduct(entityRows, incidence), incidenceTransposed);
  const fromEntity = sparseMatrixProduct(entityRows, incidence);

  const reached = new Uint8Array(incidence.cols);
  let count = 0;
  for (const matrix of [fromRelation, fromEntity]) {
    const stored = matrix.rowPointers[matrix.rows] as number;
    for (let entry = 0; entry < stored; entry++) {
      const fact = matrix.columnIndices[entry] as number;
      if (reached[fact] === 0 && matrix.values[entry] !== 0) {
        reached[fact] = 1;
        count++;
      }
    }
  }
  const candidates = new Int32Array(count);
  let written = 0;
  for (let fact = 0; fact < reached.length; fact++) if (reached[fact] === 1) candidates[written++] = fact;
  return { fromRelation, fromEntity, candidates };
}
