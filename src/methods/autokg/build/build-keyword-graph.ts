import { knnKernelWeights, type KnnKernel } from '../../../graph/knn-kernel-weights.js';
import { laplaceLearningInThreads } from '../../../graph/laplace-learning-in-threads.js';
import { prepareLaplaceLearning, selectAutoKgSeeds, type KeywordSeeds, type LaplaceMembership } from '../../../graph/laplace-learning.js';
import { csrFromTriplets, type CsrMatrix } from '../../../math/csr-matrix.js';
import { transposeCsr } from '../../../math/csr-operations.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import type { KnnGraph } from '../../../math/knn-graph.js';
import { createSimilarityIndex, maxSparseDensity } from '../../../math/similarity-index.js';
import { kernelEqualScores, kernelEqualScoresApply } from '../../../math/wasm/kernel-equal-scores.js';
import { sparseMatrixProduct } from '../../../math/sparse-matrix-product.js';

/*
 * AutoKG's keyword graph (Chen & Bertozzi, arXiv 2311.14740 §3.2; wispcarey/AutoKG `make_graph(30)`,
 * `coretexts_seg_individual(k=30, trust_num=5, negative_multiplier=7, connect_threshold=0.2)`;
 * wispcarey/AutoKG `autoKG_full.py`):
 *  1. the chunk kNN graph (K = 30 counting the chunk itself, i.e. 29 other chunks) weighted by the
 *     selected kernel (graph/knn-kernel-weights.ts: the reference code's chord-distance Gaussian
 *     exp(−4d²/d_K(i)²) averaged with its transpose, or the paper's angular exp(−θ²/√(τiτj)) symmetrized by
 *     the maximum);
 *  2. per keyword, Laplace learning (graph/laplace-learning.ts) with the 5 chunks nearest the keyword's
 *     embedding as positives and the 35 farthest as negatives; a chunk joins the keyword when u ≥ 0.5 (or, with
 *     membership `balanced`, u ≥ 5/40: see graph/laplace-learning.ts for why), and a keyword keeps at most 20 %
 *     of the chunks (those with the highest u);
 *  3. the membership matrix P (chunks × keywords) gives the keyword graph W = PᵀP − diag(PᵀP): the weight of
 *     two keywords is the number of chunks they share (math/sparse-matrix-product.ts).
 *
 * Defaults: K = 30, kernel `gaussian` (reference code), 5 positives, 35 negatives, cap 0.2, membership `argmax`.
 */

/** Defaults of {@link buildKeywordGraph}. */
export const buildKeywordGraphDefaults = {
  /** Graph neighbours counting the chunk itself (graphlearning convention). */
  neighbours: 30,
  kernel: 'gaussian',
  positives: 5,
  negatives: 35,
  cap: 0.2,
} as const;

/** Options of {@link buildKeywordGraph}. */
export interface BuildKeywordGraphOptions {
  /** @default 30 */
  neighbours?: number;
  /** @default 'gaussian' */
  kernel?: KnnKernel;
  /** @default 5 */
  positives?: number;
  /** @default 35 */
  negatives?: number;
  /** Largest share of the chunks one keyword keeps. @default 0.2 */
  cap?: number;
  /** @default 'argmax' (u ≥ 0.5) */
  membership?: LaplaceMembership;
  /** Worker threads for Laplace learning on large graphs; 1 solves in the calling thread. @default availableParallelism() */
  threads?: number;
  /**
   * What an update keeps, per keyword (undefined: solve it): the seeds its members were solved with and those
   * members among the current chunks. A keyword whose positive seeds (its nearest chunks) are still the same keeps
   * them, and takes in the chunks of `newChunks` whose score, the weighted mean of their neighbours' (0 for a
   * non-member), passes the membership rule; the others are solved. Between refreshes of the corpus statistics only:
   * the members of kept keywords are not what a solve on the changed graph gives, but the positives, around which the
   * members lie, are. The negatives are not compared: they are the chunks farthest from the keyword, which hold the
   * scores at 0 far from its members, and new chunks often take a few of those places (1 % more chunks on 2Wiki
   * changed the negatives of 55 of 195 keywords), which moves the scores near the members very little.
   */
  kept?: ReadonlyArray<KeptKeyword | undefined>;
  /** Chunks new since the kept members were solved (1), for `kept`. */
  newChunks?: Uint8Array;
}

/** A keyword's members from an earlier run (see {@link BuildKeywordGraphOptions.kept}). */
export interface KeptKeyword {
  seeds: KeywordSeeds;
  members: KeywordMembers;
}

/** The chunks of one keyword with their Laplace scores. */
export interface KeywordMembers {
  /** Chunk indices, ascending. */
  chunks: Int32Array;
  /** u of each member chunk. */
  scores: Float64Array;
  capped: boolean;
}

