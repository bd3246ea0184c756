import { KgragError } from '../core/errors.js';
import { createRandom } from '../core/random.js';
import type { Random } from '../core/random.js';
import type { DenseMatrix } from './dense-matrix.js';
import type { KnnGraph } from './knn-graph.js';
import { clearHeap, emptySlot, offerToHeap, sortHeap } from './top-k.js';
import { ResidentMatrix } from './wasm/resident-matrix.js';
import type { ResidentMatrixOptions } from './wasm/resident-matrix.js';

/*
 * Approximate k-nearest-neighbour graph by NN-descent: W. Dong, M. Charikar, K. Li, "Efficient K-Nearest
 * Neighbor Graph Construction for Generic Similarity Measures", WWW 2011 (Algorithm 2: local join with
 * incremental search, sampling and reverse neighbours). A neighbour of a neighbour is likely a neighbour:
 * every round, each point introduces its sampled neighbours (forward and reverse) to one another, and
 * every pair that improves someone's list is kept.
 *
 * - Initial lists come from the leaves of a few random-projection trees (as in PyNNDescent, McInnes), each
 *   leaf joined exhaustively, topped up with random points; on clustered data this starts near 0.5 recall
 *   and saves the two or three slow first rounds a random start needs.
 * - Sampling as in PyNNDescent: forward and reverse candidates share one list of ⌈ρK⌉ per point, chosen
 *   by random priority, separately for "new" (not yet joined) and "old" entries.
 * - Local joins score their pairs in one SIMD gather call per point (new × (new ∪ old)).
 * - Stops after `maxIterations` rounds, or when a round changes fewer than δ·n·K list entries.
 * - Every random choice comes from the seeded generator, so a seed gives one graph.
 *
 * Defaults: ρ = 0.5 and δ = 0.001 (the paper's values), at most 12 rounds, 8 trees with leaves of ≤ 64
 * points. It needs structure: on clustered vectors it converges in a few rounds near exact recall, on
 * structureless data (uniform on the sphere, where "a neighbour's neighbour is a neighbour" fails) it does
 * not, so use the exact graph there (bench/core-dense.ts; numbers in docs/BENCHMARKS.md).
 */

/** Defaults of {@link nnDescent}. */
export const nnDescentDefaults = {
  /** Rounds of local joins at most. */
  maxIterations: 12,
  /** ρ: fraction of K sampled as join candidates per point and kind (new / old). */
  sampleRate: 0.5,
  /** δ: stop when a round changes fewer than δ·n·K entries. */
  delta: 0.001,
  /** Random-projection trees whose leaves seed the lists (0: start from random lists only). */
  trees: 8,
  /** Points per leaf at most; every leaf is joined exhaustively. */
  leafSize: 64,
  seed: 42,
} as const;

/** Options of {@link nnDescent}. */
export interface NnDescentOptions extends ResidentMatrixOptions {
  /** @default nnDescentDefaults.maxIterations */
  maxIterations?: number;
  /** ρ in (0, 1]. @default nnDescentDefaults.sampleRate */
  sampleRate?: number;
  /** δ ≥ 0. @default nnDescentDefaults.delta */
  delta?: number;
  /** @default nnDescentDefaults.trees */
  trees?: number;
  /** @default nnDescentDefaults.leafSize */
  leafSize?: number;
  /** Seed of the generator used when `random` is not given. @default nnDescentDefaults.seed */
  seed?: number;
  /** Source of randomness (overrides `seed`). */
  random?: Random;
  /**
   * Stops the build between rounds (in nn-descent-in-threads.ts also during a round's joins) with the signal's
   * reason. In the calling thread only an abort from inside the work (a callback) is seen before the end.
   */
  signal?: AbortSignal | undefined;
}

/** A kNN graph with NN-descent's diagnostics. */
export interface NnDescentResult extends KnnGraph {
  /** Rounds run. */
  iterations: number;
  /** List entries changed in each round. */
  updatesPerIteration: number[];
  /** Distinct pairs joined (initialization included) over all n(n−1)/2 pairs: below 1 means less work than brute force. */
  scanRate: number;
}

