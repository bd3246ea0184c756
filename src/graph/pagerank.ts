import { KgragError } from '../core/errors.js';
import type { CsrMatrix } from '../math/csr-matrix.js';
import { csrRowSums, transposeCsr } from '../math/csr-operations.js';
import { compiledWasmModule } from '../math/wasm/compiled-wasm-module.js';
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
  /** Where the sweep runs (see {@link createPageRankArena}). @default the process's shared arena */
  arena?: PageRankArena;
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

  const arena = (options.arena ?? sharedArena) as ArenaState;
  try {
    const resident = residentGraph(arena, prepared);
    const memory = arena.memory as WebAssembly.Memory;
    const sweep = arena.sweep as PageRankSweep;
    const vector = (index: number): Float64Array => new Float64Array(memory.buffer, resident.vectorsOffset + index * 8 * n, n);
    vector(0).set(restart);
    vector(1).set(initial);
    let current = vector(1);
    let next = vector(2);
    let error = Number.POSITIVE_INFINITY;
    let iteration = 0;
    while (iteration < maxIterations) {
      iteration++;
      let danglingMass = 0;
      for (let index = 0; index < danglingNodes.length; index++) danglingMass += current[danglingNodes[index] as number] as number;
      const restartScale = uniformDangling ? 1 - damping : damping * danglingMass + (1 - damping);
      const uniformShare = uniformDangling ? (damping * danglingMass) / n : 0;
      error = sweep(resident.rowPointersOffset, resident.columnIndicesOffset, resident.valuesOffset, n, current.byteOffset, next.byteOffset, resident.vectorsOffset, damping, restartScale, uniformShare);
      const swap = current;
      current = next;
      next = swap;
      if (error < tolerance) return { scores: normalizeSum(Float64Array.from(current)), iterations: iteration, error };
    }
    throw notConverged(maxIterations, tolerance, error, damping);
  } finally {
    shrinkAfterRun(arena);
  }
}

function notConverged(maxIterations: number, tolerance: number, error: number, damping: number): KgragError {
  return new KgragError(`PageRank did not converge in ${maxIterations} iterations (L1 change ${error.toExponential(2)} > ${tolerance})`, {
    code: 'GRAPH_PAGERANK_NOT_CONVERGED',
    category: 'internal',
    hint: 'raise maxIterations or the tolerance, or lower the damping',
    details: { maxIterations, tolerance, error, damping },
  });
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

/** Where a graph's transitions and the three vectors of an iteration lie in the arena's memory. */
interface ResidentGraph {
  /** The arena's epoch when they were copied in; at a later epoch they are copied in again. */
  epoch: number;
  n: number;
  valuesOffset: number;
  rowPointersOffset: number;
  columnIndicesOffset: number;
  /** The restart vector, then the two iterates. */
  vectorsOffset: number;
}

/**
 * The WebAssembly memory PageRank sweeps run in. Prepared graphs are copied in one after the other and stay resident
 * while they live (HippoRAG runs one PPR per question on the same graph), so one memory serves however many graphs a
 * process ranks: each WebAssembly memory reserves gigabytes of address space. A WebAssembly memory can only grow, so
 * the arena bounds itself: when the next graph would take it past `floorBytes` it starts over (the graphs in it are
 * copied in again at their next use), and a run that grew it past `floorBytes` (one graph larger than that) drops the
 * memory when it ends: it holds at most `floorBytes` between runs.
 */
export interface PageRankArena {
  /** Bytes of WebAssembly memory it holds now; 0 before its first graph and after a graph larger than its floor. */
  readonly bytes: number;
}

interface ArenaState extends PageRankArena {
  readonly floorBytes: number;
  memory: WebAssembly.Memory | undefined;
  sweep: PageRankSweep | undefined;
  usedBytes: number;
  /** Bumped at each start-over and each drop of the memory. */
  epoch: number;
  /** Keyed by graph: a graph's residency is dropped with the graph. */
  readonly residents: WeakMap<PageRankGraph, ResidentGraph>;
}

const pageBytes = 65536;
/** Byte offsets are signed 32-bit in the sweep. */
const maxArenaBytes = 2 ** 31 - 1;

/** An arena of its own (see {@link PageRankArena}); `floorBytes` defaults to 256 MiB. */
export function createPageRankArena(options: { floorBytes?: number } = {}): PageRankArena {
  const arena: ArenaState = {
    floorBytes: options.floorBytes ?? 256 * 1024 * 1024,
    memory: undefined,
    sweep: undefined,
    usedBytes: 0,
    epoch: 0,
    residents: new WeakMap(),
    get bytes() {
      return arena.memory?.buffer.byteLength ?? 0;
    },
  };
  return arena;
}

/**
 * The arena of runs that name none. Module-level on purpose: one WebAssembly memory for the process (see
 * {@link PageRankArena}), which holds no memory until the first run and at most its floor between runs.
 */
const sharedArena = createPageRankArena();

/** Reserves `bytes` (8-byte aligned) in the arena's memory, made or grown as needed, and returns their offset. */
function reserve(arena: ArenaState, bytes: number): { memory: WebAssembly.Memory; offset: number } {
  if (arena.usedBytes > 0 && arena.usedBytes + bytes > arena.floorBytes) {
    arena.usedBytes = 0;
    arena.epoch++;
  }
  const offset = arena.usedBytes;
  const end = offset + bytes;
  if (end > maxArenaBytes) throw new RangeError(`personalizedPageRank: the graph needs ${bytes} bytes, more than the sweep addresses (2 GiB)`);
  if (arena.memory === undefined) {
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(end / pageBytes)) });
    arena.memory = memory;
    arena.sweep = new WebAssembly.Instance(compiledSweepModule(), { env: { memory } }).exports.pagerank_sweep as PageRankSweep;
  } else if (end > arena.memory.buffer.byteLength) {
    arena.memory.grow(Math.ceil((end - arena.memory.buffer.byteLength) / pageBytes));
  }
  arena.usedBytes = Math.ceil(end / 8) * 8;
  return { memory: arena.memory, offset };
}

