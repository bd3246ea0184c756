import { KgragError } from '../core/errors.js';
import type { CsrMatrix } from '../math/csr-matrix.js';
import { csrRowSums, transposeCsr } from '../math/csr-operations.js';
import { buildPageRankSweepModule } from './pagerank-sweep-module.js';

/*
 * PageRank and personalized PageRank by power iteration on a weighted CSR graph.
 *
 * [Reference]: L. Page, S. Brin, R. Motwani, T. Winograd, "The PageRank citation ranking: bringing order to
 * the web", Stanford InfoLab 1999; T. H. Haveliwala, "Topic-sensitive PageRank", WWW 2002 (the
 * personalization vector); HippoRAG (Gutiérrez et al., NeurIPS 2024, arXiv 2405.14831) runs personalized
 * PageRank with damping 0.5 from its query nodes. Convergence check and explicit failure as in graphology's
 * `metrics/centrality/pagerank`.
 *
 * With transition matrix P (P_ij = w_ij / Σ_k w_ik), damping α and personalization v (Σv = 1), the scores are
 * the fixed point of x = α·Pᵀx + α·(Σ_{dangling i} x_i)·v + (1 − α)·v: a walker on a node without out-edges
 * restarts from v (networkx's default; `dangling: 'uniform'` restarts uniformly instead). Equivalently
 * x ∝ (I − α·Pᵀ)⁻¹·v with the dangling rows of P left at 0.
 *
 * Each iteration is one gather over the transposed transition matrix, prepared once by
 * {@link preparePageRankGraph} and reused across queries (HippoRAG runs one PPR per question on the same graph).
 * The gather runs in WebAssembly (`pagerank-sweep-module.ts`) on a copy of the matrix kept resident per graph.
 *
 * Defaults: damping α = 0.85 (Page et al.; HippoRAG uses 0.5), L1 tolerance 1e-6 on ‖x_{t+1} − x_t‖₁,
 * at most 100 iterations (‖x_{t+1} − x_t‖₁ ≤ 2αᵗ, so 1e-6 at α = 0.85 needs at most 90), dangling mass to v.
 */

/** Defaults of {@link personalizedPageRank}. */
export const pageRankDefaults = {
  /** Damping α: probability of following an edge rather than restarting. */
  damping: 0.85,
  /** Stop when ‖x_{t+1} − x_t‖₁ < tolerance (a total over all nodes, not per node). */
  tolerance: 1e-6,
  /** Iterations at most before `GRAPH_PAGERANK_NOT_CONVERGED`. */
  maxIterations: 100,
  /** Where a walker at a node without out-edges goes: the personalization vector, or any node uniformly. */
  dangling: 'personalization',
} as const;

/** A graph prepared for repeated PageRank runs. */
export interface PageRankGraph {
  readonly n: number;
  /** The adjacency as given: row i lists the out-edges of i with their (non-negative) weights. */
  readonly outgoing: CsrMatrix;
  /** Weighted out-degree of every node. */
  readonly outWeights: Float64Array;
  /** Pᵀ: row j lists the nodes i with an edge i → j and the transition probability w_ij / out(i). */
  readonly incomingTransitions: CsrMatrix;
  /** Nodes with no out-weight. */
  readonly danglingNodes: Int32Array;
}

/** Options of {@link preparePageRankGraph}. */
export interface PreparePageRankGraphOptions {
  /** The adjacency is symmetric (an undirected graph): skips the transpose. @default false */
  symmetric?: boolean;
}

/** Prepares a weighted adjacency matrix (row = source) for PageRank in O(nnz). */
export function preparePageRankGraph(adjacency: CsrMatrix, options: PreparePageRankGraphOptions = {}): PageRankGraph {
  const n = adjacency.rows;
  if (adjacency.cols !== n) throw new RangeError(`preparePageRankGraph: adjacency is ${n}×${adjacency.cols}, not square`);
  for (let entry = 0; entry < adjacency.values.length; entry++) {
    if (!((adjacency.values[entry] as number) >= 0)) throw new RangeError('preparePageRankGraph: edge weights must be non-negative');
  }
  const outWeights = csrRowSums(adjacency);
  const inverseOut = new Float64Array(n);
  const dangling: number[] = [];
  for (let node = 0; node < n; node++) {
    const weight = outWeights[node] as number;
    if (weight > 0) inverseOut[node] = 1 / weight;
    else dangling.push(node);
  }
  let incomingTransitions: CsrMatrix;
  if (options.symmetric) {
    // Row j of a symmetric matrix lists its in-neighbours i with w_ij = w_ji; only the scaling differs.
    const values = new Float64Array(adjacency.values.length);
    for (let entry = 0; entry < values.length; entry++) {
      values[entry] = (adjacency.values[entry] as number) * (inverseOut[adjacency.columnIndices[entry] as number] as number);
    }
    incomingTransitions = { rows: n, cols: n, rowPointers: adjacency.rowPointers, columnIndices: adjacency.columnIndices, values };
  } else {
    const transpose = transposeCsr(adjacency);
    const values = transpose.values;
    for (let entry = 0; entry < values.length; entry++) values[entry] = (values[entry] as number) * (inverseOut[transpose.columnIndices[entry] as number] as number);
    incomingTransitions = transpose;
  }
  return { n, outgoing: adjacency, outWeights, incomingTransitions, danglingNodes: Int32Array.from(dangling) };
}

