import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { buildTripleIndex } from '../src/extract/triples/triple-index.js';
import type { PprGraph } from '../src/methods/ppr/build/ppr-graph.js';
import { buildPprGraph, loadPprGraph, pprGraphKeys } from '../src/methods/ppr/build/ppr-graph-step.js';
import { loadTripleIndex, loadTripleVectorRows, tripleIndexKeys } from '../src/pipeline/stored-triple-index.js';
import { rowsOf } from '../src/store/row-map.js';

/*
 * `ppr` and `relations` read the triple index and the rows of its phrase and fact vectors as the index steps
 * stored them (issue 16: every CLI query rebuilt them from 76,000 triples and matched 128,000 vector ids).
 * What they read must be what they would rebuild, and a workspace without the stored copies (indexed by an
 * earlier version) must answer the same.
 */

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-stored-triples-'));
after(() => rmSync(root, { recursive: true, force: true }));
const questions = ['Who designed the Kester Weir bridge?', 'Which boatworks did Tobias Marle run, and what happened in the flood?'];

test('the stored triple index, vector rows and ppr graph equal a rebuild, and queries answer the same without them', async () => {
  const workspace = join(root, 'sample');
  // One in-memory store that the test may edit in place (a published index is read-only).
  const kgrag = await createKgrag({ workspace, env: {}, config: { store: { path: ':memory:' } } });
  try {
    await kgrag.index([corpus]);
    const { store } = kgrag;
    const stored = await loadTripleIndex(store);
    assert.ok(stored.version, 'the triples step stored the index');
    const rebuilt = buildTripleIndex(await store.table('triples').all());
    assert.deepEqual([...stored.index.phraseTexts], rebuilt.phraseTexts);
    assert.deepEqual([...stored.index.factIds], rebuilt.factIds);
    assert.deepEqual(stored.index.factChunks.map((list) => [...list]), rebuilt.factChunks);
    assert.equal((await store.vectors('phrases').info())?.layout, 'sparse');
    assert.equal((await store.vectors('facts').info())?.layout, 'sparse');

    const rows = await loadTripleVectorRows(store, stored.version);
    assert.ok(rows, 'embed-triples stored the vector rows');
    assert.deepEqual(rows.phrases.rows, rowsOf(await store.vectors('phrases').ids(), rebuilt.phraseIds));
    assert.deepEqual(rows.facts.rows, rowsOf(await store.vectors('facts').ids(), rebuilt.factIds));
    assert.equal(rows.facts.revision, (await store.vectors('facts').info())?.revision);

    // The stored ppr graph is the graph the method would build, part for part.
    const parts = (graph: PprGraph) => ({
      graph: graph.graph,
      phraseGraph: graph.phraseGraph,
      passagePhraseCounts: graph.passagePhraseCounts,
      phrasePassageCounts: graph.phrasePassageCounts,
      passageIds: graph.passageIds,
      counts: graph.counts,
    });
    const loadedGraph = await loadPprGraph(store, stored.index, stored.version);
    const builtGraph = await buildPprGraph(store, rebuilt);
    assert.ok((await store.getBlob(pprGraphKeys.graph))?.byteLength);
    assert.deepEqual(parts(loadedGraph), parts(builtGraph));
    for (let a = 0; a < builtGraph.phraseCount; a++) {
      for (const b of [0, a + 1, (a * 7) % builtGraph.phraseCount]) assert.equal(loadedGraph.related(a, b), builtGraph.related(a, b));
    }
    for (let fact = 0; fact < rebuilt.factSubject.length; fact++) assert.ok(loadedGraph.related(rebuilt.factSubject[fact] as number, rebuilt.factObject[fact] as number) || rebuilt.factSubject[fact] === rebuilt.factObject[fact]);

    const answers = async (): Promise<unknown[]> => {
      const results: unknown[] = [];
      for (const method of ['ppr', 'ppr:v1', 'relations']) {
        for (const question of questions) {
          const { retrieval } = await kgrag.retrieve(question, { method });
          results.push(retrieval.chunks.map((chunk) => [chunk.id, chunk.score]));
        }
      }
      return results;
    };
    const withStored = await answers();
    assert.ok((withStored[0] as unknown[]).length > 0);

    // As a workspace indexed before the copies were stored: the blobs are gone, the methods rebuild.
    await store.setBlob(tripleIndexKeys.index, new Uint8Array(0));
    await store.setMeta(tripleIndexKeys.vectorRowsMeta, null);
    await store.setBlob(pprGraphKeys.graph, new Uint8Array(0));
    kgrag.engine.invalidate();
    assert.equal((await loadTripleIndex(store)).version, undefined);
    assert.deepEqual(await answers(), withStored);
  } finally {
    await kgrag.close();
  }
});
