import { appendAll } from '../core/append-all.js';
import type { CsrMatrix } from '../math/csr-matrix.js';
import { csrConnectedComponents } from '../math/csr-operations.js';
import { conjugateGradient } from '../math/conjugate-gradient.js';

/*
 * Graph Laplace learning (harmonic extension with Dirichlet labels) for AutoKG's keyword → chunk assignment.
 *
 * [Reference]: X. Zhu, Z. Ghahramani, J. Lafferty, "Semi-supervised learning using Gaussian fields and
 * harmonic functions", ICML 2003; AutoKG (wispcarey/AutoKG `autoKG_full.py: coretexts_seg_individual →
 * PosNNeg_seg`, notebook call trust_num=5, negative_multiplier=7, connect_threshold=0.2) with graphlearning
 * 1.2.7 `ssl.laplace._fit` (L = D − W, CG on the Jacobi-scaled system, tol 1e-5) as the solver.
 *
 * Per keyword: positives are the `trustNum` chunks nearest to the keyword by angle, negatives the
 * `negativeMultiplier·trustNum` farthest; u solves L_uu·u_u = −L_ul·u_l with u = 1 on positives and 0 on
 * negatives; chunk i belongs to the keyword when u_i ≥ 0.5 (argmax of (u, 1 − u), ties positive); a keyword
 * with more than `connectThreshold·N` members keeps those with u ≥ the ⌊connectThreshold·N⌋-th largest u (ties
 * can keep a few more).
 *
 * How it is solved. The Laplacian is built once per graph ({@link prepareLaplaceLearning}) and shared by all
 * keywords. Each keyword has its own labelled set, so L_uu differs per keyword; instead of forming it, CG runs
 * on the full L with the labelled rows masked (math/conjugate-gradient.ts: residual and search direction held
 * at 0 there, labels entering through x₀), `blockSize` keywords at a time so one pass over L serves several
 * keywords. graphlearning solves the positive and the negative column and stops on their stacked residual;
 * on a component with a labelled node u_pos + u_neg = 1, so only the positive column is solved here and the
 * tolerance applies to its residual alone (at most √2 looser than the stacked criterion).
 *
 * Where this differs from the reference, on purpose:
 *  - A component without labelled nodes gets u = 0 and no member ("not connected"); the reference gets
 *    U = (0, 0) there, whose argmax attaches the whole component to every keyword.
 *  - With N < (1 + negativeMultiplier)·trustNum the nearest and farthest sets overlap; the reference then
 *    gives an index two labels (the last, negative, wins in u while both enter the right-hand side). Here
 *    positives win: negatives are the farthest chunks among the non-positives, min(negatives, N − positives)
 *    of them. With N ≤ trustNum every chunk is a positive.
 *  - Ties in the angle ranking are broken by chunk index (numpy's argsort is not stable), and the cap keeps at
 *    least one chunk when ⌊connectThreshold·N⌋ = 0 (numpy's `partition(u, -0)[-0]` is the smallest value, so
 *    the reference then attaches every chunk).
 *
 * Membership rule. `argmax` is the reference's u ≥ 0.5. With 5 positives against 35 negatives on a K = 30 graph
 * the harmonic function flattens towards the label share 5/40 away from the seeds (the degeneracy of Laplace
 * learning at few labels, Calder et al., "Poisson learning", ICML 2020), so u rarely reaches 0.5: on the
 * 109-chunk sample corpus no unlabelled chunk of any keyword does, and on 2Wiki (6,121 chunks) keywords average
 * 5.6 members, barely more than their seeds — the keyword graph then only links keywords with overlapping seeds.
 * `balanced` weighs each class by the inverse of its share of the labels before the argmax (the class-prior
 * correction of Zhu et al. 2003 §4, with the labelled proportions as priors): u/π₊ ≥ (1 − u)/π₋ ⇔
 * u ≥ π₊ = positives / (positives + negatives). The u ranking is unchanged; more chunks pass, and the cap bounds them.
 * On the sample corpus that links keywords through the chunks they share beyond their seeds; on 2Wiki it is far too
 * broad (756 members per keyword, half the keywords at the cap: docs/BENCHMARKS.md), hence opt-in.
 *
 * Defaults: trustNum 5, negativeMultiplier 7, connectThreshold 0.2, membership `argmax`, tolerance 1e-5,
 * maxIterations 10⁵, blockSize 8.
 */