/** An undirected keyword edge (a < b) weighted by the number of shared chunks. */
export interface KeywordGraphEdge {
  a: number;
  b: number;
  weight: number;
}

/** Result of {@link buildKeywordGraph}. */
export interface KeywordGraph {
  members: KeywordMembers[];
  edges: KeywordGraphEdge[];
  /** Keywords whose member set the cap cut. */
  cappedKeywords: number;
  /** CG iterations summed over keywords. */
  iterations: number;
  /** The seeds of every keyword, as chunk indices. */
  seeds: KeywordSeeds[];
  /** Keywords solved by Laplace learning (the others kept their members). */
  solved: number;
  /** Of those, keywords given as kept whose positive seeds changed. */
  reseeded: number;
}

/**
 * Assigns chunks to keywords and links keywords that share chunks. `chunkVectors` and `keywordVectors` are
 * unit rows of the same embedder; `graph` is the chunk kNN graph (at least `neighbours − 1` per chunk).
 */
export async function buildKeywordGraph(graph: KnnGraph, chunkVectors: DenseMatrix, keywordVectors: DenseMatrix, options: BuildKeywordGraphOptions = {}): Promise<KeywordGraph> {
  const n = chunkVectors.rows;
  const keywords = keywordVectors.rows;
  if (graph.n !== n) throw new RangeError(`buildKeywordGraph: graph of ${graph.n} chunks for ${n} chunk vectors`);
  if (keywords === 0 || n === 0) {
    const seeds = Array.from({ length: keywords }, () => ({ positives: new Int32Array(0), negatives: new Int32Array(0) }));
    return { members: Array.from({ length: keywords }, () => ({ chunks: new Int32Array(0), scores: new Float64Array(0), capped: false })), edges: [], cappedKeywords: 0, iterations: 0, seeds, solved: 0, reseeded: 0 };
  }
  const neighbours = options.neighbours ?? buildKeywordGraphDefaults.neighbours;
  const weights = knnKernelWeights(graph, { kernel: options.kernel ?? buildKeywordGraphDefaults.kernel, k: Math.max(1, Math.min(graph.k, neighbours - 1)) });

  const seedOptions = { trustNum: options.positives ?? buildKeywordGraphDefaults.positives, negatives: options.negatives ?? buildKeywordGraphDefaults.negatives };
  // A kept keyword whose seeds are all still chunks chooses among them and the new chunks only; the others score all.
  const newChunks = options.newChunks && Array.from(options.newChunks.keys()).filter((chunk) => options.newChunks?.[chunk] === 1);
  const seeds: Array<KeywordSeeds | undefined> = Array.from({ length: keywords }, (_, keyword) => {
    const kept = options.kept?.[keyword];
    return kept && newChunks ? updatedSeeds(kept.seeds, newChunks, chunkVectors, keywordVectors, keyword, seedOptions) : undefined;
  });
  const scored = seeds.flatMap((seed, keyword) => (seed === undefined ? [keyword] : []));
  const { cols } = keywordVectors;
  if (scored.length > 0 && fewSparseQueries(chunkVectors, keywordVectors, scored)) {
    // A few keywords (an update's new ones): scored without loading the chunk vectors into an index, to the same bits.
    const queries = new Float32Array(scored.length * cols);
    scored.forEach((keyword, offset) => queries.set(keywordVectors.data.subarray(keyword * cols, (keyword + 1) * cols), offset * cols));
    const scores = new Float32Array(scored.length * n);
    kernelEqualScores(chunkVectors, queries, scored.length, scores);
    scored.forEach((keyword, offset) => (seeds[keyword] = selectAutoKgSeeds(scores.subarray(offset * n, (offset + 1) * n), seedOptions)));
  } else if (scored.length > 0) {
    // Seeds from the exact keyword × chunk similarities, a block of keywords at a time.
    const index = createSimilarityIndex(n, chunkVectors.cols, chunkVectors.data);
    const block = 64;
    for (let first = 0; first < scored.length; first += block) {
      const batch = scored.slice(first, first + block);
      const queries = new Float32Array(batch.length * cols);
      batch.forEach((keyword, offset) => queries.set(keywordVectors.data.subarray(keyword * cols, (keyword + 1) * cols), offset * cols));
      const scores = index.scoreMany(queries, batch.length);
      batch.forEach((keyword, offset) => (seeds[keyword] = selectAutoKgSeeds(scores.subarray(offset * n, (offset + 1) * n), seedOptions)));
    }
  }
  const cap = options.cap ?? buildKeywordGraphDefaults.cap;
  const membership = options.membership ?? 'argmax';
  const members: Array<KeywordMembers | undefined> = (seeds as KeywordSeeds[]).map((seed, keyword) => {
    const kept = options.kept?.[keyword];
    return kept && options.newChunks && samePositives(kept.seeds, seed) ? extendMembers(kept.members, seed, weights, options.newChunks, cap, membership) : undefined;
  });
  const unsolved = members.flatMap((member, keyword) => (member === undefined ? [keyword] : []));
  // The keyword blocks are independent solves, spread over worker threads on large graphs (the same assignments).
  const assignments =
    unsolved.length === 0
      ? []
      : await laplaceLearningInThreads(
          prepareLaplaceLearning(weights),
          unsolved.map((keyword) => seeds[keyword] as KeywordSeeds),
          { connectThreshold: cap, membership: options.membership, ...(options.threads === undefined ? {} : { threads: options.threads }) },
        );
  assignments.forEach((assignment, index) => {
    members[unsolved[index] as number] = {
      chunks: assignment.members,
      scores: Float64Array.from(assignment.members, (chunk) => assignment.scores[chunk] as number),
      capped: assignment.capped,
    };
  });
  const all = members as KeywordMembers[];
  return {
    members: all,
    edges: sharedChunkEdges(n, all),
    cappedKeywords: all.filter((member) => member.capped).length,
    iterations: assignments.reduce((sum, assignment) => sum + assignment.iterations, 0),
    seeds: seeds as KeywordSeeds[],
    solved: unsolved.length,
    reseeded: unsolved.filter((keyword) => options.kept?.[keyword] !== undefined).length,
  };
}

