import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../src/api/create-kgrag.js';
import { indexSnapshot } from '../test/helpers/index-snapshot.js';
import { standardTestLlmConfig } from '../test/helpers/standard-test-config.js';

/*
 * Writers and readers of one workspace (issue 16, items 3 and 4), measured with real processes: two
 * standard-mode index runs started together against the loopback mock LLM, and parallel queries while a
 * re-index writes.
 */

const repository = fileURLToPath(new URL('..', import.meta.url));
const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const standardChild = fileURLToPath(new URL('../test/helpers/index-standard-child.ts', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

/** The mock LLM in its own process, as a real endpoint would be; replies after `latencyMs`. */
async function startMock(latencyMs: number): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./mock-server-child.ts', import.meta.url)), String(latencyMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [string];
  return {
    url: (JSON.parse(line) as { url: string }).url,
    async stop() {
      child.stdin?.end();
      await once(child, 'exit');
    },
  };
}

function run(args: string[]): { child: ChildProcess; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: repository, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, exit: once(child, 'exit').then(([code]) => ({ code: code as number | null, stderr })) };
}

/**
 * `concurrent_writers_corrupt`: trials in which two standard-mode `index` runs started at the same moment on one
 * workspace end with an index that differs from a single run's (or with a failed run). Target 0.
 */
export async function measureConcurrentWriters(trials: number): Promise<{ corrupt: number; trials: number }> {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-bench-writers-'));
  const mock = await startMock(0);
  try {
    const referenceWorkspace = join(root, 'reference');
    const single = await run([standardChild, referenceWorkspace, mock.url]).exit;
    if (single.code !== 0) throw new Error(`the reference standard-mode index failed: ${single.stderr}`);
    const reference = await snapshotOf(referenceWorkspace, mock.url);
    let corrupt = 0;
    for (let trial = 0; trial < trials; trial++) {
      const workspace = join(root, `trial-${trial}`);
      const [first, second] = await Promise.all([run([standardChild, workspace, mock.url]).exit, run([standardChild, workspace, mock.url]).exit]);
      const failed = first.code !== 0 || second.code !== 0;
      const differs = failed || !isDeepStrictEqual(await snapshotOf(workspace, mock.url), reference);
      if (differs) corrupt++;
      process.stderr.write(`  writers trial ${trial + 1}/${trials}: ${failed ? `a run failed (${first.code}, ${second.code}): ${(first.stderr + second.stderr).trim().split('\n').pop()}` : differs ? 'index differs from one run' : 'same index as one run'}\n`);
    }
    return { corrupt, trials };
  } finally {
    await mock.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

async function snapshotOf(workspace: string, baseURL: string): Promise<Record<string, unknown>> {
  const kgrag = await createKgrag({ workspace, env: {}, config: { llm: standardTestLlmConfig(baseURL) } });
  try {
    return await indexSnapshot(kgrag);
  } finally {
    await kgrag.close();
  }
}

/**
 * `queries_failed_during_reindex`: rounds of 20 parallel queries over several methods, in another process than
 * a re-index (fast mode, the sample corpus plus new documents) for as long as the re-index runs. Target 0.
 */
export async function measureQueriesDuringReindex(): Promise<{ failed: number; queries: number; rounds: number; examples: string[] }> {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-bench-readers-'));
  try {
    const workspace = join(root, 'workspace');
    const extra = join(root, 'extra');
    mkdirSync(extra);
    for (let index = 0; index < 20; index++) {
      writeFileSync(join(extra, `note-${index}.md`), `# Harbour note ${index}\n\nThe harbour master logged ${index + 3} barges of slate at the Kester Weir Bridge on day ${index}.\n`);
    }
    const kgrag = await createKgrag({ workspace, env: {} });
    await kgrag.index([corpus]);
    const writer = run([cli, 'index', corpus, extra, '-w', workspace, '-q']);
    let writing = true;
    void writer.exit.then(() => (writing = false));
    while (writing && (await kgrag.status()).writer === undefined) await sleep(10);
    const methods = ['basic', 'basic:bm25', 'local', 'global', 'ppr', 'kgp', 'relations', 'autokg'];
    let failed = 0;
    let queries = 0;
    let rounds = 0;
    const examples: string[] = [];
    while (writing) {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) => kgrag.query('Who built the Kester Weir Bridge?', { method: methods[index % methods.length] as string })),
      );
      rounds++;
      queries += results.length;
      // Queries on an in-memory index resolve without I/O; give the event loop a turn to see the writer exit.
      await sleep(1);
      for (const result of results) {
        if (result.status === 'fulfilled') continue;
        failed++;
        if (examples.length < 3) examples.push(String(result.reason));
      }
    }
    const finished = await writer.exit;
    if (finished.code !== 0) throw new Error(`the re-index failed: ${finished.stderr}`);
    await kgrag.close();
    return { failed, queries, rounds, examples };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