/**
 * The neighbour lists: per point a `k`-slot heap (lowest-ranked entry at the root) in flat arrays, with a
 * "new" flag per entry that moves with it.
 */
export class NeighbourHeaps {
  readonly scores: Float32Array;
  readonly indices: Int32Array;
  readonly isNew: Uint8Array;

  constructor(
    readonly n: number,
    readonly k: number,
  ) {
    this.scores = new Float32Array(n * k);
    this.indices = new Int32Array(n * k);
    this.isNew = new Uint8Array(n * k);
    clearHeap(this.scores, this.indices, 0, n * k);
  }

  /** Inserts `index` into `point`'s list when it ranks above the list's lowest entry and is not there yet. */
  insert(point: number, score: number, index: number): boolean {
    const { scores, indices, isNew, k } = this;
    const offset = point * k;
    const rootScore = scores[offset] as number;
    if (!(score > rootScore || (score === rootScore && index < (indices[offset] as number)))) return false;
    for (let slot = offset; slot < offset + k; slot++) if (indices[slot] === index) return false;
    // Sift down from the root, carrying the flag with each entry.
    let parent = 0;
    for (;;) {
      let child = 2 * parent + 1;
      if (child >= k) break;
      const right = child + 1;
      if (right < k) {
        const rightScore = scores[offset + right] as number;
        const childScore = scores[offset + child] as number;
        if (rightScore < childScore || (rightScore === childScore && (indices[offset + right] as number) > (indices[offset + child] as number))) child = right;
      }
      const childScore = scores[offset + child] as number;
      if (childScore > score || (childScore === score && (indices[offset + child] as number) < index)) break;
      scores[offset + parent] = childScore;
      indices[offset + parent] = indices[offset + child] as number;
      isNew[offset + parent] = isNew[offset + child] as number;
      parent = child;
    }
    scores[offset + parent] = score;
    indices[offset + parent] = index;
    isNew[offset + parent] = 1;
    return true;
  }
}

/**
 * Candidate lists of capacity `capacity` per point, keeping the entries with the highest random
 * priority (a bounded heap on the priorities); `counts` says how many are filled.
 */
export class CandidateLists {
  readonly priorities: Float32Array;
  /** Over a SharedArrayBuffer when the lists are `shared`, so join workers read them in place. */
  readonly indices: Int32Array;
  readonly counts: Int32Array;

  constructor(
    readonly n: number,
    readonly capacity: number,
    shared: boolean,
  ) {
    this.priorities = new Float32Array(n * capacity);
    this.indices = shared ? new Int32Array(new SharedArrayBuffer(n * capacity * 4)) : new Int32Array(n * capacity);
    this.counts = shared ? new Int32Array(new SharedArrayBuffer(n * 4)) : new Int32Array(n);
  }

  reset(): void {
    clearHeap(this.priorities, this.indices, 0, this.n * this.capacity);
  }

  offer(point: number, priority: number, index: number): void {
    const offset = point * this.capacity;
    // Most offers lose to the lowest kept priority; test that before scanning for a duplicate.
    if (priority < (this.priorities[offset] as number)) return;
    for (let slot = offset; slot < offset + this.capacity; slot++) if (this.indices[slot] === index) return;
    offerToHeap(this.priorities, this.indices, offset, this.capacity, priority, index);
  }

  /** Compacts each list to its filled entries (in slot order) and records the counts. */
  compact(): void {
    for (let point = 0; point < this.n; point++) {
      const offset = point * this.capacity;
      let count = 0;
      for (let slot = offset; slot < offset + this.capacity; slot++) {
        const index = this.indices[slot] as number;
        if (index !== emptySlot) this.indices[offset + count++] = index;
      }
      this.counts[point] = count;
    }
  }