/**
 * Whether the keywords `scored` are better scored with {@link kernelEqualScores}, straight from the chunk vectors, than
 * through a similarity index: the index would hold the chunk vectors in the SIMD kernel (dense, which
 * `createSimilarityIndex` chooses above its sparse share), whose scores those are bit for bit, and the keywords'
 * non-zero coordinates together are fewer than one chunk vector has coordinates, so scoring them reads less than
 * loading the index copies.
 */
function fewSparseQueries(chunkVectors: DenseMatrix, keywordVectors: DenseMatrix, scored: readonly number[]): boolean {
  const { cols } = keywordVectors;
  let queryNonZeros = 0;
  for (const keyword of scored) {
    for (let coordinate = keyword * cols; coordinate < (keyword + 1) * cols; coordinate++) if (keywordVectors.data[coordinate] !== 0) queryNonZeros++;
    if (queryNonZeros > cols) return false;
  }
  if (!kernelEqualScoresApply()) return false;
  const { data } = chunkVectors;
  const sparseAtMost = maxSparseDensity * data.length;
  let nonZeros = 0;
  for (let position = 0; position < data.length; position++) {
    if (data[position] === 0) continue;
    // Past the sparse share the index is dense, whatever the rest holds.
    if (++nonZeros > sparseAtMost) return true;
  }
  return false;
}

function samePositives(left: KeywordSeeds, right: KeywordSeeds): boolean {
  const kept = new Set(Array.from(left.positives));
  return left.positives.length === right.positives.length && Array.from(right.positives).every((chunk) => kept.has(chunk));
}

/**
 * The seeds `selectAutoKgSeeds` would choose over all chunks, chosen among the kept seeds and the new chunks only:
 * the nearest and farthest chunks of the changed corpus are among those when every kept seed is still a chunk (−1:
 * gone, then undefined). Scored in float64 here, so a near tie may fall otherwise than in the similarity index.
 */
function updatedSeeds(kept: KeywordSeeds, newChunks: readonly number[], chunks: DenseMatrix, keywordVectors: DenseMatrix, keyword: number, options: { trustNum: number; negatives: number }): KeywordSeeds | undefined {
  const candidates = [...Array.from(kept.positives), ...Array.from(kept.negatives)];
  if (candidates.some((chunk) => chunk < 0)) return undefined;
  const unique = [...new Set([...candidates, ...newChunks])];
  const { cols } = chunks;
  // The keyword's non-zero coordinates: a short text's vector is mostly zeros, and the score is dotAt's, bit for bit.
  const nonZero = nonZeroCoordinates(keywordVectors.data, keyword * cols, cols);
  const scores = Float64Array.from(unique, (chunk) => sparseDotAt(chunks.data, chunk * cols, keywordVectors.data, keyword * cols, cols, nonZero));
  // Positions in `unique`, best first, ties by the lower chunk, as selectAutoKgSeeds ranks them.
  const byScore = Array.from(unique.keys()).sort((left, right) => (scores[right] as number) - (scores[left] as number) || (unique[left] as number) - (unique[right] as number));
  const positiveCount = Math.min(options.trustNum, chunks.rows);
  const negativeCount = Math.min(options.negatives, chunks.rows - Math.min(positiveCount, byScore.length));
  const negatives = byScore
    .slice(positiveCount)
    .sort((left, right) => (scores[left] as number) - (scores[right] as number) || (unique[left] as number) - (unique[right] as number))
    .slice(0, negativeCount);
  return { positives: Int32Array.from(byScore.slice(0, positiveCount), (at) => unique[at] as number), negatives: Int32Array.from(negatives, (at) => unique[at] as number) };
}

