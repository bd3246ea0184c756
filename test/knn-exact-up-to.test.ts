import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';

/*
 * `index.knn.exactUpTo` reaches the shared chunk kNN graph (`chunk-knn`) and so both of its readers (kgp's passage
 * graph with its knn links, autokg's chunk graph): on the sample corpus, whose chunks are far below the default
 * 50,000, a limit under the chunk count makes the graph NN-descent's, and the steps' counts say so; without the key
 * it stays exact. A bad value is a config error naming the key.
 */

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'kgrag-knn-exact-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The `approximate` counts of the two kNN graph steps after a fast index of the sample corpus for kgp and autokg. */
async function approximateCounts(name: string, yaml: string): Promise<{ passageGraph: number | undefined; knnGraph: number | undefined; chunks: number }> {
  const workspace = join(root, name);
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'kgrag.yaml'), `pipeline:\n  methods: [kgp, autokg]\nmethods:\n  kgp:\n    indexGraphs: [knn, entity, structural]\n${yaml}`);
  const kgrag = await createKgrag({ workspace, env: {} });
  try {
    await kgrag.index([corpus], { mode: 'fast' });
    const runs = new Map((await kgrag.store.table('runs').get(['passage-graph', 'chunk-graph'])).map((run) => [run.step, run.counts]));
    return { passageGraph: runs.get('passage-graph')?.['approximateKnn'], knnGraph: runs.get('chunk-graph')?.['approximate'], chunks: await kgrag.store.table('chunks').count() };
  } finally {
    await kgrag.close();
  }
}

describe('index.knn.exactUpTo', () => {
  test('below the chunk count both kNN graphs are built by NN-descent; by default both are exact', async () => {
    const limited = await approximateCounts('limited', 'index:\n  knn:\n    exactUpTo: 5\n');
    assert.ok(limited.chunks > 5, `the sample corpus has ${limited.chunks} chunks`);
    assert.deepEqual({ passageGraph: limited.passageGraph, knnGraph: limited.knnGraph }, { passageGraph: 1, knnGraph: 1 });
    const byDefault = await approximateCounts('default', '');
    assert.deepEqual({ passageGraph: byDefault.passageGraph, knnGraph: byDefault.knnGraph }, { passageGraph: 0, knnGraph: 0 });
  });

  test('a new value that leaves the graph as it was is recorded: the next index skips the step instead of re-running it every time', async () => {
    const workspace = join(root, 'unchanged-graph');
    const open = (knn: { exactUpTo?: number }) =>
      createKgrag({ workspace, env: {}, config: { index: { mode: 'fast', knn }, pipeline: { methods: ['kgp'] }, methods: { kgp: { indexGraphs: ['knn', 'entity', 'structural'] } } } });
    const first = await open({});
    await first.index([corpus]);
    await first.close();
    // The sample corpus is far below both limits: its kNN graph is exact either way, byte for byte, so the passage
    // graph that reads it is not rebuilt.
    const raised = await open({ exactUpTo: 1_000_000 });
    try {
      const ran = (await raised.index([corpus])).ran;
      assert.ok(ran.includes('chunk-knn') && !ran.includes('passage-graph'), `a new setting re-runs the kNN step once, and only it: ${ran.join(' ')}`);
      assert.deepEqual((await raised.index([corpus])).ran, ['load']);
    } finally {
      await raised.close();
    }
    const reopened = await open({ exactUpTo: 1_000_000 });
    try {
      assert.deepEqual((await reopened.index([corpus])).ran, ['load']);
    } finally {
      await reopened.close();
    }
  });

  for (const [value, shown] of [
    ['0', '0'],
    ['2.5', '2.5'],
    ['many', '"many"'],
  ] as const) {
    test(`exactUpTo ${shown} is a config error naming the key`, async () => {
      const workspace = join(root, `bad-${value}`);
      mkdirSync(workspace);
      writeFileSync(join(workspace, 'kgrag.yaml'), `index:\n  knn:\n    exactUpTo: ${shown}\n`);
      await assert.rejects(createKgrag({ workspace, env: {} }), (error: unknown) => KgragError.isInstance(error) && error.code === 'CONFIG_INVALID' && /index\.knn\.exactUpTo/.test(error.message));
    });
  }
});
