import { KgragError } from '../core/errors.js';
import { createRandom } from '../core/random.js';
import type { Random } from '../core/random.js';
import type { DenseMatrix } from './dense-matrix.js';
import { squaredDistanceAt, squaredRowNorms } from './dense-vectors.js';
import { groupSumsScratchBytes, paddedStride, ResidentMatrix } from './wasm/resident-matrix.js';
import type { ResidentMatrixOptions } from './wasm/resident-matrix.js';

/*
 * k-means clustering: Lloyd's algorithm (S. Lloyd, "Least squares quantization in PCM", IEEE Trans.
 * Inf. Theory 1982) seeded with k-means++ (D. Arthur, S. Vassilvitskii, "k-means++: The Advantages of
 * Careful Seeding", SODA 2007): each new centre is drawn with probability proportional to the squared
 * distance to the nearest centre so far. By default the greedy variant the paper's authors mention in
 * their conclusion (and scikit-learn uses) draws 2 + ⌊ln k⌋ candidates per step and keeps the one that
 * lowers the potential most.
 *
 * Point–centre distances use ‖x − c‖² = ‖x‖² − 2⟨x, c⟩ + ‖c‖² with the SIMD kernel for ⟨x, c⟩; the
 * reported inertia is recomputed from exact differences. A cluster left empty takes the point farthest
 * from its centre (as scikit-learn does). The data are centred first (k-means is translation invariant),
 * which keeps that expansion accurate in float32 far from the origin. Lloyd stops when no point changes cluster, when the squared
 * centre shift is at most `tolerance` × the mean per-feature variance, or after `maxIterations`.
 * On distance ties a point keeps its cluster, else takes the lower centre index. Every random draw comes
 * from the seeded generator.
 *
 * Defaults: maxIterations 300, tolerance 1e-4, restarts 1 (scikit-learn's values for k-means++).
 */

/** Defaults of {@link kMeans}. */
export const kMeansDefaults = {
  maxIterations: 300,
  /** Relative to the mean per-feature variance of the data. */
  tolerance: 1e-4,
  /** Independent seedings (n_init); the lowest inertia wins. */
  restarts: 1,
  seed: 42,
  /** Points scored per kernel call in the assignment step. */
  rowBlock: 4096,
} as const;

/** Options of {@link kMeans}. */
export interface KMeansOptions extends ResidentMatrixOptions {
  /** @default kMeansDefaults.maxIterations */
  maxIterations?: number;
  /** @default kMeansDefaults.tolerance */
  tolerance?: number;
  /** @default kMeansDefaults.restarts */
  restarts?: number;
  /** k-means++ candidates per centre; 1 is the paper's plain algorithm. @default 2 + ⌊ln k⌋ */
  seedingCandidates?: number;
  /** Seed of the generator used when `random` is not given. @default kMeansDefaults.seed */
  seed?: number;
  /** Source of randomness (overrides `seed`). */
  random?: Random;
}

/** A clustering: `assignments[i]` is point i's cluster, `centroids` row c is cluster c's mean. */
export interface KMeansResult {
  assignments: Int32Array;
  centroids: DenseMatrix;
  /** Σ ‖x_i − centroid(i)‖². */
  inertia: number;
  /** Lloyd iterations of the returned restart. */
  iterations: number;
  /** Whether that restart stopped before `maxIterations`. */
  converged: boolean;
}

function invalidOption(message: string): KgragError {
  return new KgragError(message, { code: 'MATH_INVALID_OPTION', category: 'config' });
}

/** What every restart of one k-means run shares: the centred data, its row norms and the settings. */
export interface KMeansPlan {
  /** The column means, added back to the returned centroids. */
  means: Float64Array;
  /** The data minus its column means. */
  centred: DenseMatrix;
  squaredNorms: Float64Array;
  /** Lloyd stops once the squared centre shift is at most this. */
  shiftTolerance: number;
  maxIterations: number;
  restarts: number;
  seedingCandidates: number;
  random: Random;
}

