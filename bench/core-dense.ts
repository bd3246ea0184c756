import { createRandom } from '../src/core/random.js';
import type { DenseMatrix } from '../src/math/dense-matrix.js';
import { normalizeRows } from '../src/math/dense-vectors.js';
import { exactKnnGraph } from '../src/math/exact-knn-graph.js';
import { kMeans } from '../src/math/k-means.js';
import { knnGraphRecall, nnDescent } from '../src/math/nn-descent.js';
import { ExactVectorSearch } from '../src/math/top-k.js';
import { ResidentMatrix } from '../src/math/wasm/resident-matrix.js';
import { type BenchResult, result } from './bench-utils.js';
import { benchKnnGraphChunkRecall } from './knn-graph-chunk-recall.js';

/*
 * Dense-vector kernels on 20,000 × 384 float32 (the size of a mid-sized corpus of MiniLM-class embeddings):
 * GEMV throughput of the WebAssembly SIMD kernel against the JavaScript path measured in the same run,
 * exact top-k, the exact kNN graph on both cores, NN-descent's time and recall, and k-means.
 *
 * A GEMV reads each float once for 2 flops, so at 20,000 × 384 (30 MB) it runs at the speed rows arrive
 * from memory, not at the kernel's: the same kernel is also timed on 512 rows (768 KiB, in L2), 4,096 rows
 * (6 MiB, in L3) and 65,536 rows (96 MiB, from DRAM), on a 256 × 256 tile (the kNN graph's cache-resident,
 * compute-bound shape), and beside a memmove of the 30 MB, the machine's streaming bandwidth.
 *
 * Two data sets, both seeded:
 * - uniform: i.i.d. Gaussian vectors normalized to the unit sphere. The exact kernels' cost does not
 *   depend on the data; for approximate search this is the worst case (no low-dimensional structure, the
 *   curse of dimensionality), reported as `knn_graph_approx_recall_uniform`.
 * - clustered: 50 groups, each a random centre plus a random 16-dimensional subspace and isotropic noise,
 *   normalized — the low intrinsic dimension real text embeddings have. NN-descent is measured on it
 *   (`knn_graph_approx_*_synthetic_clustered`).
 *
 * `knn_graph_approx_s` / `knn_graph_approx_recall` are NN-descent on the product's own chunk vectors, those of the
 * 16× 2Wiki scale corpus (bench/knn-graph-chunk-recall.ts; also `npm run bench -- knn-chunks` alone).
 */

const rows = 20000;
const dims = 384;
const k = 30;

function gaussianSource(seed: number): () => number {
  const random = createRandom(seed);
  return () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}

function uniformUnitVectors(seed: number): DenseMatrix {
  const gaussian = gaussianSource(seed);
  return normalizeRows({ rows, cols: dims, data: Float32Array.from({ length: rows * dims }, gaussian) });
}

function clusteredUnitVectors(seed: number, clusters = 50, latent = 16, noise = 0.1): DenseMatrix {
  const gaussian = gaussianSource(seed);
  const random = createRandom(seed + 1);
  const centres = Float64Array.from({ length: clusters * dims }, gaussian);
  const bases = Float64Array.from({ length: clusters * dims * latent }, () => gaussian() / Math.sqrt(latent));
  const data = new Float32Array(rows * dims);
  const coordinates = new Float64Array(latent);
  for (let row = 0; row < rows; row++) {
    const cluster = Math.floor(random() * clusters);
    for (let axis = 0; axis < latent; axis++) coordinates[axis] = gaussian();
    for (let col = 0; col < dims; col++) {
      let value = 0.8 * (centres[cluster * dims + col] as number) + noise * gaussian();
      for (let axis = 0; axis < latent; axis++) value += (bases[(cluster * dims + col) * latent + axis] as number) * (coordinates[axis] as number);
      data[row * dims + col] = value;
    }
  }
  return normalizeRows({ rows, cols: dims, data });
}

/**
 * GFLOP/s of one query against the first `rowCount` rows (2 · rowCount · dims flops per query), cycling
 * through `queries` for at least `minSeconds`. The warm-up calls let V8 replace the kernel's Liftoff code
 * with TurboFan's (tier-up is triggered in the first call and compiled in the background) and page the
 * rows in.
 */