/** Options of {@link personalizedPageRank}. */
export interface PersonalizedPageRankOptions {
  /** Damping α in [0, 1). @default 0.85 */
  damping?: number;
  /**
   * Restart distribution v, length n, non-negative with a positive sum (normalized here). Omit it for
   * plain PageRank (uniform v).
   */
  personalization?: ArrayLike<number>;
  /** @default 1e-6 */
  tolerance?: number;
  /** @default 100 */
  maxIterations?: number;
  /** @default 'personalization' */
  dangling?: 'personalization' | 'uniform';
  /** Starting vector (normalized here); defaults to v, which converges fastest for local seeds. */
  initial?: ArrayLike<number>;
}

/** Result of {@link personalizedPageRank}. */
export interface PageRankResult {
  /** Score of every node; they sum to 1. */
  scores: Float64Array;
  /** Iterations run. */
  iterations: number;
  /** ‖x_t − x_{t−1}‖₁ of the last iteration. */
  error: number;
}

/**
 * (Personalized) PageRank by power iteration. Throws `GRAPH_PAGERANK_NOT_CONVERGED` (a KgragError) when the
 * L1 change is still above `tolerance` after `maxIterations`.
 */
export function personalizedPageRank(graph: PageRankGraph | CsrMatrix, options: PersonalizedPageRankOptions = {}): PageRankResult {
  const prepared = 'incomingTransitions' in graph ? graph : preparePageRankGraph(graph);
  const { n, incomingTransitions, danglingNodes } = prepared;
  const damping = options.damping ?? pageRankDefaults.damping;
  if (!(damping >= 0 && damping < 1)) throw new RangeError(`personalizedPageRank: damping ${damping} is not in [0, 1)`);
  const tolerance = options.tolerance ?? pageRankDefaults.tolerance;
  const maxIterations = options.maxIterations ?? pageRankDefaults.maxIterations;
  const uniformDangling = (options.dangling ?? pageRankDefaults.dangling) === 'uniform';

  const restart = options.personalization === undefined ? new Float64Array(n).fill(1 / n) : normalizedDistribution(options.personalization, n, 'personalization');
  const initial = options.initial === undefined ? restart : normalizedDistribution(options.initial, n, 'initial');
  if (n === 0) return { scores: Float64Array.from(initial), iterations: 0, error: 0 };

  const resident = residentTransitions(prepared);
  const vectors = resident.vectors();
  vectors.restart.set(restart);
  vectors.current.set(initial);
  let current = vectors.current;
  let next = vectors.next;
  let error = Number.POSITIVE_INFINITY;
  let iteration = 0;
  while (iteration < maxIterations) {
    iteration++;
    let danglingMass = 0;
    for (let index = 0; index < danglingNodes.length; index++) danglingMass += current[danglingNodes[index] as number] as number;
    const restartScale = uniformDangling ? 1 - damping : damping * danglingMass + (1 - damping);
    const uniformShare = uniformDangling ? (damping * danglingMass) / n : 0;
    error = resident.sweep(current, next, damping, restartScale, uniformShare);
    const swap = current;
    current = next;
    next = swap;
    if (error < tolerance) return { scores: normalizeSum(Float64Array.from(current)), iterations: iteration, error };
  }
  throw new KgragError(`PageRank did not converge in ${maxIterations} iterations (L1 change ${error.toExponential(2)} > ${tolerance})`, {
    code: 'GRAPH_PAGERANK_NOT_CONVERGED',
    category: 'internal',
    hint: 'raise maxIterations or the tolerance, or lower the damping',
    details: { maxIterations, tolerance, error, damping },
  });
}

/** The transition matrix copied into WebAssembly memory once, with room for the three vectors of an iteration. */
interface ResidentTransitions {
  /** Views of the restart vector and the two iterates in the memory (valid until the next call of `vectors`). */
  vectors(): { restart: Float64Array; current: Float64Array; next: Float64Array };
  /** One sweep from `current` into `next` (two of the views); returns ‖next − current‖₁. */
  sweep(current: Float64Array, next: Float64Array, damping: number, restartScale: number, uniformShare: number): number;
}

type PageRankSweep = (
  rowPointers: number,
  columnIndices: number,
  values: number,
  n: number,
  current: number,
  next: number,
  restart: number,
  damping: number,
  restartScale: number,
  uniformShare: number,
) => number;