  has(point: number, index: number): boolean {
    const offset = point * this.capacity;
    const end = offset + (this.counts[point] as number);
    for (let slot = offset; slot < end; slot++) if (this.indices[slot] === index) return true;
    return false;
  }
}

/**
 * Builds one random-projection tree and joins every leaf exhaustively (all pairs enter both lists). Splits
 * are angular, as in Annoy and PyNNDescent: two random points x_a, x_b of the node, and each point goes to
 * the side of ⟨x, x_a⟩ − ⟨x, x_b⟩ (Dasgupta & Freund, "Random projection trees and low dimensional
 * manifolds", STOC 2008). Returns the number of pairs scored.
 */
function joinRandomProjectionLeaves(resident: ResidentMatrix, heaps: NeighbourHeaps, leafSize: number, random: Random): number {
  const n = resident.rows;
  const order = new Int32Array(n);
  for (let point = 0; point < n; point++) order[point] = point;
  const partitioned = new Int32Array(n);
  const pivots = new Int32Array(2);
  let pairs = 0;
  const ranges: number[] = [0, n];
  while (ranges.length > 0) {
    const end = ranges.pop() as number;
    const start = ranges.pop() as number;
    const size = end - start;
    const members = order.subarray(start, end);
    if (size <= leafSize) {
      const scores = resident.scoreRowSets(members, size, members, size);
      for (let first = 0; first < size; first++) {
        const a = members[first] as number;
        for (let second = first + 1; second < size; second++) {
          const b = members[second] as number;
          const score = scores[first * size + second] as number;
          heaps.insert(a, score, b);
          heaps.insert(b, score, a);
        }
      }
      pairs += (size * (size - 1)) / 2;
      continue;
    }
    const firstPivot = Math.floor(random() * size);
    const secondPivot = (firstPivot + 1 + Math.floor(random() * (size - 1))) % size;
    pivots[0] = members[firstPivot] as number;
    pivots[1] = members[secondPivot] as number;
    const margins = resident.scoreRowSets(pivots, 2, members, size);
    let left = 0;
    let right = size;
    for (let position = 0; position < size; position++) {
      const margin = (margins[position] as number) - (margins[size + position] as number);
      const goesLeft = margin > 0 || (margin === 0 && random() < 0.5);
      if (goesLeft) partitioned[left++] = members[position] as number;
      else partitioned[--right] = members[position] as number;
    }
    // Duplicates can all fall on one side; then halve by position so the recursion always ends.
    if (left === 0 || left === size) left = size >> 1;
    else members.set(partitioned.subarray(0, size));
    ranges.push(start, start + left, start + left, end);
  }
  return pairs;
}

/** Tops up lists that are not full (all of them when no trees ran) with random other points. */
function fillWithRandomNeighbours(resident: ResidentMatrix, heaps: NeighbourHeaps, random: Random): number {
  const { n, k } = heaps;
  const wanted = Math.min(k, n - 1);
  const chosen = new Int32Array(wanted);
  const self = new Int32Array(1);
  let pairs = 0;
  for (let point = 0; point < n; point++) {
    // Empty slots rank lowest, so a list with one sits at the root.
    if (heaps.indices[point * k] !== emptySlot) continue;
    // Floyd's sampling of `wanted` distinct values from the n − 1 other points.
    let count = 0;
    for (let draw = n - 1 - wanted; draw < n - 1; draw++) {
      let candidate = Math.floor(random() * (draw + 1));
      for (let seen = 0; seen < count; seen++) {
        if (chosen[seen] === candidate) {
          candidate = draw;
          break;
        }
      }
      chosen[count++] = candidate;
    }
    for (let slot = 0; slot < wanted; slot++) if ((chosen[slot] as number) >= point) chosen[slot] = (chosen[slot] as number) + 1;
    self[0] = point;
    const scores = resident.scoreRowSets(self, 1, chosen, wanted);
    for (let slot = 0; slot < wanted; slot++) heaps.insert(point, scores[slot] as number, chosen[slot] as number);
    pairs += wanted;
  }
  return pairs;
}

