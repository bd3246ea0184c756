/*
 * Issue 35, item 5: a log of one repeated line is thousands of identical chunks. The AutoKG knn-graph step compared
 * them pair by pair and copied neighbour lists as it went (85 s for 2,000 chunks; 4,000 did not finish in 2.5
 * minutes). Measured here: the whole fast-mode index of such a log, every method, in a cold child process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchResult, result, runChild } from './bench-utils.js';

/**
 * One line of a web server's log: 44 tokens (o200k_base), so 25 lines are the 1,100 new tokens of each chunk of the
 * default chunking (1,200 tokens, 100 shared) and every chunk is the same text.
 */
const logLine = '2024-05-17T12:34:56.789Z INFO [http-server] GET /api/v1/items?page=2 200 12ms user=alice session=abc123 request handled\n';
const linesPerChunk = 25;

/** What bench/index-child.ts prints (the fields read here). */
interface IndexChildReport {
  wallMs: number;
  steps: Record<string, number>;
  stepCounts: Record<string, Record<string, number>>;
}

/**
 * `duplicate_chunks_<n>_knn_s`: the knn-graph step's wall time (target < 5 s at 4,000), and
 * `duplicate_chunks_<n>_index_s`: the whole fast-mode index (every method, from process start), for a log that is
 * n = 2,000 and 4,000 copies of one chunk (6 and 12 MB); medians over `runs`.
 */
export async function measureDuplicateChunks(runs: number): Promise<Record<string, BenchResult>> {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-duplicates-'));
  try {
    const results: Record<string, BenchResult> = {};
    for (const chunks of [2000, 4000]) {
      const file = join(folder, `server-${chunks}.log`);
      writeFileSync(file, logLine.repeat(chunks * linesPerChunk));
      const knnSeconds: number[] = [];
      const indexSeconds: number[] = [];
      for (let run = 0; run < runs; run++) {
        const workspace = join(folder, `workspace-${chunks}-${run}`);
        const report = runChild<IndexChildReport>('./index-child.ts', [workspace, file]);
        rmSync(workspace, { recursive: true, force: true });
        const chunked = report.stepCounts.chunk?.chunks;
        if (chunked !== chunks) throw new Error(`the log was cut into ${chunked} chunks, not ${chunks}: the chunking defaults changed`);
        knnSeconds.push((report.steps['chunk-graph'] ?? Number.NaN) / 1000);
        indexSeconds.push(report.wallMs / 1000);
        const slowest = Object.entries(report.steps).sort((left, right) => right[1] - left[1]).slice(0, 3);
        process.stderr.write(
          `    ${chunks} chunks, run ${run + 1}/${runs}: knn-graph ${knnSeconds[run]!.toFixed(2)} s, index ${indexSeconds[run]!.toFixed(1)} s (slowest: ${slowest.map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`).join(', ')})\n`,
        );
      }
      results[`duplicate_chunks_${chunks}_knn_s`] = result(knnSeconds, 's');
      results[`duplicate_chunks_${chunks}_index_s`] = result(indexSeconds, 's');
    }
    return results;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