function gemvGflops(resident: ResidentMatrix, queries: DenseMatrix, rowCount = resident.rows, minSeconds = 0.3): number {
  const query = (index: number): Float32Array => queries.data.subarray((index % queries.rows) * dims, ((index % queries.rows) + 1) * dims);
  for (let warm = 0; warm < 10; warm++) resident.scoreQueries(query(warm), 1, 0, rowCount);
  const started = performance.now();
  let calls = 0;
  do {
    for (let index = 0; index < queries.rows; index++) resident.scoreQueries(query(index), 1, 0, rowCount);
    calls += queries.rows;
  } while (performance.now() - started < minSeconds * 1000);
  const seconds = (performance.now() - started) / 1000;
  return (2 * rowCount * dims * calls) / seconds / 1e9;
}

/** GFLOP/s of the kNN graph's shape: a 256 × 256 tile of resident rows (768 KiB, cache-resident), compute-bound. */
function tileGflops(resident: ResidentMatrix, minSeconds = 0.3): number {
  for (let warm = 0; warm < 10; warm++) resident.scoreRowBlock(0, 256, 256, 512);
  const started = performance.now();
  let calls = 0;
  do {
    resident.scoreRowBlock(0, 256, 256, 512);
    calls++;
  } while (performance.now() - started < minSeconds * 1000);
  return (2 * 256 * 256 * dims * calls) / ((performance.now() - started) / 1000) / 1e9;
}

/** GB/s of `Float32Array.prototype.set` (memmove) over `bytes`, reads plus writes: the streaming reference for the kernel. */
function copyGigabytesPerSecond(bytes: number, minSeconds = 0.3): number {
  const source = new Float32Array(bytes / 4).fill(1);
  const target = new Float32Array(bytes / 4);
  target.set(source);
  const started = performance.now();
  let copies = 0;
  do {
    target.set(source);
    copies++;
  } while (performance.now() - started < minSeconds * 1000);
  return (2 * bytes * copies) / ((performance.now() - started) / 1000) / 1e9;
}

function progress(message: string): void {
  process.stderr.write(`  ${message}\n`);
}