function checkOptions(matrix: DenseMatrix, k: number, sampleRate: number, maxIterations: number, delta: number): void {
  if (!Number.isInteger(k) || k < 0) throw new KgragError(`k must be a non-negative integer, got ${k}`, { code: 'MATH_INVALID_K', category: 'input' });
  if (!(sampleRate > 0 && sampleRate <= 1)) throw new KgragError(`sampleRate must be in (0, 1], got ${sampleRate}`, { code: 'MATH_INVALID_OPTION', category: 'config' });
  if (!Number.isInteger(maxIterations) || maxIterations < 0) {
    throw new KgragError(`maxIterations must be a non-negative integer, got ${maxIterations}`, { code: 'MATH_INVALID_OPTION', category: 'config' });
  }
  if (!(delta >= 0)) throw new KgragError(`delta must be ≥ 0, got ${delta}`, { code: 'MATH_INVALID_OPTION', category: 'config' });
  if (matrix.data.length !== matrix.rows * matrix.cols) {
    throw new KgragError(`Matrix data has ${matrix.data.length} values, expected ${matrix.rows} × ${matrix.cols}`, { code: 'MATH_INVALID_DIMENSIONS', category: 'input' });
  }
}

/**
 * An approximate k-nearest-neighbour graph of the rows of `matrix` by inner product (cosine similarity
 * on unit rows). Same layout and conventions as the exact graph; deterministic for a seed.
 */
export function nnDescent(matrix: DenseMatrix, k: number, options: NnDescentOptions = {}): NnDescentResult {
  const resident = ResidentMatrix.load(matrix, options);
  const rounds = nnDescentRounds(resident, matrix, k, options, false);
  for (let step = rounds.next(); ; step = rounds.next(joinRoundInline(resident, step.value))) {
    if (step.done) return step.value;
    options.signal?.throwIfAborted();
  }
}

/** The candidate lists of one NN-descent round, whose local joins a driver runs before the next round is drawn. */
export interface NnDescentJoinRound {
  heaps: NeighbourHeaps;
  newCandidates: CandidateLists;
  oldCandidates: CandidateLists;
}

/**
 * NN-descent as a sequence of rounds: everything but the local joins, which it hands to its driver round by round
 * (yielding the candidate lists, resumed with the number of list updates). The calling-thread driver joins inline;
 * nn-descent-in-threads.ts scores the joins in worker threads and applies them here, in the same order. The
 * candidate lists are over SharedArrayBuffers when `shared`.
 */