/** Defaults of {@link laplaceLearning} and {@link selectAutoKgSeeds} (AutoKG notebook, graphlearning 1.2.7). */
export const laplaceLearningDefaults = {
  /** Positives per keyword: the nearest chunks (`trust_num`). */
  trustNum: 5,
  /** Negatives per keyword = negativeMultiplier · trustNum farthest chunks (`negative_multiplier`). */
  negativeMultiplier: 7,
  /** A keyword keeps at most about this fraction of the chunks (`connect_threshold`). */
  connectThreshold: 0.2,
  /** Which scores make a member: the reference's u ≥ 0.5 (see the header). */
  membership: 'argmax' as LaplaceMembership,
  /** Absolute CG tolerance on the Jacobi-preconditioned residual (graphlearning `tol`). */
  tolerance: 1e-5,
  /** CG iterations at most (graphlearning `conjgrad` T). */
  maxIterations: 100_000,
  /** Keywords solved together in one block CG. */
  blockSize: 8,
} as const;

/** A chunk graph prepared for Laplace learning: its combinatorial Laplacian and components. */
export interface LaplaceLearningGraph {
  readonly n: number;
  /** L = D − W (self-loops of W cancel and are not stored). */
  readonly laplacian: CsrMatrix;
  /** Connected component of every node. */
  readonly component: Int32Array;
  readonly componentCount: number;
}

/** Builds L = D − W for a symmetric non-negative weight matrix, once per graph. */
export function prepareLaplaceLearning(weights: CsrMatrix): LaplaceLearningGraph {
  const n = weights.rows;
  if (weights.cols !== n) throw new RangeError(`prepareLaplaceLearning: weight matrix is ${n}×${weights.cols}, not square`);
  const { rowPointers, columnIndices, values } = weights;
  const outPointers = new Int32Array(n + 1);
  const outColumns = new Int32Array((rowPointers[n] as number) + n);
  const outValues = new Float64Array((rowPointers[n] as number) + n);
  let written = 0;
  for (let row = 0; row < n; row++) {
    let degree = 0;
    const end = rowPointers[row + 1] as number;
    for (let entry = rowPointers[row] as number; entry < end; entry++) {
      const column = columnIndices[entry] as number;
      const weight = values[entry] as number;
      if (!(weight >= 0)) throw new RangeError('prepareLaplaceLearning: weights must be non-negative');
      if (column !== row) degree += weight;
    }
    let diagonalWritten = false;
    for (let entry = rowPointers[row] as number; entry < end; entry++) {
      const column = columnIndices[entry] as number;
      if (column === row) continue;
      if (!diagonalWritten && column > row) {
        outColumns[written] = row;
        outValues[written++] = degree;
        diagonalWritten = true;
      }
      outColumns[written] = column;
      outValues[written++] = -(values[entry] as number);
    }
    if (!diagonalWritten) {
      outColumns[written] = row;
      outValues[written++] = degree;
    }
    outPointers[row + 1] = written;
  }
  const laplacian: CsrMatrix = { rows: n, cols: n, rowPointers: outPointers, columnIndices: outColumns.slice(0, written), values: outValues.slice(0, written) };
  const { component, count } = csrConnectedComponents(weights);
  return { n, laplacian, component, componentCount: count };
}

/** Labelled chunks of one keyword. */
export interface KeywordSeeds {
  /** Chunks labelled as belonging (u = 1). */
  positives: ArrayLike<number>;
  /** Chunks labelled as not belonging (u = 0); a chunk in both lists counts as positive. */
  negatives: ArrayLike<number>;
}

/** Options of {@link selectAutoKgSeeds}. */
export interface AutoKgSeedOptions {
  /** @default 5 */
  trustNum?: number;
  /** @default 7 */
  negativeMultiplier?: number;
  /** Negatives per keyword, when given directly instead of as a multiple of trustNum. @default negativeMultiplier · trustNum */
  negatives?: number;
}