/** The dense-core benchmarks; every quantity is the median over `runs` runs. */
export async function benchCoreDense(runs: number): Promise<Record<string, BenchResult>> {
  const uniform = uniformUnitVectors(1);
  const clustered = clusteredUnitVectors(2);
  const queries = uniformUnitVectors(3);
  const simd = ResidentMatrix.load(uniform, { backend: 'wasm-simd' });
  const js = ResidentMatrix.load(uniform, { backend: 'js' });
  const simdQueries = { rows: 200, cols: dims, data: queries.data.subarray(0, 200 * dims) };
  const jsQueries = { rows: 20, cols: dims, data: queries.data.subarray(0, 20 * dims) };
  // 2^16 rows (96 MiB): more than any last-level cache share, so every query streams the rows from memory.
  const ramRows = 65536;
  const random = createRandom(4);
  const ram = ResidentMatrix.load({ rows: ramRows, cols: dims, data: Float32Array.from({ length: ramRows * dims }, () => random() - 0.5) }, { backend: 'wasm-simd' });
  const bySize: Record<string, number[]> = { l2: [], l3: [], ram: [] };
  const tile: number[] = [];
  const copy: number[] = [];
  const stream: number[] = [];

  const dotSimd: number[] = [];
  const dotJs: number[] = [];
  const ratio: number[] = [];
  const topK: number[] = [];
  const exactSeconds: number[] = [];
  const approxSeconds: number[] = [];
  const approxRecall: number[] = [];
  const approxScanRate: number[] = [];
  const kMeansSeconds: number[] = [];

  const search = new ExactVectorSearch(uniform);
  const clusteredExact = await exactKnnGraph(clustered, k);
  for (let run = 0; run < runs; run++) {
    const simdRate = gemvGflops(simd, simdQueries);
    const jsRate = gemvGflops(js, jsQueries);
    dotSimd.push(simdRate);
    dotJs.push(jsRate);
    ratio.push(simdRate / jsRate);
    // Where the rows live decides the GEMV rate: 512 rows (768 KiB) stay in L2, 4,096 (6 MiB) in L3.
    bySize.l2?.push(gemvGflops(simd, simdQueries, 512));
    bySize.l3?.push(gemvGflops(simd, simdQueries, 4096));
    bySize.ram?.push(gemvGflops(ram, simdQueries));
    stream.push((simdRate / 2) * 4);
    tile.push(tileGflops(simd));
    copy.push(copyGigabytesPerSecond(rows * dims * 4));
    progress(
      `run ${run + 1}/${runs}: dot by rows 512 ${bySize.l2?.[run]?.toFixed(1)}, 4,096 ${bySize.l3?.[run]?.toFixed(1)}, 20,000 ${simdRate.toFixed(1)}, 65,536 ${bySize.ram?.[run]?.toFixed(1)} GFLOP/s; ` +
        `256 × 256 tile ${tile[run]?.toFixed(1)} GFLOP/s; 20,000 rows stream at ${stream[run]?.toFixed(1)} GB/s, memmove of the same 30 MB ${copy[run]?.toFixed(1)} GB/s (read + write)`,
    );

    const query = queries.data.subarray((run % 100) * dims, (run % 100 + 1) * dims);
    search.search(query, 10);
    let started = performance.now();
    for (let repeat = 0; repeat < 20; repeat++) search.search(query, 10);
    topK.push((performance.now() - started) / 20);

    started = performance.now();
    await exactKnnGraph(uniform, k);
    exactSeconds.push((performance.now() - started) / 1000);

    started = performance.now();
    const approximate = nnDescent(clustered, k);
    approxSeconds.push((performance.now() - started) / 1000);
    approxRecall.push(knnGraphRecall(approximate, clusteredExact));
    approxScanRate.push(approximate.scanRate);

    started = performance.now();
    kMeans(clustered, 50, { seed: run });
    kMeansSeconds.push((performance.now() - started) / 1000);
    progress(
      `run ${run + 1}/${runs}: dot ${simdRate.toFixed(1)} vs ${jsRate.toFixed(2)} GFLOP/s, exact graph ${exactSeconds[run]?.toFixed(2)} s, ` +
        `NN-descent ${approxSeconds[run]?.toFixed(2)} s (recall ${approxRecall[run]?.toFixed(4)}), k-means ${kMeansSeconds[run]?.toFixed(2)} s`,
    );
  }
  // Deterministic for its seed, so measured once.
  const uniformRecall = knnGraphRecall(nnDescent(uniform, k), await exactKnnGraph(uniform, k));
  progress(`NN-descent recall on uniform random vectors: ${uniformRecall.toFixed(4)}`);

  return {
    dot_gflops: result(dotSimd, 'GFLOP/s'),
    dot_gflops_js: result(dotJs, 'GFLOP/s'),
    dot_simd_vs_js: result(ratio, 'x'),
    dot_gflops_512_rows: result(bySize.l2 ?? [], 'GFLOP/s'),
    dot_gflops_4096_rows: result(bySize.l3 ?? [], 'GFLOP/s'),
    dot_gflops_65536_rows: result(bySize.ram ?? [], 'GFLOP/s'),
    dot_stream_gbs: result(stream, 'GB/s'),
    dot_tile_256_gflops: result(tile, 'GFLOP/s'),
    memory_copy_gbs: result(copy, 'GB/s'),
    topk_query_20k_ms: result(topK, 'ms'),
    knn_graph_exact_s: result(exactSeconds, 's'),
    knn_graph_approx_s_synthetic_clustered: result(approxSeconds, 's'),
    knn_graph_approx_recall_synthetic_clustered: result(approxRecall, 'fraction'),
    knn_graph_approx_scan_rate_synthetic_clustered: result(approxScanRate, 'fraction'),
    knn_graph_approx_recall_uniform: result([uniformRecall], 'fraction'),
    kmeans_20k_k50_s: result(kMeansSeconds, 's'),
    ...(await benchKnnGraphChunkRecall()),
  };
}
