import { runTask } from '../../../core/cooperative-task.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import { knnGraphBySize } from '../../../math/knn-graph-by-size.js';
import type { KnnGraph } from '../../../math/knn-graph.js';
import { nearDuplicateRowsTask } from '../../../math/near-duplicate-rows.js';
import { knnGraphOfRowsTask } from '../../../pipeline/steps/knn-graph-of-rows.js';
import { nearDuplicatesAroundTask } from './near-duplicates-around.js';

/** Options of {@link autokgChunkGraph}. */
export interface AutokgChunkGraphOptions {
  /** Neighbours counting the chunk itself, as graphlearning counts them (AutoKG K = 30 → 29 others). */
  neighbours: number;
  /**
   * A chunk within this cosine distance of a chunk with fewer tokens is left out (AutoKG's
   * `remove_same_text(thresh=1e-6)`); 0 keeps every chunk.
   */
  duplicateDistance: number;
  /** Kept chunks up to which the graph is exact, NN-descent above. @default knnGraphBySizeDefaults.exactUpTo */
  exactUpTo?: number;
}

/** How a call of {@link autokgChunkGraph} runs: none of it changes the graph. */
export interface AutokgChunkGraphRun {
  /** Stops the work at its next pause; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Progress of the near-duplicate search: distinct chunk vectors searched, of all. */
  onProgress?: (done: number, total: number) => void;
  /**
   * The kNN graph of all input rows (the shared `chunk-knn` artifact), with at least `neighbours − 1` per row: the
   * graph of the kept rows is then taken from it (`knnGraphOfRows`) rather than searched again, unless so many rows
   * lost neighbours to the left-out duplicates that a new search costs less.
   */
  allRows?: { graph: KnnGraph; exact: boolean };
  /**
   * Rows one of which every pair of near-duplicates holds (an update: the rows left out before and the new rows):
   * only they and the rows near them are searched for near-duplicates (`near-duplicates-around.ts`), which finds
   * what a search of all rows finds.
   */
  nearDuplicateCandidates?: readonly number[];
}

/** The chunk graph of the kept chunks. */
export interface AutokgChunkGraph {
  /** Input rows that were kept, ascending; row i of `graph` is input row `kept[i]`. */
  kept: Int32Array;
  /** Input rows left out as near-duplicates. */
  duplicates: number;
  /** The kept rows' vectors, in graph order (the input itself when nothing was left out). */
  vectors: DenseMatrix;
  graph: KnnGraph;
  /** Whether the graph is exact; above `options.exactUpTo` kept chunks it is built by NN-descent. */
  exact: boolean;
  /** Rows whose lists were searched: those the shared graph's lists ran short for (`run.allRows`), else every kept row. */
  searchedRows: number;
}

/**
 * The chunk kNN graph AutoKG builds everything on (wispcarey/AutoKG `autoKG_full.py`): near-duplicate
 * chunks are removed first, as the reference does before clustering (its `remove_same_text`), so a
 * duplicated passage neither takes a neighbour slot of its twin's row nor counts twice among a keyword's
 * nearest chunks; then the kNN graph of the rest by cosine similarity, exact up to `options.exactUpTo` chunks (50,000 by default) and approximate
 * (NN-descent) above, as the reference's own graph is (Annoy, 10 trees). `vectors` are unit rows;
 * `lengths` are the chunks' token counts (the shorter twin is kept, as in the reference). Both searches group
 * identical vectors first, so copies of one chunk cost about what one chunk costs, and both pause often enough for
 * `run.signal` to stop them.
 */
export async function autokgChunkGraph(vectors: DenseMatrix, lengths: ArrayLike<number>, options: AutokgChunkGraphOptions, run: AutokgChunkGraphRun = {}): Promise<AutokgChunkGraph> {
  const { rows, cols } = vectors;
  const { signal } = run;
  const search =
    run.nearDuplicateCandidates === undefined
      ? nearDuplicateRowsTask(vectors.data, rows, cols, lengths, options.duplicateDistance, run.onProgress ? { onProgress: run.onProgress } : {})
      : nearDuplicatesAroundTask(vectors, lengths, options.duplicateDistance, run.nearDuplicateCandidates);
  const duplicateOf = options.duplicateDistance > 0 ? await runTask(search, { signal }) : new Int32Array(rows).fill(-1);
  const keptRows: number[] = [];
  duplicateOf.forEach((twin, row) => {
    if (twin === -1) keptRows.push(row);
  });
  const kept = Int32Array.from(keptRows);
  let keptVectors = vectors;
  if (kept.length !== rows) {
    const data = new Float32Array(kept.length * cols);
    kept.forEach((row, index) => data.set(vectors.data.subarray(row * cols, (row + 1) * cols), index * cols));
    keptVectors = { rows: kept.length, cols, data };
  }
  const k = Math.max(0, Math.min(options.neighbours - 1, kept.length - 1));
  if (cols === 0 || k === 0) return { kept, duplicates: rows - kept.length, vectors: keptVectors, graph: { n: kept.length, k: 0, indices: new Int32Array(0), similarities: new Float32Array(0) }, exact: true, searchedRows: 0 };
  // Rescoring a row scans every row: worth it for up to an eighth of the rows against the exact graph's n²/2 pairs, for
  // far fewer against NN-descent, which scores a small share of the pairs.
  const maxRescoredShare = run.allRows?.exact === false ? 1 / 32 : 1 / 8;
  const fromAllRows = run.allRows && run.allRows.graph.k >= k ? await runTask(knnGraphOfRowsTask(run.allRows.graph, kept, k, { matrix: vectors, maxRescoredShare }), { signal }) : undefined;
  if (run.allRows && fromAllRows) return { kept, duplicates: rows - kept.length, vectors: keptVectors, graph: fromAllRows.graph, exact: run.allRows.exact, searchedRows: fromAllRows.rescored };
  const { n, indices, similarities, exact } = await knnGraphBySize(keptVectors, k, { exactUpTo: options.exactUpTo, signal });
  return { kept, duplicates: rows - kept.length, vectors: keptVectors, graph: { n, k, indices, similarities }, exact, searchedRows: kept.length };
}