export function* nnDescentRounds(
  resident: ResidentMatrix,
  matrix: DenseMatrix,
  k: number,
  options: NnDescentOptions,
  shared: boolean,
): Generator<NnDescentJoinRound, NnDescentResult, number> {
  const sampleRate = options.sampleRate ?? nnDescentDefaults.sampleRate;
  const maxIterations = options.maxIterations ?? nnDescentDefaults.maxIterations;
  const delta = options.delta ?? nnDescentDefaults.delta;
  checkOptions(matrix, k, sampleRate, maxIterations, delta);
  const random = options.random ?? createRandom(options.seed ?? nnDescentDefaults.seed);
  const n = matrix.rows;
  const heaps = new NeighbourHeaps(n, k);
  const updatesPerIteration: number[] = [];
  let pairsScored = 0;
  const totalPairs = (n * (n - 1)) / 2;
  if (n <= 1 || k === 0) return finish(heaps, 0, updatesPerIteration, 0);

  const trees = options.trees ?? nnDescentDefaults.trees;
  const leafSize = Math.max(2, options.leafSize ?? nnDescentDefaults.leafSize);
  for (let tree = 0; tree < trees; tree++) pairsScored += joinRandomProjectionLeaves(resident, heaps, leafSize, random);
  pairsScored += fillWithRandomNeighbours(resident, heaps, random);

  const capacity = Math.max(1, Math.ceil(sampleRate * k));
  const newCandidates = new CandidateLists(n, capacity, shared);
  const oldCandidates = new CandidateLists(n, capacity, shared);
  let iterations = 0;
  while (iterations < maxIterations) {
    iterations++;
    newCandidates.reset();
    oldCandidates.reset();
    for (let point = 0; point < n; point++) {
      for (let slot = point * k; slot < (point + 1) * k; slot++) {
        const neighbour = heaps.indices[slot] as number;
        if (neighbour === emptySlot) continue;
        const lists = heaps.isNew[slot] === 1 ? newCandidates : oldCandidates;
        const priority = random();
        lists.offer(point, priority, neighbour);
        lists.offer(neighbour, priority, point);
      }
    }
    newCandidates.compact();
    oldCandidates.compact();
    // Entries sampled as new are joined this round; from now on they are old.
    for (let point = 0; point < n; point++) {
      for (let slot = point * k; slot < (point + 1) * k; slot++) {
        if (heaps.isNew[slot] === 1 && newCandidates.has(point, heaps.indices[slot] as number)) heaps.isNew[slot] = 0;
      }
    }
    for (let point = 0; point < n; point++) {
      const newCount = newCandidates.counts[point] as number;
      pairsScored += (newCount * (newCount - 1)) / 2 + newCount * (oldCandidates.counts[point] as number);
    }
    const updates = yield { heaps, newCandidates, oldCandidates };
    updatesPerIteration.push(updates);
    if (updates < delta * n * k) break;
  }
  return finish(heaps, iterations, updatesPerIteration, totalPairs === 0 ? 0 : pairsScored / totalPairs);
}

/** A round's candidate lists as the joins read them (CandidateLists, or their shared arrays in a worker). */
export interface JoinCandidates {
  newCandidates: { capacity: number; counts: Int32Array; indices: Int32Array };
  oldCandidates: { capacity: number; counts: Int32Array; indices: Int32Array };
}

/** Writes the point's join list (its new candidates, then its old ones) into `list` (2 · capacity long); returns the counts. */
function fillJoinList(round: JoinCandidates, point: number, list: Int32Array): { newCount: number; width: number } {
  const { newCandidates, oldCandidates } = round;
  const capacity = newCandidates.capacity;
  const newCount = newCandidates.counts[point] as number;
  const oldCount = oldCandidates.counts[point] as number;
  list.set(newCandidates.indices.subarray(point * capacity, point * capacity + newCount), 0);
  list.set(oldCandidates.indices.subarray(point * capacity, point * capacity + oldCount), newCount);
  return { newCount, width: newCount + oldCount };
}

/** A round's local joins in the calling thread: every point in order, each improving pair inserted at once. */
function joinRoundInline(resident: ResidentMatrix, round: NnDescentJoinRound): number {
  const { heaps, newCandidates } = round;
  const k = heaps.k;
  const list = new Int32Array(2 * newCandidates.capacity);
  let updates = 0;
  for (let point = 0; point < heaps.n; point++) {
    if (newCandidates.counts[point] === 0) continue;
    const { newCount, width } = fillJoinList(round, point, list);
    const scores = resident.scoreRowSets(list, newCount, list, width);
    const lowest = heaps.scores;
    for (let first = 0; first < newCount; first++) {
      const a = list[first] as number;
      // new × new pairs once (second > first), then new × old.
      for (let second = first + 1; second < width; second++) {
        const score = scores[first * width + second] as number;
        const b = list[second] as number;
        // Inline the test that rejects almost every pair: below both lists' lowest entries.
        if (score < (lowest[a * k] as number) && score < (lowest[b * k] as number)) continue;
        if (a === b) continue;
        if (heaps.insert(a, score, b)) updates++;
        if (heaps.insert(b, score, a)) updates++;
      }
    }
  }
  return updates;
}