/** Checks the arguments of a k-means run and centres its data. */
export function planKMeans(matrix: DenseMatrix, k: number, options: KMeansOptions = {}): KMeansPlan {
  const maxIterations = options.maxIterations ?? kMeansDefaults.maxIterations;
  const tolerance = options.tolerance ?? kMeansDefaults.tolerance;
  const restarts = options.restarts ?? kMeansDefaults.restarts;
  if (!Number.isInteger(k) || k < 1) throw new KgragError(`k must be a positive integer, got ${k}`, { code: 'MATH_INVALID_K', category: 'input' });
  if (k > matrix.rows) {
    throw new KgragError(`k-means cannot make ${k} clusters from ${matrix.rows} points`, {
      code: 'MATH_INVALID_K',
      category: 'input',
      hint: 'Use k no larger than the number of points',
    });
  }
  if (matrix.data.length !== matrix.rows * matrix.cols) {
    throw new KgragError(`Matrix data has ${matrix.data.length} values, expected ${matrix.rows} × ${matrix.cols}`, { code: 'MATH_INVALID_DIMENSIONS', category: 'input' });
  }
  if (!Number.isInteger(maxIterations) || maxIterations < 1) throw invalidOption(`maxIterations must be a positive integer, got ${maxIterations}`);
  if (!(tolerance >= 0)) throw invalidOption(`tolerance must be ≥ 0, got ${tolerance}`);
  if (!Number.isInteger(restarts) || restarts < 1) throw invalidOption(`restarts must be a positive integer, got ${restarts}`);
  const seedingCandidates = options.seedingCandidates ?? 2 + Math.floor(Math.log(k));
  if (!Number.isInteger(seedingCandidates) || seedingCandidates < 1) throw invalidOption(`seedingCandidates must be a positive integer, got ${seedingCandidates}`);

  const random = options.random ?? createRandom(options.seed ?? kMeansDefaults.seed);
  // k-means is translation invariant; centring keeps ‖x‖² − 2⟨x, c⟩ + ‖c‖² free of float32 cancellation.
  const means = columnMeans(matrix);
  const centred = centredCopy(matrix, means);
  const squaredNorms = squaredRowNorms(centred);
  const shiftTolerance = (tolerance * squaredNorms.reduce((sum, value) => sum + value, 0)) / Math.max(1, matrix.rows * matrix.cols);
  return { means, centred, squaredNorms, shiftTolerance, maxIterations, restarts, seedingCandidates, random };
}

/** The data a Lloyd run reads: the centred rows resident for the SIMD kernel, and as plain floats. */
export interface KMeansWorkspace {
  resident: ResidentMatrix;
  matrix: DenseMatrix;
  squaredNorms: Float64Array;
  rowBlock: number;
}

/** Scratch bytes a {@link KMeansWorkspace} scores with, for `k` centres (or fewer seeding candidates). */
export function kMeansScratchBytes(cols: number, k: number, seedingCandidates: number): number {
  const queries = Math.max(k, seedingCandidates);
  return Math.max(queries * (paddedStride(cols) + kMeansDefaults.rowBlock) * 4, groupSumsScratchBytes(cols, k));
}

/** The k-means++ starting centroids of every restart, drawn in restart order from the plan's generator. */
export function kMeansSeeds(workspace: KMeansWorkspace, k: number, plan: KMeansPlan): Float32Array[] {
  return Array.from({ length: plan.restarts }, () => seedCentroids(workspace, k, plan.seedingCandidates, plan.random));
}

/** The restart with the lowest inertia (the first of equals), its centroids moved back by the column means. */
export function bestKMeansRestart(results: readonly KMeansResult[], means: Float64Array): KMeansResult {
  let best: KMeansResult | undefined;
  for (const result of results) if (!best || result.inertia < best.inertia) best = result;
  const result = best as KMeansResult;
  const { data, cols } = result.centroids;
  for (let index = 0; index < data.length; index++) data[index] = (data[index] as number) + (means[index % cols] as number);
  return result;
}

/** Clusters the rows of `matrix` into `k` groups (k ≤ number of rows), in the calling thread. */
export function kMeans(matrix: DenseMatrix, k: number, options: KMeansOptions = {}): KMeansResult {
  const plan = planKMeans(matrix, k, options);
  const workspace: KMeansWorkspace = {
    resident: ResidentMatrix.load(plan.centred, options),
    matrix: plan.centred,
    squaredNorms: plan.squaredNorms,
    rowBlock: kMeansDefaults.rowBlock,
  };
  const results = kMeansSeeds(workspace, k, plan).map((centroids) => lloydRestart(workspace, centroids, k, plan.maxIterations, plan.shiftTolerance));
  return bestKMeansRestart(results, plan.means);
}

function columnMeans(matrix: DenseMatrix): Float64Array {
  const { rows, cols, data } = matrix;
  const means = new Float64Array(cols);
  for (let row = 0; row < rows; row++) for (let col = 0; col < cols; col++) means[col] = (means[col] as number) + (data[row * cols + col] as number);
  for (let col = 0; col < cols; col++) means[col] = (means[col] as number) / Math.max(1, rows);
  return means;
}

