import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchResult, result, runChild, sharedDatasets } from './bench-utils.js';

/*
 * Issue 16: a `ppr` or `relations` CLI query in a fresh process on the 2Wiki fast-mode index, as a user (or each
 * of 20 concurrent users) runs it: wall time of the whole process and its peak RSS, plus the database size.
 * The command is the compiled CLI (`npm run build`, as `npx kgrag` and an installed `kgrag` run it); npx itself
 * adds about a second of npm start-up on this machine, which is not kgrag's.
 *
 * What "cold" means (issue 36):
 * - `<method>_cold_query_s`: a fresh Node process — no module, JIT code, open database or lookup of kgrag's is
 *   left from before — but the operating system's page cache is warm: the previous run read the same database
 *   file and modules moments ago, so they come from memory. This is a user's second query of the day.
 * - `<method>_disk_cold_query_s`: the same after `sync` and `echo 3 > /proc/sys/vm/drop_caches` before every run,
 *   so the database, Node and node_modules are read from the disk: a user's first query after a reboot. Dropping
 *   the cache needs root; without it these keys are not reported (stderr says so), never estimated.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const question = 'Who is the mother of the director of film Polish-Russian War?';

/** One CLI run in a fresh process: its wall time and peak RSS. */
function coldRun(args: readonly string[]): { seconds: number; rssMb: number } {
  const started = performance.now();
  const child = spawnSync(process.execPath, [join(root, 'bench/cold-query-child.mjs'), ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  const report = /cold-query-child (\{.*\})\s*$/.exec(child.stderr);
  if (child.status !== 0 || !report) throw new Error(`kgrag ${args.join(' ')} failed (${child.status}): ${child.stderr}`);
  return { seconds, rssMb: (JSON.parse(report[1] as string) as { maxRssMb: number }).maxRssMb };
}

/** Empties the page cache (root only); false where the system refuses. */
function dropPageCache(): boolean {
  spawnSync('sync');
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch (error) {
    process.stderr.write(`  cannot drop the page cache (${(error as Error).message}): the disk-cold runs are skipped\n`);
    return false;
  }
}

/** Cold `ppr` and `relations` queries on a fresh 2Wiki fast-mode index; `runs` processes per method. */
export async function benchColdQuery(runs: number): Promise<Record<string, BenchResult>> {
  const corpus = join(sharedDatasets, '2wiki-corpus/corpus.json');
  if (!existsSync(corpus)) throw new Error(`${corpus} is missing: this benchmark needs ../shared/datasets`);
  process.stderr.write('  building the CLI (npm run build)\n');
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stdout}${build.stderr}`);
  const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-cold-'));
  try {
    process.stderr.write('  indexing 2Wiki (fast mode)\n');
    runChild('./index-child.ts', [workspace, corpus]);
    const database = join(workspace, 'kgrag.db');
    const databaseMb = ['', '-wal'].reduce((total, suffix) => total + (existsSync(database + suffix) ? statSync(database + suffix).size : 0), 0) / 1e6;
    const results: Record<string, BenchResult> = { db_mb_2wiki: result([databaseMb], 'MB') };
    const startup = Array.from({ length: runs }, () => coldRun(['--version']));
    results.cli_startup_s = result(startup.map((run) => run.seconds), 's');
    for (const method of ['ppr', 'relations']) {
      const measured: Array<{ seconds: number; rssMb: number }> = [];
      for (let run = 0; run < runs; run++) {
        measured.push(coldRun(['query', question, '-m', method, '-w', workspace]));
        process.stderr.write(`  ${method} run ${run + 1}/${runs}: ${measured[run]?.seconds.toFixed(2)} s, ${measured[run]?.rssMb.toFixed(0)} MB\n`);
      }
      results[`${method}_cold_query_s`] = result(measured.map((run) => run.seconds), 's');
      results[`${method}_cold_query_rss_mb`] = result(measured.map((run) => run.rssMb), 'MB');
    }
    for (const method of ['ppr', 'relations']) {
      const measured: number[] = [];
      for (let run = 0; run < runs && dropPageCache(); run++) {
        measured.push(coldRun(['query', question, '-m', method, '-w', workspace]).seconds);
        process.stderr.write(`  ${method} disk-cold run ${run + 1}/${runs}: ${measured[run]?.toFixed(2)} s\n`);
      }
      if (measured.length === runs) results[`${method}_disk_cold_query_s`] = result(measured, 's');
    }
    return results;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
