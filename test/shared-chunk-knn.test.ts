import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';

/*
 * AutoKG (K = 30: 29 neighbours) and KGP's knn links (k = 10) read one chunk kNN graph, `chunk-knn`, built once at
 * the larger k: the step list shows it once, each reader's output is what its own graph of its own k gave, adding
 * kgp to an autokg index rebuilds neither the graph nor autokg's steps, and another K rebuilds both. KGP builds the
 * knn and keyword links only when asked for (`methods.kgp.indexGraphs`, or `graph`), and a query traversing links
 * the index lacks says which setting builds them.
 */

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'kgrag-shared-knn-'));
after(() => rmSync(root, { recursive: true, force: true }));

const withKnn = { kgp: { indexGraphs: ['knn', 'entity', 'structural'] } };

function open(name: string, methods: string[], methodConfig: Record<string, Record<string, unknown>> = withKnn): Promise<Kgrag> {
  return createKgrag({ workspace: join(root, name), env: {}, config: { index: { mode: 'fast' }, pipeline: { methods }, methods: methodConfig } });
}

async function blob(kgrag: Kgrag, key: string): Promise<Buffer> {
  const bytes = await kgrag.store.getBlob(key);
  assert.ok(bytes, `blob ${key}`);
  return Buffer.from(bytes);
}

describe('the shared chunk kNN graph', () => {
  test('built once for autokg and kgp; each reads what its own k gave; adding kgp rebuilds nothing of autokg', async () => {
    const kgpAlone = await open('kgp', ['kgp']);
    let kgpGraph: Buffer;
    try {
      const summary = await kgpAlone.index([corpus]);
      assert.deepEqual(summary.ran.filter((step) => step === 'chunk-knn' || step === 'passage-graph'), ['chunk-knn', 'passage-graph']);
      assert.equal(summary.counts['chunk-knn']?.['neighbours'], 10);
      kgpGraph = await blob(kgpAlone, 'passage-graph');
    } finally {
      await kgpAlone.close();
    }

    const autokgFirst = await open('both', ['autokg']);
    let autokgGraph: Buffer;
    try {
      const summary = await autokgFirst.index([corpus]);
      assert.ok(summary.ran.includes('chunk-knn') && summary.ran.includes('chunk-graph'));
      assert.equal(summary.counts['chunk-knn']?.['neighbours'], 29);
      autokgGraph = await blob(autokgFirst, 'autokg-knn-graph');
    } finally {
      await autokgFirst.close();
    }

    const both = await open('both', ['autokg', 'kgp']);
    try {
      const summary = await both.index([corpus]);
      assert.ok(summary.ran.includes('passage-graph'), summary.ran.join(' '));
      assert.ok(!summary.ran.includes('chunk-knn') && !summary.ran.includes('chunk-graph') && !summary.ran.includes('keywords'), `K = 30 covers k = 10: ${summary.ran.join(' ')}`);
      assert.deepEqual(await blob(both, 'passage-graph'), kgpGraph, "kgp's links from the k = 29 graph are those of its own k = 10 graph");
      assert.deepEqual(await blob(both, 'autokg-knn-graph'), autokgGraph);
    } finally {
      await both.close();
    }

    const smaller = await open('both', ['autokg', 'kgp'], { ...withKnn, autokg: { neighbours: 20 } });
    try {
      const summary = await smaller.index([corpus]);
      assert.ok(summary.ran.includes('chunk-knn') && summary.ran.includes('chunk-graph'), `another K rebuilds the graph: ${summary.ran.join(' ')}`);
      assert.equal(summary.counts['chunk-knn']?.['neighbours'], 19);
      assert.deepEqual(await blob(smaller, 'passage-graph'), kgpGraph, 'and kgp still reads its first 10');
    } finally {
      await smaller.close();
    }
  });

  test('kgp builds no knn or keyword links unless asked, and a query that traverses them says how to build them', async () => {
    const kgrag = await open('kgp-default', ['kgp'], {});
    try {
      const summary = await kgrag.index([corpus]);
      assert.ok(!summary.ran.includes('chunk-knn') && !summary.ran.includes('embed-chunks'), summary.ran.join(' '));
      const counts = summary.counts['passage-graph'] ?? {};
      assert.deepEqual([counts['knnLinks'], counts['keywordLinks']], [0, 0]);
      assert.ok((counts['entityLinks'] ?? 0) > 0, JSON.stringify(counts));
      const result = await kgrag.query('Who founded the company?', { method: 'kgp', contextOnly: true });
      assert.ok(result.context.chunks.length > 0);
      await assert.rejects(
        kgrag.query('Who founded the company?', { method: 'kgp', contextOnly: true, params: { graph: ['knn', 'entity'] } }),
        (error: unknown) => KgragError.isInstance(error) && error.code === 'QUERY_GRAPH_NOT_BUILT' && /knn links/.test(error.message) && /methods\.kgp\.indexGraphs/.test(error.hint ?? ''),
      );
    } finally {
      await kgrag.close();
    }
  });
});