function centredCopy(matrix: DenseMatrix, means: Float64Array): DenseMatrix {
  const { rows, cols, data } = matrix;
  const centred = new Float32Array(rows * cols);
  for (let row = 0; row < rows; row++) for (let col = 0; col < cols; col++) centred[row * cols + col] = (data[row * cols + col] as number) - (means[col] as number);
  return { rows, cols, data: centred };
}

/** Squared distances of every point to `count` centres (rows of `centres`), `out[c · n + i]`, clamped at 0. */
function squaredDistancesToCentres(workspace: KMeansWorkspace, centres: Float32Array, count: number, out: Float64Array): void {
  const { resident, squaredNorms, matrix } = workspace;
  const n = matrix.rows;
  const cols = matrix.cols;
  const centreNorms = new Float64Array(count);
  for (let centre = 0; centre < count; centre++) {
    for (let col = 0; col < cols; col++) centreNorms[centre] = (centreNorms[centre] as number) + (centres[centre * cols + col] as number) ** 2;
  }
  for (let rowStart = 0; rowStart < n; rowStart += workspace.rowBlock) {
    const rowEnd = Math.min(n, rowStart + workspace.rowBlock);
    const width = rowEnd - rowStart;
    const scores = resident.scoreQueries(centres, count, rowStart, rowEnd);
    for (let centre = 0; centre < count; centre++) {
      const norm = centreNorms[centre] as number;
      for (let row = rowStart; row < rowEnd; row++) {
        out[centre * n + row] = Math.max(0, (squaredNorms[row] as number) - 2 * (scores[centre * width + row - rowStart] as number) + norm);
      }
    }
  }
}

/** Index drawn with probability proportional to `weights` (which sum to `total` > 0). */
function drawWeighted(weights: Float64Array, total: number, random: Random): number {
  const target = random() * total;
  let cumulative = 0;
  let last = 0;
  for (let index = 0; index < weights.length; index++) {
    const weight = weights[index] as number;
    if (weight <= 0) continue;
    cumulative += weight;
    last = index;
    if (cumulative > target) return index;
  }
  return last;
}

/** k-means++ seeding (greedy with `candidates` draws per centre). */
function seedCentroids(workspace: KMeansWorkspace, k: number, candidates: number, random: Random): Float32Array {
  const { matrix } = workspace;
  const n = matrix.rows;
  const cols = matrix.cols;
  const centroids = new Float32Array(k * cols);
  const copyPoint = (target: Float32Array, slot: number, point: number): void => {
    target.set(matrix.data.subarray(point * cols, (point + 1) * cols), slot * cols);
  };
  const closest = new Float64Array(n);
  const first = Math.floor(random() * n);
  copyPoint(centroids, 0, first);
  squaredDistancesToCentres(workspace, centroids, 1, closest);
  let potential = closest.reduce((sum, value) => sum + value, 0);

  const candidatePoints = new Int32Array(candidates);
  const candidateVectors = new Float32Array(candidates * cols);
  const candidateDistances = new Float64Array(candidates * n);
  for (let centre = 1; centre < k; centre++) {
    for (let candidate = 0; candidate < candidates; candidate++) {
      // With zero potential every point coincides with a centre: any point is as good as another.
      const point = potential > 0 ? drawWeighted(closest, potential, random) : Math.floor(random() * n);
      candidatePoints[candidate] = point;
      copyPoint(candidateVectors, candidate, point);
    }
    squaredDistancesToCentres(workspace, candidateVectors, candidates, candidateDistances);
    let bestCandidate = 0;
    let bestPotential = Number.POSITIVE_INFINITY;
    for (let candidate = 0; candidate < candidates; candidate++) {
      let candidatePotential = 0;
      for (let point = 0; point < n; point++) candidatePotential += Math.min(closest[point] as number, candidateDistances[candidate * n + point] as number);
      if (candidatePotential < bestPotential) {
        bestPotential = candidatePotential;
        bestCandidate = candidate;
      }
    }
    copyPoint(centroids, centre, candidatePoints[bestCandidate] as number);
    for (let point = 0; point < n; point++) closest[point] = Math.min(closest[point] as number, candidateDistances[bestCandidate * n + point] as number);
    potential = bestPotential;
  }
  return centroids;
}

/**
 * Assigns every point to its nearest centroid; on a tie a point keeps its cluster (so a relocated
 * duplicate stays put), else the lower index wins. Returns how many points changed cluster.
 */