/** The coordinates of `vector[offset … offset + length)` that are not zero, ascending. */
function nonZeroCoordinates(vector: Float32Array, offset: number, length: number): Int32Array {
  const coordinates: number[] = [];
  for (let coordinate = 0; coordinate < length; coordinate++) if (vector[offset + coordinate] !== 0) coordinates.push(coordinate);
  return Int32Array.from(coordinates);
}

/**
 * `dotAt(a, aOffset, b, bOffset, length)` bit for bit, adding only the products at `coordinates` (b's non-zero ones):
 * dotAt sums in float64 over four lanes by coordinate mod 4 (the tail past the last multiple of 4 into the first) and
 * adds (s0 + s1) + (s2 + s3); a zero product leaves a lane's sum as it is (a sum is never −0, as it starts at +0).
 */
function sparseDotAt(a: Float32Array, aOffset: number, b: Float32Array, bOffset: number, length: number, coordinates: Int32Array): number {
  const unrolledEnd = length - (length % 4);
  let sum0 = 0;
  let sum1 = 0;
  let sum2 = 0;
  let sum3 = 0;
  for (let entry = 0; entry < coordinates.length; entry++) {
    const coordinate = coordinates[entry] as number;
    const product = (a[aOffset + coordinate] as number) * (b[bOffset + coordinate] as number);
    const lane = coordinate < unrolledEnd ? coordinate & 3 : 0;
    if (lane === 0) sum0 += product;
    else if (lane === 1) sum1 += product;
    else if (lane === 2) sum2 += product;
    else sum3 += product;
  }
  return sum0 + sum1 + (sum2 + sum3);
}

/**
 * Kept members with the new chunks whose score passes the membership rule: a new chunk's score is the weighted mean
 * of its neighbours' (the harmonic property of the Laplace solution), with 0 for a chunk that is not a member; then
 * the cap keeps the highest scores.
 */
function extendMembers(kept: KeywordMembers, seeds: KeywordSeeds, weights: CsrMatrix, newChunks: Uint8Array, cap: number, membership: LaplaceMembership): KeywordMembers {
  const n = weights.rows;
  const score = new Map<number, number>();
  kept.chunks.forEach((chunk, index) => score.set(chunk, kept.scores[index] as number));
  const labelled = seeds.positives.length + seeds.negatives.length;
  const cut = membership === 'balanced' && labelled > 0 ? seeds.positives.length / labelled : 0.5;
  const joined: Array<[number, number]> = [];
  for (let chunk = 0; chunk < n; chunk++) {
    if (newChunks[chunk] !== 1) continue;
    let weighted = 0;
    let total = 0;
    for (let entry = weights.rowPointers[chunk] as number; entry < (weights.rowPointers[chunk + 1] as number); entry++) {
      const neighbour = weights.columnIndices[entry] as number;
      if (neighbour === chunk) continue;
      const weight = weights.values[entry] as number;
      weighted += weight * (score.get(neighbour) ?? 0);
      total += weight;
    }
    const value = total > 0 ? weighted / total : 0;
    if (value >= cut) joined.push([chunk, value]);
  }
  let entries: Array<[number, number]> = [...score, ...joined];
  let capped = kept.capped;
  const limit = Math.max(1, Math.trunc(n * cap));
  if (entries.length > limit) {
    entries = entries.sort((left, right) => right[1] - left[1] || left[0] - right[0]).slice(0, limit);
    capped = true;
  }
  entries.sort((left, right) => left[0] - right[0]);
  return { chunks: Int32Array.from(entries, ([chunk]) => chunk), scores: Float64Array.from(entries, ([, value]) => value), capped };
}

/** W = PᵀP − diag for the binary chunk × keyword membership matrix P, as undirected edges a < b. */
export function sharedChunkEdges(chunks: number, members: readonly KeywordMembers[]): KeywordGraphEdge[] {
  const rows: number[] = [];
  const cols: number[] = [];
  members.forEach((member, keyword) => {
    for (const chunk of member.chunks) {
      rows.push(chunk);
      cols.push(keyword);
    }
  });
  const membership = csrFromTriplets(chunks, members.length, rows, cols, new Float64Array(rows.length).fill(1));
  const product = sparseMatrixProduct(transposeCsr(membership), membership);
  const edges: KeywordGraphEdge[] = [];
  for (let a = 0; a < product.rows; a++) {
    const end = product.rowPointers[a + 1] as number;
    for (let entry = product.rowPointers[a] as number; entry < end; entry++) {
      const b = product.columnIndices[entry] as number;
      if (b > a) edges.push({ a, b, weight: product.values[entry] as number });
    }
  }
  return edges;
}