/**
 * Every resident graph lives in one growable memory, appended one after the other, so a process holds one
 * WebAssembly memory however many graphs it ranks (each memory reserves gigabytes of address space). When the
 * next graph would take the arena past {@link arenaResetBytes}, it starts over: the graphs in it are copied
 * in again at their next use.
 */
interface Arena {
  memory: WebAssembly.Memory;
  sweep: PageRankSweep;
  usedBytes: number;
  /** Bumped at each start-over; a graph resident at an older epoch is copied in again. */
  epoch: number;
}

const pageBytes = 65536;
const arenaResetBytes = 256 * 1024 * 1024;
/** Byte offsets are signed 32-bit in the sweep. */
const maxArenaBytes = 2 ** 31 - 1;
let arena: Arena | undefined;
/** A graph's transitions stay resident while the prepared graph lives (HippoRAG runs one PPR per question). */
const residentGraphs = new WeakMap<PageRankGraph, ResidentTransitions & { epoch: number }>();

function openArena(): Arena {
  if (arena) return arena;
  const memory = new WebAssembly.Memory({ initial: 1 });
  const module = new WebAssembly.Module(buildPageRankSweepModule());
  const sweep = new WebAssembly.Instance(module, { env: { memory } }).exports.pagerank_sweep as PageRankSweep;
  arena = { memory, sweep, usedBytes: 0, epoch: 0 };
  return arena;
}

/** Reserves `bytes` (8-byte aligned) in the arena and returns their offset. */
function reserve(target: Arena, bytes: number): number {
  if (target.usedBytes > 0 && target.usedBytes + bytes > arenaResetBytes) {
    target.usedBytes = 0;
    target.epoch++;
  }
  const offset = target.usedBytes;
  const end = offset + bytes;
  if (end > maxArenaBytes) throw new RangeError(`personalizedPageRank: the graph needs ${bytes} bytes, more than the sweep addresses (2 GiB)`);
  if (end > target.memory.buffer.byteLength) target.memory.grow(Math.ceil((end - target.memory.buffer.byteLength) / pageBytes));
  target.usedBytes = Math.ceil(end / 8) * 8;
  return offset;
}

function residentTransitions(graph: PageRankGraph): ResidentTransitions {
  const target = openArena();
  const cached = residentGraphs.get(graph);
  if (cached && cached.epoch === target.epoch) return cached;
  const { n, incomingTransitions } = graph;
  const entries = incomingTransitions.values.length;
  // f64 data first (8-byte aligned), then the i32 arrays.
  const base = reserve(target, 8 * entries + 3 * 8 * n + 4 * (n + 1) + 4 * entries);
  const valuesOffset = base;
  const vectorOffset = (index: number): number => base + 8 * entries + index * 8 * n;
  const rowPointersOffset = vectorOffset(3);
  const columnIndicesOffset = rowPointersOffset + 4 * (n + 1);
  const { memory, sweep, epoch } = target;
  new Float64Array(memory.buffer, valuesOffset, entries).set(incomingTransitions.values);
  new Int32Array(memory.buffer, rowPointersOffset, n + 1).set(incomingTransitions.rowPointers);
  new Int32Array(memory.buffer, columnIndicesOffset, entries).set(incomingTransitions.columnIndices);
  const resident = {
    epoch,
    vectors: () => ({
      restart: new Float64Array(memory.buffer, vectorOffset(0), n),
      current: new Float64Array(memory.buffer, vectorOffset(1), n),
      next: new Float64Array(memory.buffer, vectorOffset(2), n),
    }),
    sweep: (current: Float64Array, next: Float64Array, damping: number, restartScale: number, uniformShare: number) =>
      sweep(rowPointersOffset, columnIndicesOffset, valuesOffset, n, current.byteOffset, next.byteOffset, vectorOffset(0), damping, restartScale, uniformShare),
  };
  residentGraphs.set(graph, resident);
  return resident;
}

function normalizedDistribution(vector: ArrayLike<number>, n: number, name: string): Float64Array {
  if (vector.length !== n) throw new RangeError(`personalizedPageRank: ${name} has length ${vector.length}, the graph has ${n} nodes`);
  const result = Float64Array.from(vector);
  let sum = 0;
  for (let node = 0; node < n; node++) {
    const value = result[node] as number;
    if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`personalizedPageRank: ${name} has an invalid entry ${value} at ${node}`);
    sum += value;
  }
  if (!(sum > 0)) throw new RangeError(`personalizedPageRank: ${name} sums to 0`);
  for (let node = 0; node < n; node++) result[node] = (result[node] as number) / sum;
  return result;
}

/** Removes the rounding drift of the sum (it stays 1 in exact arithmetic). */
function normalizeSum(vector: Float64Array): Float64Array {
  let sum = 0;
  for (let index = 0; index < vector.length; index++) sum += vector[index] as number;
  if (sum > 0) for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) / sum;
  return vector;
}