function assign(workspace: KMeansWorkspace, centroids: Float32Array, k: number, assignments: Int32Array, distances: Float64Array): number {
  const { resident, squaredNorms, matrix } = workspace;
  const n = matrix.rows;
  const cols = matrix.cols;
  const centroidNorms = new Float64Array(k);
  for (let centre = 0; centre < k; centre++) {
    let norm = 0;
    for (let col = 0; col < cols; col++) norm += (centroids[centre * cols + col] as number) ** 2;
    centroidNorms[centre] = norm;
  }
  let changed = 0;
  for (let rowStart = 0; rowStart < n; rowStart += workspace.rowBlock) {
    const rowEnd = Math.min(n, rowStart + workspace.rowBlock);
    const width = rowEnd - rowStart;
    const scores = resident.scoreQueries(centroids, k, rowStart, rowEnd);
    for (let row = rowStart; row < rowEnd; row++) {
      // ‖x‖² is the same for every centre, so it is added only to the winner.
      const current = assignments[row] as number;
      let bestCentre = current < 0 ? 0 : current;
      let bestDistance = current < 0 ? Number.POSITIVE_INFINITY : (centroidNorms[current] as number) - 2 * (scores[current * width + row - rowStart] as number);
      for (let centre = 0; centre < k; centre++) {
        const distance = (centroidNorms[centre] as number) - 2 * (scores[centre * width + row - rowStart] as number);
        if (distance < bestDistance) {
          bestDistance = distance;
          bestCentre = centre;
        }
      }
      if (assignments[row] !== bestCentre) changed++;
      assignments[row] = bestCentre;
      distances[row] = Math.max(0, bestDistance + (squaredNorms[row] as number));
    }
  }
  return changed;
}

/** One Lloyd run from `initial` centroids (the centred data's), to convergence or `maxIterations`. */
export function lloydRestart(workspace: KMeansWorkspace, initial: Float32Array, k: number, maxIterations: number, shiftTolerance: number): KMeansResult {
  const { matrix } = workspace;
  const n = matrix.rows;
  const cols = matrix.cols;
  let centroids: Float32Array = initial;
  let next: Float32Array = new Float32Array(k * cols);
  const assignments = new Int32Array(n).fill(-1);
  const distances = new Float64Array(n);
  const sums = new Float64Array(k * cols);
  const counts = new Int32Array(k);
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    iterations++;
    const changed = assign(workspace, centroids, k, assignments, distances);
    if (changed === 0) {
      converged = true;
      break;
    }
    sums.fill(0);
    counts.fill(0);
    for (let point = 0; point < n; point++) counts[assignments[point] as number] = (counts[assignments[point] as number] as number) + 1;
    // Points in order, so each coordinate's sum is the same sequence of additions on either backend.
    workspace.resident.addRowsToGroupSums(assignments, k, sums);
    relocateEmptyClusters(workspace, assignments, distances, sums, counts);
    let shift = 0;
    for (let cluster = 0; cluster < k; cluster++) {
      const count = counts[cluster] as number;
      for (let col = 0; col < cols; col++) {
        const value = (sums[cluster * cols + col] as number) / count;
        next[cluster * cols + col] = value;
        shift += (value - (centroids[cluster * cols + col] as number)) ** 2;
      }
    }
    [centroids, next] = [next, centroids];
    if (shift <= shiftTolerance) {
      converged = true;
      break;
    }
  }
  // The returned assignments must belong to the returned centroids.
  assign(workspace, centroids, k, assignments, distances);
  let inertia = 0;
  for (let point = 0; point < n; point++) inertia += squaredDistanceAt(matrix.data, point * cols, centroids, (assignments[point] as number) * cols, cols);
  return { assignments, centroids: { rows: k, cols, data: centroids }, inertia, iterations, converged };
}

/** Gives each empty cluster the point farthest from its centroid (ties: lower index), one point per cluster. */
function relocateEmptyClusters(workspace: KMeansWorkspace, assignments: Int32Array, distances: Float64Array, sums: Float64Array, counts: Int32Array): void {
  const { matrix } = workspace;
  const cols = matrix.cols;
  for (let cluster = 0; cluster < counts.length; cluster++) {
    if (counts[cluster] !== 0) continue;
    let farthest = -1;
    for (let point = 0; point < matrix.rows; point++) {
      // A point that is alone in its cluster stays, or that cluster would empty in turn.
      if (counts[assignments[point] as number] === 1) continue;
      if (farthest === -1 || (distances[point] as number) > (distances[farthest] as number)) farthest = point;
    }
    if (farthest === -1) return;
    const previous = assignments[farthest] as number;
    counts[previous] = (counts[previous] as number) - 1;
    counts[cluster] = 1;
    for (let col = 0; col < cols; col++) {
      const value = matrix.data[farthest * cols + col] as number;
      sums[previous * cols + col] = (sums[previous * cols + col] as number) - value;
      sums[cluster * cols + col] = value;
    }
    assignments[farthest] = cluster;
    distances[farthest] = 0;
  }
}