/** The compiled sweep, shared by every arena (compiled once per process: see `compiledWasmModule`). */
function compiledSweepModule(): WebAssembly.Module {
  const module = compiledWasmModule(buildPageRankSweepModule);
  if (module === null) throw new KgragError('this JavaScript engine rejects the PageRank sweep (WebAssembly)', { code: 'GRAPH_WASM_UNSUPPORTED', category: 'environment', hint: 'run kgrag on Node.js 20.19 or later' });
  return module;
}

/** The graph's transitions in the arena's memory, copied in unless they are there from this epoch. */
function residentGraph(arena: ArenaState, graph: PageRankGraph): ResidentGraph {
  const cached = arena.residents.get(graph);
  if (cached && cached.epoch === arena.epoch && arena.memory !== undefined) return cached;
  const { n, incomingTransitions } = graph;
  const entries = incomingTransitions.values.length;
  // f64 data first (8-byte aligned), then the i32 arrays.
  const { memory, offset: valuesOffset } = reserve(arena, 8 * entries + 3 * 8 * n + 4 * (n + 1) + 4 * entries);
  const vectorsOffset = valuesOffset + 8 * entries;
  const rowPointersOffset = vectorsOffset + 3 * 8 * n;
  const columnIndicesOffset = rowPointersOffset + 4 * (n + 1);
  new Float64Array(memory.buffer, valuesOffset, entries).set(incomingTransitions.values);
  new Int32Array(memory.buffer, rowPointersOffset, n + 1).set(incomingTransitions.rowPointers);
  new Int32Array(memory.buffer, columnIndicesOffset, entries).set(incomingTransitions.columnIndices);
  const resident = { epoch: arena.epoch, n, valuesOffset, rowPointersOffset, columnIndicesOffset, vectorsOffset };
  arena.residents.set(graph, resident);
  return resident;
}

/** Drops the arena's memory when a run grew it past its floor: the next run starts with a fresh one. */
function shrinkAfterRun(arena: ArenaState): void {
  if (arena.bytes <= arena.floorBytes) return;
  arena.memory = undefined;
  arena.sweep = undefined;
  arena.usedBytes = 0;
  arena.epoch++;
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
