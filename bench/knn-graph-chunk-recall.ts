/*
 * Issue 36: NN-descent's recall on the product's own chunk vectors. The chunk kNN graphs of kgp (10 neighbours) and
 * autokg (29, the k measured here) are built by NN-descent above 50,000 chunks (math/knn-graph-by-size.ts); the synthetic clustered
 * vectors of core-dense.ts say little about how well it does on the local embedder's sparse hashed vectors. Here
 * the k× 2Wiki scale corpus (bench/scale-corpus.ts, 16× by default: ~98,000 chunks) is chunked and embedded by a
 * fast index for `basic` (chunk and embed-chunks only), its chunk vectors are read back from the store, and the
 * graph `knnGraphBySize` builds by default is timed and compared with the exact lists of seeded sample rows (an
 * exact scan per sampled row: the full exact graph would cost ~400 CPU-seconds at 16×).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import type { DenseMatrix } from '../src/math/dense-matrix.js';
import type { KnnGraph } from '../src/math/knn-graph.js';
import { knnGraphBySize } from '../src/math/knn-graph-by-size.js';
import { ExactVectorSearch } from '../src/math/top-k.js';
import { matrixInRowOrder } from '../src/store/matrix-in-row-order.js';
import { type BenchResult, result, sharedDatasets } from './bench-utils.js';
import { type Passage, scaleCorpus } from './scale-corpus.js';

/** Rows whose exact lists are computed: the recall's standard error is below 0.005 at these many. */
const sampleRows = 1000;

/** The local embedder's chunk vectors of the `size`× 2Wiki scale corpus, in chunk order, as an index stores them. */
export async function scaleCorpusChunkVectors(size: number): Promise<DenseMatrix> {
  const original = JSON.parse(readFileSync(join(sharedDatasets, '2wiki-corpus/corpus.json'), 'utf8')) as Passage[];
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-chunk-vectors-'));
  try {
    const corpus = join(folder, `corpus-${size}x.json`);
    writeFileSync(corpus, JSON.stringify(scaleCorpus(original, size).passages));
    const kgrag = await createKgrag({ workspace: join(folder, 'workspace'), env: {}, config: { index: { mode: 'fast' }, pipeline: { methods: ['basic'] } } });
    try {
      await kgrag.index([corpus]);
      const ids = (await kgrag.store.table('chunks').pick(['id'])).map((chunk) => chunk.id);
      const loaded = await kgrag.store.vectors('chunks').load();
      return { rows: ids.length, cols: loaded.dimensions, data: matrixInRowOrder(loaded, ids) };
    } finally {
      await kgrag.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Share of the exact `k` nearest other rows of `samples` seeded rows that `graph` lists. A row's exact list is the
 * best `k` of an exact scan without the row itself; ties at the k-th score may make a few slots count as misses.
 */
export function sampledKnnRecall(matrix: DenseMatrix, graph: KnnGraph, samples: number, seed = 36): number {
  const random = createRandom(seed);
  const search = new ExactVectorSearch(matrix);
  const { k } = graph;
  let found = 0;
  let total = 0;
  for (let sample = 0; sample < samples; sample++) {
    const row = Math.floor(random() * matrix.rows);
    const exact = search.search(matrix.data.subarray(row * matrix.cols, (row + 1) * matrix.cols), k + 1);
    const expected = Array.from(exact.indices).filter((index) => index !== row && index >= 0).slice(0, k);
    const listed = new Set(graph.indices.subarray(row * k, (row + 1) * k));
    for (const index of expected) if (listed.has(index)) found++;
    total += expected.length;
  }
  return found / total;
}

/** NN-descent's time and sampled recall on the `size`× scale corpus's chunk vectors, at autokg's k (29 other chunks). */
export async function benchKnnGraphChunkRecall(size = 16): Promise<Record<string, BenchResult>> {
  const started = performance.now();
  const matrix = await scaleCorpusChunkVectors(size);
  process.stderr.write(`  ${matrix.rows} chunk vectors of ${matrix.cols} dimensions from the ${size}× 2Wiki corpus in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  const k = 29;
  const building = performance.now();
  const cpuBefore = process.cpuUsage();
  const graph = await knnGraphBySize(matrix, k);
  const seconds = (performance.now() - building) / 1000;
  // This thread's CPU only: the joins scored on worker threads are in the wall time, not here.
  const cpu = process.cpuUsage(cpuBefore);
  const recall = sampledKnnRecall(matrix, graph, sampleRows);
  process.stderr.write(
    `  k = ${k}: ${graph.exact ? 'exact' : 'NN-descent'} graph in ${seconds.toFixed(1)} s (main thread CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s), recall ${recall.toFixed(4)} over ${sampleRows} sampled rows\n`,
  );
  if (graph.exact) throw new Error(`the ${matrix.rows} chunks were searched exactly: use a size above 50,000 chunks (--sizes)`);
  return {
    knn_graph_chunk_vectors_rows: result([matrix.rows], 'count'),
    knn_graph_approx_s: result([seconds], 's'),
    knn_graph_approx_recall: result([recall], 'fraction'),
  };
}
