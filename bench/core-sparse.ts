/*
 * Sparse math and graph core: PageRank, Laplace learning, spectral embedding. Every input is
 * synthetic, generated from a fixed seed: random graphs, and random vectors shaped like embeddings.
 *
 *   ppr_power_1m_s              personalized PageRank by power iteration (5 seeds, α 0.85, L1 tol 1e-8) on a
 *                               seeded random directed graph, 200k nodes / 1M weighted edges (~0.7 % dangling),
 *                               graph prepared once (as for repeated queries); the per-query time
 *   ppr_power_vs_baseline       graphology-metrics' plain PageRank time / ppr_power_1m_s on the same graph in
 *                               the same run (> 1: ours faster); graphology gets tolerance 1e-8/N because it
 *                               stops on L1 < N·tolerance, so both stop at the same L1 change
 *   pagerank_plain_vs_graphology the same-task ratio: graphology's plain PageRank / ours plain PageRank
 *                               including preparePageRankGraph (both build their index inside the timing)
 *   laplace_460_keywords_s      AutoKG Laplace learning for 460 keywords on 5,261 chunks: kernel weights
 *                               (gaussian, K = 30 with self) + Laplacian + seed selection + block CG of 8
 *                               keywords; the 5,261 "chunk" and 460 "keyword" vectors are synthetic (no text:
 *                               seeded random 384-d unit vectors around 60 subtopics in 12 topics, sized like
 *                               AutoKG's 2Wiki build), half of them mixed between two subtopics so the kNN
 *                               graph is connected (mean cosine ≈ 0.1, nearest neighbour ≈ 0.56); the exact
 *                               kNN graph and the keyword–chunk similarities are computed outside the timing
 *   spectral_5261_20_s          20-dimensional spectral embedding (NJW) of the same synthetic vectors' K = 20 graph
 * plus preparation times, the undirected / HippoRAG-damping variants, CG iteration counts and the
 * block-size comparison (laplace_460_keywords_block1_s: one keyword per CG, measured once).
 */
import { DirectedGraph } from 'graphology';
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import { maxOf } from '../src/core/max-of.js';
import { createRandom } from '../src/core/random.js';
import type { Random } from '../src/core/random.js';
import { knnKernelWeights } from '../src/graph/knn-kernel-weights.js';
import { laplaceLearning, prepareLaplaceLearning, selectAutoKgSeeds } from '../src/graph/laplace-learning.js';
import { personalizedPageRank, preparePageRankGraph } from '../src/graph/pagerank.js';
import { csrFromTriplets } from '../src/math/csr-matrix.js';
import type { CsrMatrix } from '../src/math/csr-matrix.js';
import type { KnnGraph } from '../src/math/knn-graph.js';
import { spectralEmbedding } from '../src/math/spectral-embedding.js';
import { median, result } from './bench-utils.js';
import type { BenchResult } from './bench-utils.js';

// The package is CommonJS with an ESM-style `export default` in its types; at run time the default import is the function.
const graphologyPagerank = pagerankModule as unknown as typeof pagerankModule.default;

function seconds<T>(run: () => T): { value: T; seconds: number } {
  const started = performance.now();
  const value = run();
  return { value, seconds: (performance.now() - started) / 1000 };
}

/** A random directed graph without duplicate edges or self-loops, weights in [0.5, 1.5). */
function randomDirectedEdges(random: Random, nodes: number, edges: number): { sources: Int32Array; targets: Int32Array; weights: Float64Array } {
  const seen = new Set<number>();
  const sources = new Int32Array(edges);
  const targets = new Int32Array(edges);
  const weights = new Float64Array(edges);
  let count = 0;
  while (count < edges) {
    const source = Math.floor(random() * nodes);
    const target = Math.floor(random() * nodes);
    const key = source * nodes + target;
    if (source === target || seen.has(key)) continue;
    seen.add(key);
    sources[count] = source;
    targets[count] = target;
    weights[count] = 0.5 + random();
    count++;
  }
  return { sources, targets, weights };
}

/** `edges` random undirected edges (both directions stored); a fraction `inside` stays within the source's block of `blockSize` nodes. */
function undirectedEdges(random: Random, nodes: number, edges: number, blockSize: number, inside: number): CsrMatrix {
  const rows = new Int32Array(2 * edges);
  const cols = new Int32Array(2 * edges);
  const values = new Float64Array(2 * edges).fill(1);
  let count = 0;
  while (count < edges) {
    const source = Math.floor(random() * nodes);
    const target = random() < inside ? Math.floor(source / blockSize) * blockSize + Math.floor(random() * blockSize) : Math.floor(random() * nodes);
    if (source === target) continue;
    rows[2 * count] = source;
    cols[2 * count] = target;
    rows[2 * count + 1] = target;
    cols[2 * count + 1] = source;
    count++;
  }
  return csrFromTriplets(nodes, nodes, rows, cols, values);
}

function seedVector(nodes: number, seeds: readonly number[]): Float64Array {
  const vector = new Float64Array(nodes);
  for (const seed of seeds) vector[seed] = 1 / seeds.length;
  return vector;
}

