import type { CsrMatrix } from '../math/csr-matrix.js';
import { csrFromTriplets } from '../math/csr-matrix.js';
import { symmetrizeCsr } from '../math/csr-operations.js';
import type { KnnGraph } from '../math/knn-graph.js';

/*
 * Self-tuned Gaussian kernel weights on a kNN graph of unit vectors, as AutoKG builds its chunk graph.
 *
 * [Reference]: AutoKG (wispcarey/AutoKG, `autoKG_full.py: make_graph`) calls graphlearning 1.2.7
 * `weightmatrix.knnsearch` (Annoy, angular) and `weightmatrix.knn(kernel='gaussian')`; the paper (Chen &
 * Bertozzi, arXiv 2311.14740) writes w_ij = exp(−θ_ij²/√(τ_i·τ_j)). Self-tuning after L. Zelnik-Manor,
 * P. Perona, "Self-tuning spectral clustering", NIPS 2004.
 *
 * Three kernels, all scaled by the distance to the K-th (farthest used) neighbour:
 *  - `gaussian` (the reference code): w_ij = exp(−4·d_ij² / d_K(i)²) with the chord distance
 *    d = √(2 − 2·cos) between unit vectors (what Annoy's "angular" distance is), then (W + Wᵀ)/2, so an edge
 *    found from one side only keeps half its weight.
 *  - `angular` (the paper): w_ij = exp(−θ_ij² / √(τ_i·τ_j)) with the angle θ = arccos(cos) and, in our
 *    reading (the paper body was not available), τ_i = θ_K(i)², which makes the exponent scale-free like the
 *    other two; the formula is symmetric, so W is symmetrized by the elementwise maximum (union).
 *  - `symgaussian` (graphlearning ≥ 1.3): w_ij = exp(−4·d_ij² / (d_K(i)·d_K(j))) with chord distances,
 *    symmetrized by the maximum as graphlearning does.
 *
 * K counts neighbours other than the point itself. graphlearning's K includes the point (its search returns
 * the point in column 0), so AutoKG's K = 30 is K = 29 here, and the default. graphlearning 1.2.7 also stored
 * w_ii = 1 on the diagonal; it cancels in L = D − W and is not stored here (later graphlearning clears it too).
 * A zero scale (duplicate vectors) gives weight 1 to distance 0 and 0 otherwise instead of NaN.
 */

/** Defaults of {@link knnKernelWeights}. */
export const knnKernelWeightsDefaults = {
  /** Kernel formula; `gaussian` is AutoKG's code. */
  kernel: 'gaussian',
  /** Non-self neighbours per node (AutoKG's K = 30 counts the point itself). */
  k: 29,
} as const;

/** Kernel of {@link knnKernelWeights}. */
export type KnnKernel = 'gaussian' | 'angular' | 'symgaussian';

/** Options of {@link knnKernelWeights}. */
export interface KnnKernelWeightsOptions {
  /** @default 'gaussian' */
  kernel?: KnnKernel;
  /** Neighbours used per node (at most the graph's k; padding is skipped). @default 29 */
  k?: number;
}

/** The symmetric sparse weight matrix W (zero diagonal) of a kNN graph under one of AutoKG's kernels. */
export function knnKernelWeights(graph: KnnGraph, options: KnnKernelWeightsOptions = {}): CsrMatrix {
  const { n, indices, similarities } = graph;
  const kernel = options.kernel ?? knnKernelWeightsDefaults.kernel;
  const requested = options.k ?? knnKernelWeightsDefaults.k;
  if (!Number.isInteger(requested) || requested < 1) throw new RangeError(`knnKernelWeights: k = ${requested} must be a positive integer`);
  // A graph of one node has no neighbours (k = 0): no weights, rather than an error for a one-chunk corpus.
  const k = Math.min(requested, graph.k);
  if (k < 1) return csrFromTriplets(n, n, [], [], []);
  const angular = kernel === 'angular';

  // Per node: the distance (chord or angle) to its farthest used neighbour.
  const scale = new Float64Array(n);
  for (let node = 0; node < n; node++) {
    const base = node * graph.k;
    for (let rank = k - 1; rank >= 0; rank--) {
      if ((indices[base + rank] as number) < 0) continue;
      scale[node] = distance(similarities[base + rank] as number, angular);
      break;
    }
  }

  // The directed matrix row by row, straight into CSR: a row's entries are its list's, sorted by column (a stable
  // insertion sort of at most k), duplicates summed in list order, as `csrFromTriplets` orders and merges them. Its
  // two counting sorts over n·k triplets collected in plain arrays had cost most of an AutoKG update's keyword graph.
  const rowPointers = new Int32Array(n + 1);
  const columnIndices = new Int32Array(n * k);
  const values = new Float64Array(n * k);
  let written = 0;
  for (let node = 0; node < n; node++) {
    const base = node * graph.k;
    const rowStart = written;
    for (let rank = 0; rank < k; rank++) {
      const neighbour = indices[base + rank] as number;
      if (neighbour < 0 || neighbour === node) continue;
      const d = distance(similarities[base + rank] as number, angular);
      const squared = d * d;
      let denominator: number;
      if (kernel === 'gaussian') denominator = (scale[node] as number) ** 2 / 4;
      else if (kernel === 'symgaussian') denominator = ((scale[node] as number) * (scale[neighbour] as number)) / 4;
      else denominator = (scale[node] as number) * (scale[neighbour] as number);
      const value = denominator > 0 ? Math.exp(-squared / denominator) : squared === 0 ? 1 : 0;
      let at = written;
      while (at > rowStart && (columnIndices[at - 1] as number) > neighbour) {
        columnIndices[at] = columnIndices[at - 1] as number;
        values[at] = values[at - 1] as number;
        at--;
      }
      if (at > rowStart && columnIndices[at - 1] === neighbour) {
        // A neighbour listed twice: one entry, the sum (the shifted entries move back).
        values[at - 1] = (values[at - 1] as number) + value;
        columnIndices.copyWithin(at, at + 1, written + 1);
        values.copyWithin(at, at + 1, written + 1);
        continue;
      }
      columnIndices[at] = neighbour;
      values[at] = value;
      written++;
    }
    rowPointers[node + 1] = written;
  }
  const directed: CsrMatrix = { rows: n, cols: n, rowPointers, columnIndices: columnIndices.slice(0, written), values: values.slice(0, written) };
  return symmetrizeCsr(directed, kernel === 'gaussian' ? 'average' : 'max');
}

/** Chord distance √(2 − 2cos) or angle arccos(cos) between unit vectors from their cosine. */
function distance(cosine: number, angular: boolean): number {
  const clamped = Math.min(1, Math.max(-1, cosine));
  return angular ? Math.acos(clamped) : Math.sqrt(2 - 2 * clamped);
}
