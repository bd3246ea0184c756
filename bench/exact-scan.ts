import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRandom } from '../src/core/random.js';
import { createSimilarityIndex } from '../src/math/similarity-index.js';
import { topIndices } from '../src/math/top-indices.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { result, type BenchResult } from './bench-utils.js';

/*
 * Issue 37: the store's two exact vector scans on the 2Wiki dense case, 6,119 chunk vectors (seeded Gaussian, unit
 * length: what a remote embedder's vectors look like to a scan) at 1,024 and 1,536 dimensions, 10 nearest of 50
 * seeded queries:
 * - sqlite-vec: `VectorIndex.search` of a dense SQLite space, vec0's k-NN in SQL (a brute-force scan in C);
 * - simd: `VectorIndex.scoreMany` of the same space (the WASM SIMD kernel over the space's Float32 matrix, kept in
 *   memory per revision) plus a top-10 selection, as `search` would be with SIMD; warm, after one query loaded it;
 * - simd-load: the first `scoreMany` of a freshly opened store, which reads the matrix from the file;
 * - kernel: the SIMD kernel alone, without the store (`createSimilarityIndex`).
 * Each run is one fresh store; the values are milliseconds per query (per load for simd-load), medians over runs.
 */

const rows = 6119;
const queryCount = 50;
const k = 10;

function unitVectors(count: number, dimensions: number, seed: number): Float32Array {
  const random = createRandom(seed);
  const out = new Float32Array(count * dimensions);
  for (let row = 0; row < count; row++) {
    let norm = 0;
    for (let d = 0; d < dimensions; d++) {
      const value = Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
      out[row * dimensions + d] = value;
      norm += value * value;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dimensions; d++) out[row * dimensions + d] = (out[row * dimensions + d] as number) / norm;
  }
  return out;
}

function perQuery(run: () => void, count: number): number {
  const start = performance.now();
  run();
  return (performance.now() - start) / count;
}

async function perQueryAsync(run: () => Promise<void>, count: number): Promise<number> {
  const start = performance.now();
  await run();
  return (performance.now() - start) / count;
}

/** Medians of the four measures at one dimension. */
async function scanAt(dimensions: number, runs: number): Promise<Record<string, BenchResult>> {
  const matrix = unitVectors(rows, dimensions, 37);
  const queries = unitVectors(queryCount, dimensions, 3700);
  const query = (index: number): Float32Array => queries.subarray(index * dimensions, (index + 1) * dimensions);
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-exact-scan-'));
  const measured = { sqliteVec: [] as number[], simd: [] as number[], simdLoad: [] as number[], kernel: [] as number[] };
  let agreement = 0;
  try {
    const path = join(directory, 'scan.db');
    const writer = openSqliteStore(path);
    await writer.vectors('chunks').upsert(
      Array.from({ length: rows }, (_, row) => ({ id: `c${row}`, vector: matrix.slice(row * dimensions, (row + 1) * dimensions) })),
      `bench:${dimensions}`,
    );
    await writer.close();
    for (let run = 0; run < runs; run++) {
      const store = openSqliteStore(path, { readonly: true });
      const space = store.vectors('chunks');
      const ids = await space.ids();
      const byVec: string[][] = [];
      measured.sqliteVec.push(
        await perQueryAsync(async () => {
          for (let index = 0; index < queryCount; index++) byVec.push((await space.search(query(index), k)).map((hit) => hit.id));
        }, queryCount),
      );
      measured.simdLoad.push(await perQueryAsync(async () => void (await space.scoreMany(query(0), 1)), 1));
      const bySimd: string[][] = [];
      measured.simd.push(
        await perQueryAsync(async () => {
          for (let index = 0; index < queryCount; index++) {
            const { scores } = await space.scoreMany(query(index), 1);
            bySimd.push(topIndices(scores, k).map((row) => ids[row] as string));
          }
        }, queryCount),
      );
      agreement = bySimd.filter((top, index) => top.join() === byVec[index]?.join()).length / queryCount;
      await store.close();
      const kernel = createSimilarityIndex(rows, dimensions, matrix);
      measured.kernel.push(perQuery(() => {
        for (let index = 0; index < queryCount; index++) topIndices(kernel.scoreMany(query(index), 1), k);
      }, queryCount));
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const prefix = `exact-scan ${dimensions}d`;
  return {
    [`${prefix} sqlite-vec search (ms/query)`]: result(measured.sqliteVec, 'ms'),
    [`${prefix} simd scoreMany + top-10, warm (ms/query)`]: result(measured.simd, 'ms'),
    [`${prefix} simd first scoreMany, loads the matrix (ms)`]: result(measured.simdLoad, 'ms'),
    [`${prefix} simd kernel alone (ms/query)`]: result(measured.kernel, 'ms'),
    [`${prefix} same top-10 ids (share of queries)`]: result([agreement], 'share'),
  };
}

export async function benchExactScan(runs: number): Promise<Record<string, BenchResult>> {
  return { ...(await scanAt(1024, runs)), ...(await scanAt(1536, runs)) };
}