function benchPageRank(runs: number, results: Record<string, BenchResult>): void {
  const nodes = 200_000;
  const random = createRandom(0x9a6e);
  const { sources, targets, weights } = randomDirectedEdges(random, nodes, 1_000_000);
  const adjacency = csrFromTriplets(nodes, nodes, sources, targets, weights);
  const graphology = new DirectedGraph();
  for (let node = 0; node < nodes; node++) graphology.addNode(node);
  for (let edge = 0; edge < sources.length; edge++) graphology.addEdge(sources[edge] as number, targets[edge] as number, { weight: weights[edge] });

  const tolerance = 1e-8;
  const prepare: number[] = [];
  const power: number[] = [];
  const plain: number[] = [];
  const baseline: number[] = [];
  const iterations: number[] = [];
  let graph = preparePageRankGraph(adjacency);
  for (let run = 0; run < runs; run++) {
    const prepared = seconds(() => preparePageRankGraph(adjacency));
    graph = prepared.value;
    prepare.push(prepared.seconds);
    const seeds = [0, 1, 2, 3, 4].map(() => Math.floor(random() * nodes));
    const personalized = seconds(() => personalizedPageRank(graph, { personalization: seedVector(nodes, seeds), tolerance, maxIterations: 500 }));
    power.push(personalized.seconds);
    iterations.push(personalized.value.iterations);
    const ours = seconds(() => personalizedPageRank(preparePageRankGraph(adjacency), { tolerance, maxIterations: 500 }));
    plain.push(ours.seconds);
    const theirs = seconds(() => graphologyPagerank(graphology, { getEdgeWeight: 'weight', tolerance: tolerance / nodes, maxIterations: 500 }));
    baseline.push(theirs.seconds);
    if (run === 0) {
      let worst = 0;
      for (let node = 0; node < nodes; node++) worst = Math.max(worst, Math.abs((ours.value.scores[node] as number) - (theirs.value[String(node)] as number)));
      if (worst > 1e-7) throw new Error(`PageRank disagrees with graphology-metrics by ${worst}`);
    }
  }
  results.ppr_power_1m_s = result(power, 's');
  results.ppr_power_vs_baseline = result(
    power.map((value, run) => (baseline[run] as number) / value),
    'ratio',
  );
  results.ppr_power_1m_iterations = result(iterations, 'count');
  results.ppr_prepare_1m_s = result(prepare, 's');
  results.pagerank_plain_1m_s = result(plain, 's');
  results.pagerank_graphology_1m_s = result(baseline, 's');
  results.pagerank_plain_vs_graphology = result(
    plain.map((value, run) => (baseline[run] as number) / value),
    'ratio',
  );

  // The same size undirected (2M stored entries), at the classic damping and at HippoRAG's 0.5.
  const undirected = preparePageRankGraph(undirectedEdges(random, nodes, 1_000_000, nodes, 1), { symmetric: true });
  const classic: number[] = [];
  const hippo: number[] = [];
  for (let run = 0; run < runs; run++) {
    const seeds = [0, 1, 2, 3, 4].map(() => Math.floor(random() * nodes));
    classic.push(seconds(() => personalizedPageRank(undirected, { personalization: seedVector(nodes, seeds), tolerance, maxIterations: 500 })).seconds);
    hippo.push(seconds(() => personalizedPageRank(undirected, { damping: 0.5, personalization: seedVector(nodes, seeds), tolerance, maxIterations: 500 })).seconds);
  }
  results.ppr_power_1m_undirected_s = result(classic, 's');
  results.ppr_power_1m_undirected_damping05_s = result(hippo, 's');
}

/** A roughly Gaussian, seeded draw with standard deviation 0.5 (sum of three uniforms). */
function noise(random: Random): number {
  return random() + random() + random() - 1.5;
}

function randomUnit(random: Random, dimensions: number): Float64Array {
  const vector = Float64Array.from({ length: dimensions }, () => noise(random));
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return vector.map((value) => value / norm);
}

/**
 * Embedding-like unit vectors: 0.3·(shared direction) + 0.5·(one of 12 topics) + 0.6·(one of 60 subtopics,
 * for half of the points mixed with a second subtopic — of the same topic 70 % of the time) + isotropic noise
 * of norm ≈ 0.8. The mixed points bridge clusters, as real corpora do, so the kNN graph is connected.
 */
function embeddingLikeVectors(random: Random, count: number, dimensions: number, basis: { shared: Float64Array; topics: Float64Array[]; subtopics: Float64Array[] }): Float32Array {
  const data = new Float32Array(count * dimensions);
  const noiseScale = (0.8 * 2) / Math.sqrt(dimensions);
  for (let row = 0; row < count; row++) {
    const subtopic = Math.floor(random() * 60);
    const topic = subtopic % 12;
    const other = random() < 0.3 ? Math.floor(random() * 60) : (subtopic + 12 * (1 + Math.floor(random() * 4))) % 60;
    const mix = random() < 0.5 ? 1 : random();
    const first = basis.subtopics[subtopic] as Float64Array;
    const second = basis.subtopics[other] as Float64Array;
    const topicVector = basis.topics[topic] as Float64Array;
    let norm = 0;
    for (let d = 0; d < dimensions; d++) {
      const value =
        0.3 * (basis.shared[d] as number) +
        0.5 * (topicVector[d] as number) +
        0.6 * (mix * (first[d] as number) + (1 - mix) * (second[d] as number)) +
        noiseScale * noise(random);
      data[row * dimensions + d] = value;
      norm += value * value;
    }
    const inverse = 1 / Math.sqrt(norm);
    for (let d = 0; d < dimensions; d++) data[row * dimensions + d] = (data[row * dimensions + d] as number) * inverse;
  }
  return data;
}