/** Pairs of a local join that may improve a list, in join order: first[i], second[i] with similarity scores[i]. */
export interface NnDescentJoinPairs {
  first: Int32Array;
  second: Int32Array;
  scores: Float32Array;
}

/**
 * The local joins of points `start … end − 1`, scored but not applied: the pairs at or above either list's lowest
 * entry in `lowest` (each list's root at the start of the round). Lists only improve during a round, so a pair below
 * both there is below both later too, and the inline join would skip it as well.
 */
export function scoreJoinPairs(resident: ResidentMatrix, round: JoinCandidates, lowest: Float32Array, start: number, end: number): NnDescentJoinPairs {
  const first: number[] = [];
  const second: number[] = [];
  const kept: number[] = [];
  const list = new Int32Array(2 * round.newCandidates.capacity);
  for (let point = start; point < end; point++) {
    if (round.newCandidates.counts[point] === 0) continue;
    const { newCount, width } = fillJoinList(round, point, list);
    const scores = resident.scoreRowSets(list, newCount, list, width);
    for (let row = 0; row < newCount; row++) {
      const a = list[row] as number;
      for (let column = row + 1; column < width; column++) {
        const score = scores[row * width + column] as number;
        const b = list[column] as number;
        if ((score < (lowest[a] as number) && score < (lowest[b] as number)) || a === b) continue;
        first.push(a);
        second.push(b);
        kept.push(score);
      }
    }
  }
  return { first: Int32Array.from(first), second: Int32Array.from(second), scores: Float32Array.from(kept) };
}

/** Applies scored join pairs in order, as the inline join would; returns the list updates. */
export function applyJoinPairs(heaps: NeighbourHeaps, pairs: NnDescentJoinPairs): number {
  const { first, second, scores } = pairs;
  const lowest = heaps.scores;
  const k = heaps.k;
  let updates = 0;
  for (let index = 0; index < first.length; index++) {
    const a = first[index] as number;
    const b = second[index] as number;
    const score = scores[index] as number;
    if (score < (lowest[a * k] as number) && score < (lowest[b * k] as number)) continue;
    if (heaps.insert(a, score, b)) updates++;
    if (heaps.insert(b, score, a)) updates++;
  }
  return updates;
}

/** Each list's lowest entry (its heap root), the threshold {@link scoreJoinPairs} filters with. */
export function lowestScores(heaps: NeighbourHeaps, out: Float32Array): void {
  for (let point = 0; point < heaps.n; point++) out[point] = heaps.scores[point * heaps.k] as number;
}

function finish(heaps: NeighbourHeaps, iterations: number, updatesPerIteration: number[], scanRate: number): NnDescentResult {
  for (let point = 0; point < heaps.n; point++) sortHeap(heaps.scores, heaps.indices, point * heaps.k, heaps.k);
  return { n: heaps.n, k: heaps.k, indices: heaps.indices, similarities: heaps.scores, iterations, updatesPerIteration, scanRate };
}

/**
 * Recall of an approximate kNN graph against the exact one: the fraction of exact neighbours (index ≥ 0)
 * that the approximate lists contain.
 */
export function knnGraphRecall(approximate: KnnGraph, exact: KnnGraph): number {
  if (approximate.n !== exact.n || approximate.k !== exact.k) {
    throw new RangeError(`knnGraphRecall: graphs of ${approximate.n}×${approximate.k} and ${exact.n}×${exact.k} differ in shape`);
  }
  const { n, k } = exact;
  let found = 0;
  let total = 0;
  for (let point = 0; point < n; point++) {
    const offset = point * k;
    for (let slot = offset; slot < offset + k; slot++) {
      const neighbour = exact.indices[slot] as number;
      if (neighbour < 0) continue;
      total++;
      for (let other = offset; other < offset + k; other++) {
        if (approximate.indices[other] === neighbour) {
          found++;
          break;
        }
      }
    }
  }
  return total === 0 ? 1 : found / total;
}