/**
 * AutoKG's labelled sets for one keyword from the cosine similarity of every chunk to it: the `trustNum`
 * most similar (smallest angle) are positives, the `negativeMultiplier·trustNum` least similar of the rest
 * negatives. Ties go to the smaller chunk index. O(N·(trustNum + negatives)) worst case, O(N) typically.
 */
export function selectAutoKgSeeds(similarities: ArrayLike<number>, options: AutoKgSeedOptions = {}): { positives: Int32Array; negatives: Int32Array } {
  const n = similarities.length;
  const trustNum = options.trustNum ?? laplaceLearningDefaults.trustNum;
  const negativeMultiplier = options.negativeMultiplier ?? laplaceLearningDefaults.negativeMultiplier;
  const positiveCount = Math.min(trustNum, n);
  const positives = topByScore(similarities, positiveCount, 1, undefined);
  const isPositive = new Uint8Array(n);
  for (const node of positives) isPositive[node] = 1;
  const negativeCount = options.negatives ?? negativeMultiplier * trustNum;
  if (!Number.isInteger(negativeCount) || negativeCount < 0) throw new RangeError(`selectAutoKgSeeds: ${negativeCount} negatives`);
  const negatives = topByScore(similarities, Math.min(negativeCount, n - positiveCount), -1, isPositive);
  return { positives, negatives };
}

/**
 * The `count` entries with the highest `direction·score` (direction −1: lowest score), ties by index, as a
 * sorted insertion buffer — the counts here are small (5 and 35).
 */
function topByScore(scores: ArrayLike<number>, count: number, direction: 1 | -1, exclude: Uint8Array | undefined): Int32Array {
  const chosen = new Int32Array(count);
  const keys = new Float64Array(count);
  let size = 0;
  for (let index = 0; index < scores.length; index++) {
    if (exclude !== undefined && exclude[index] === 1) continue;
    const key = direction * (scores[index] as number);
    if (size === count && !(key > (keys[count - 1] as number))) continue;
    let position = size < count ? size++ : count - 1;
    while (position > 0 && key > (keys[position - 1] as number)) {
      keys[position] = keys[position - 1] as number;
      chosen[position] = chosen[position - 1] as number;
      position--;
    }
    keys[position] = key;
    chosen[position] = index;
  }
  return chosen.slice(0, size);
}

/** Options of {@link laplaceLearning}. */
export interface LaplaceLearningOptions {
  /** @default 0.2 */
  connectThreshold?: number;
  /** @default 1e-5 */
  tolerance?: number;
  /** @default 100000 */
  maxIterations?: number;
  /** Keywords per block CG; 8 is the widest unrolled product (wider blocks use a slower generic loop). @default 8 */
  blockSize?: number;
  /** `argmax`: u ≥ 0.5 (reference); `balanced`: u ≥ positives / (positives + negatives). @default 'argmax' */
  membership?: LaplaceMembership;
}

/** How Laplace scores become membership (see the header). */
export type LaplaceMembership = 'argmax' | 'balanced';

/** Laplace learning output for one keyword. */
export interface KeywordAssignment {
  /** u of every chunk: 1 on positives, 0 on negatives and on chunks in components without labels. */
  scores: Float64Array;
  /** Member chunks after the membership rule and the cap, ascending. */
  members: Int32Array;
  /** Whether the cap removed members. */
  capped: boolean;
  /** Chunks in components that hold no labelled chunk (never members). */
  unconnected: number;
  /** CG iterations used. */
  iterations: number;
}

/** The settings of one Laplace learning run, defaults filled in. */
export interface LaplaceLearningSettings {
  connectThreshold: number;
  tolerance: number;
  maxIterations: number;
  blockSize: number;
  membership: LaplaceMembership;
}

/** {@link LaplaceLearningOptions} with the defaults filled in. */
export function laplaceLearningSettings(options: LaplaceLearningOptions = {}): LaplaceLearningSettings {
  return {
    connectThreshold: options.connectThreshold ?? laplaceLearningDefaults.connectThreshold,
    tolerance: options.tolerance ?? laplaceLearningDefaults.tolerance,
    maxIterations: options.maxIterations ?? laplaceLearningDefaults.maxIterations,
    blockSize: Math.max(1, options.blockSize ?? laplaceLearningDefaults.blockSize),
    membership: options.membership ?? laplaceLearningDefaults.membership,
  };
}