function dot(data: Float32Array, a: number, other: Float32Array, b: number, dimensions: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const x = a * dimensions;
  const y = b * dimensions;
  for (let d = 0; d < dimensions; d += 4) {
    s0 += (data[x + d] as number) * (other[y + d] as number);
    s1 += (data[x + d + 1] as number) * (other[y + d + 1] as number);
    s2 += (data[x + d + 2] as number) * (other[y + d + 2] as number);
    s3 += (data[x + d + 3] as number) * (other[y + d + 3] as number);
  }
  return s0 + s1 + s2 + s3;
}

/** Exact kNN (self excluded) by a full scan; each pair's dot product is computed once. */
function exactKnn(data: Float32Array, count: number, dimensions: number, k: number): KnnGraph {
  const indices = new Int32Array(count * k).fill(-1);
  const similarities = new Float32Array(count * k).fill(Number.NEGATIVE_INFINITY);
  const offer = (row: number, candidate: number, similarity: number): void => {
    const base = row * k;
    if (!(similarity > (similarities[base + k - 1] as number))) return;
    let position = k - 1;
    while (position > 0 && similarity > (similarities[base + position - 1] as number)) {
      similarities[base + position] = similarities[base + position - 1] as number;
      indices[base + position] = indices[base + position - 1] as number;
      position--;
    }
    similarities[base + position] = similarity;
    indices[base + position] = candidate;
  };
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) {
      const similarity = dot(data, i, data, j, dimensions);
      offer(i, j, similarity);
      offer(j, i, similarity);
    }
  }
  return { n: count, k, indices, similarities };
}

function benchLaplace(runs: number, results: Record<string, BenchResult>): void {
  const chunks = 5_261;
  const keywords = 460;
  const dimensions = 384;
  const random = createRandom(0x1a9);
  const basis = {
    shared: randomUnit(random, dimensions),
    topics: Array.from({ length: 12 }, () => randomUnit(random, dimensions)),
    subtopics: Array.from({ length: 60 }, () => randomUnit(random, dimensions)),
  };
  const vectors = embeddingLikeVectors(random, chunks, dimensions, basis);
  const keywordVectors = embeddingLikeVectors(random, keywords, dimensions, basis);
  const knn = exactKnn(vectors, chunks, dimensions, 29);
  const similarities = Array.from({ length: keywords }, (_, keyword) => Float32Array.from({ length: chunks }, (_, chunk) => dot(keywordVectors, keyword, vectors, chunk, dimensions)));

  const solve = (blockSize: number) => {
    const weights = knnKernelWeights(knn, { kernel: 'gaussian', k: 29 });
    const graph = prepareLaplaceLearning(weights);
    const seeds = similarities.map((row) => selectAutoKgSeeds(row));
    return laplaceLearning(graph, seeds, { blockSize });
  };
  const times: number[] = [];
  const single: number[] = [];
  let assignments = solve(8);
  for (let run = 0; run < runs; run++) {
    const timed = seconds(() => solve(8));
    times.push(timed.seconds);
    assignments = timed.value;
    if (run === 0) single.push(seconds(() => solve(1)).seconds);
  }
  results.laplace_460_keywords_s = result(times, 's');
  results.laplace_460_keywords_block1_s = result(single, 's');
  results.laplace_block8_vs_block1 = result([(single[0] as number) / (times[0] as number)], 'ratio');
  results.laplace_cg_iterations_median = result([median(assignments.map((assignment) => assignment.iterations))], 'count');
  results.laplace_cg_iterations_max = result([maxOf(assignments.map((assignment) => assignment.iterations))], 'count');
  results.laplace_graph_components = result([prepareLaplaceLearning(knnKernelWeights(knn, { k: 29 })).componentCount], 'count');
  results.laplace_members_median = result([median(assignments.map((assignment) => assignment.members.length))], 'count');

  // AutoKG's spectral step uses graphlearning's default K = 20 (19 neighbours besides the point).
  const spectral: number[] = [];
  for (let run = 0; run < runs; run++) {
    spectral.push(seconds(() => spectralEmbedding(knnKernelWeights(knn, { kernel: 'gaussian', k: 19 }), 20)).seconds);
  }
  results.spectral_5261_20_s = result(spectral, 's');
}

/** Runs every measurement `runs` times (medians reported). */
export async function benchCoreSparse(runs: number): Promise<Record<string, BenchResult>> {
  const results: Record<string, BenchResult> = {};
  benchPageRank(runs, results);
  benchLaplace(runs, results);
  return results;
}