/**
 * Assigns chunks to keywords by Laplace learning on a prepared chunk graph, one keyword per seed set.
 * Deterministic; throws `MATH_CG_NOT_CONVERGED` if a solve exceeds maxIterations.
 */
export function laplaceLearning(graph: LaplaceLearningGraph, keywords: readonly KeywordSeeds[], options: LaplaceLearningOptions = {}): KeywordAssignment[] {
  const settings = laplaceLearningSettings(options);
  const results: KeywordAssignment[] = [];
  for (let first = 0; first < keywords.length; first += settings.blockSize) appendAll(results, laplaceLearningBlock(graph, keywords, first, settings));
  return results;
}

/**
 * The keywords `first … first + blockSize − 1` of {@link laplaceLearning}, solved together in one block CG. Blocks
 * are independent: solving them in any order, or in different threads, gives the same assignments.
 */
export function laplaceLearningBlock(graph: LaplaceLearningGraph, keywords: readonly KeywordSeeds[], first: number, settings: LaplaceLearningSettings): KeywordAssignment[] {
  const { n, laplacian, component, componentCount } = graph;
  const { connectThreshold, tolerance, maxIterations, membership } = settings;
  const results: KeywordAssignment[] = [];
  const labelledComponent = new Uint8Array(componentCount);
  const width = Math.min(settings.blockSize, keywords.length - first);
  const fixed = new Uint8Array(n * width);
  const initial = new Float64Array(n * width);
  for (let column = 0; column < width; column++) {
    const { positives, negatives } = keywords[first + column] as KeywordSeeds;
    for (let index = 0; index < negatives.length; index++) fixed[checkedNode(negatives[index] as number, n) * width + column] = 1;
    // Positives last, so a chunk in both lists ends up positive.
    for (let index = 0; index < positives.length; index++) {
      const node = checkedNode(positives[index] as number, n);
      fixed[node * width + column] = 1;
      initial[node * width + column] = 1;
    }
  }
  const solved = conjugateGradient(laplacian, new Float64Array(n * width), { columns: width, fixed, initial, tolerance, maxIterations });

  for (let column = 0; column < width; column++) {
    const scores = new Float64Array(n);
    labelledComponent.fill(0);
    for (let node = 0; node < n; node++) {
      scores[node] = solved.solution[node * width + column] as number;
      if (fixed[node * width + column] === 1) labelledComponent[component[node] as number] = 1;
    }
    const { positives, negatives } = keywords[first + column] as KeywordSeeds;
    const cut = membership === 'balanced' && positives.length + negatives.length > 0 ? positives.length / (positives.length + negatives.length) : 0.5;
    let unconnected = 0;
    let memberCount = 0;
    for (let node = 0; node < n; node++) {
      if (labelledComponent[component[node] as number] === 0) {
        // CG leaves these at exactly 0 already; the explicit write documents the rule.
        scores[node] = 0;
        unconnected++;
      } else if ((scores[node] as number) >= cut) {
        memberCount++;
      }
    }
    let threshold = cut;
    let capped = false;
    if (memberCount > n * connectThreshold) {
      const keep = Math.max(1, Math.trunc(n * connectThreshold));
      const sorted = Float64Array.from(scores).sort();
      threshold = sorted[n - keep] as number;
      capped = true;
    }
    const members: number[] = [];
    for (let node = 0; node < n; node++) {
      if (labelledComponent[component[node] as number] === 1 && (scores[node] as number) >= threshold) members.push(node);
    }
    results.push({ scores, members: Int32Array.from(members), capped: capped && members.length < memberCount, unconnected, iterations: solved.iterations[column] as number });
  }
  return results;
}

function checkedNode(node: number, n: number): number {
  if (!Number.isInteger(node) || node < 0 || node >= n) throw new RangeError(`laplaceLearning: seed ${node} is not a chunk of a ${n}-chunk graph`);
  return node;
}
