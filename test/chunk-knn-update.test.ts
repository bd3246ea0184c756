// Issue 38 for the shared chunk kNN graph: between refreshes the chunk vectors stay as they are, so an update scores
// only the new chunks (and the lists that held a removed one) and the stored graph is still the exact graph of every
// chunk vector, bit for bit; a refresh, which refits the local embedder and so changes every vector, searches afresh.
// The readers of the graph do the same: AutoKG's near-duplicates, keyword memberships and KGP's term counts.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { exactKnnGraph } from '../src/math/exact-knn-graph.js';
import { decodeChunkKnnGraph } from '../src/pipeline/steps/chunk-knn-graph-codec.js';
import { chunkKnnBlobKey } from '../src/pipeline/steps/chunk-knn-step.js';
import { decodePassageGraphIndex } from '../src/methods/kgp/build/passage-graph-codec.js';
import { passageGraphBlobKey } from '../src/methods/kgp/build/passage-graph-step.js';
import { matrixInRowOrder } from '../src/store/matrix-in-row-order.js';
import { autokgChunkGraph } from '../src/methods/autokg/build/autokg-chunk-graph.js';
import { chunkKnnGraphBlobKey } from '../src/methods/autokg/build/chunk-graph-step.js';
import { countTerms } from '../src/text/term-count-matrix.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const files = readdirSync(corpus)
  .sort()
  .map((file) => join(corpus, file));
const root = mkdtempSync(join(tmpdir(), 'kgrag-knn-update-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Two documents whose one chunk is the same text (each starts with its title, so no title is prepended): one vector. */
const twins = ['Weir notes', 'Weir'].map((title) => ({ title, text: 'Weir notes\nThe Kester Weir was raised in 1951 after the flood of March 1947, and the fish pass beside it was added in 1988.', source: `test:${title}` }));

function open(refreshShare: number): Promise<Kgrag> {
  return createKgrag({
    workspace: join(root, 'index'),
    env: {},
    config: { index: { mode: 'fast', refreshShare }, pipeline: { methods: ['kgp', 'autokg'] }, methods: { kgp: { indexGraphs: ['knn', 'entity', 'structural'], knnK: 5 }, autokg: { neighbours: 8, spectralNeighbours: 8, positives: 2, negatives: 4 } } },
  });
}

/**
 * The stored graph against the exact graph of the stored chunk vectors, in chunk order; its reserve (each row's next
 * neighbours, which an update shortens) against the exact lists of that width: a prefix of each, padded with −1.
 */
async function assertExactGraph(kgrag: Kgrag): Promise<void> {
  const bytes = await kgrag.store.getBlob(chunkKnnBlobKey);
  assert.ok(bytes);
  const stored = decodeChunkKnnGraph(bytes);
  const chunkIds = (await kgrag.store.table('chunks').pick(['id'])).map((chunk) => chunk.id);
  assert.deepEqual(stored.chunkIds, chunkIds);
  const loaded = await kgrag.store.vectors('chunks').load();
  const exact = await exactKnnGraph({ rows: chunkIds.length, cols: loaded.dimensions, data: matrixInRowOrder(loaded, chunkIds) }, stored.graph.k, { threads: 1 });
  assert.deepEqual(Array.from(stored.graph.indices), Array.from(exact.indices));
  assert.deepEqual(Array.from(stored.graph.similarities), Array.from(exact.similarities));
  const { graph, reserve } = stored;
  assert.ok(reserve && reserve.width > 0, 'the exact graph keeps a reserve');
  const wide = await exactKnnGraph({ rows: chunkIds.length, cols: loaded.dimensions, data: matrixInRowOrder(loaded, chunkIds) }, graph.k + reserve.width, { threads: 1 });
  for (let row = 0; row < graph.n; row++) {
    const kept: number[] = Array.from(reserve.indices.subarray(row * reserve.width, (row + 1) * reserve.width));
    const length: number = kept.includes(-1) ? kept.indexOf(-1) : reserve.width;
    assert.ok(kept.slice(length).every((index) => index === -1), `row ${row}`);
    const start = row * wide.k + graph.k;
    assert.deepEqual(kept.slice(0, length), Array.from(wide.indices.subarray(start, start + length)), `row ${row}`);
    assert.deepEqual(Array.from(reserve.similarities.subarray(row * reserve.width, row * reserve.width + length)), Array.from(wide.similarities.subarray(start, start + length)), `row ${row}`);
  }
}

/** AutoKG's stored chunk graph against the graph of every chunk vector searched afresh. */
async function assertAutokgGraph(kgrag: Kgrag): Promise<void> {
  const bytes = await kgrag.store.getBlob(chunkKnnGraphBlobKey);
  assert.ok(bytes);
  const stored = decodeChunkKnnGraph(bytes);
  const chunks = await kgrag.store.table('chunks').pick(['id', 'nTokens']);
  const chunkIds = chunks.map((chunk) => chunk.id);
  const loaded = await kgrag.store.vectors('chunks').load();
  const fresh = await autokgChunkGraph({ rows: chunkIds.length, cols: loaded.dimensions, data: matrixInRowOrder(loaded, chunkIds) }, chunks.map((chunk) => chunk.nTokens), { neighbours: 8, duplicateDistance: 1e-6 });
  assert.deepEqual(stored.chunkIds, Array.from(fresh.kept, (row) => chunkIds[row]));
  assert.deepEqual(Array.from(stored.graph.indices), Array.from(fresh.graph.indices));
  assert.deepEqual(Array.from(stored.graph.similarities), Array.from(fresh.graph.similarities));
}

/** KGP's stored term counts against the counts of every chunk's text. */
async function assertTermCounts(kgrag: Kgrag): Promise<void> {
  const bytes = await kgrag.store.getBlob(passageGraphBlobKey);
  assert.ok(bytes);
  const { terms } = decodePassageGraphIndex(bytes);
  const expected = countTerms((await kgrag.store.table('chunks').pick(['text'])).map((chunk) => chunk.text));
  assert.deepEqual(terms.vocabulary, expected.vocabulary);
  for (const key of ['rowPointers', 'termIds', 'counts'] as const) assert.deepEqual(Array.from(terms[key]), Array.from(expected[key]), key);
}

describe('chunk-knn between refreshes', () => {
  it('scores only the new chunks and stays the exact graph, after a delete too; a refresh searches afresh', async () => {
    let kgrag = await open(0.9);
    try {
      const first = await kgrag.index(files.slice(0, 28));
      await assertExactGraph(kgrag);

      const added = await kgrag.index({ paths: files.slice(0, 32), documents: twins });
      const counts = added.counts['chunk-knn'] ?? {};
      const newChunks = added.counts['chunk']?.['added'] ?? 0;
      assert.ok(newChunks > 0);
      assert.equal(counts['updated'], 1, JSON.stringify(counts));
      assert.equal(counts['addedRows'], newChunks);
      await assertExactGraph(kgrag);
      // AutoKG searches for near-duplicates only around the new chunks and those it left out before, and finds the twin.
      const graphCounts = added.counts['chunk-graph'] ?? {};
      assert.equal(graphCounts['duplicateCandidates'], newChunks + (first.counts['chunk-graph']?.['duplicates'] ?? 0), JSON.stringify(graphCounts));
      assert.equal(graphCounts['duplicates'], (first.counts['chunk-graph']?.['duplicates'] ?? 0) + 1);
      // The lists that held the left-out twin take the next neighbours from the shared graph's reserve: none is searched.
      assert.equal(graphCounts['searchedRows'], 0, JSON.stringify(graphCounts));
      // Only the vectors of the rows near the candidates are read, and the graph is the one a fresh search gives.
      assert.equal(graphCounts['vectorsRead'], 0, JSON.stringify(graphCounts));
      await assertAutokgGraph(kgrag);

      // AutoKG keeps the clusters and the members of every keyword whose Laplace seeds are the same, and solves the rest.
      const keywordCounts = added.counts['keywords'] ?? {};
      assert.equal(keywordCounts['reclustered'], 0, JSON.stringify(keywordCounts));
      assert.ok((keywordCounts['solvedKeywords'] ?? -1) >= 0 && (keywordCounts['solvedKeywords'] as number) < (keywordCounts['keywords'] as number), JSON.stringify(keywordCounts));

      // KGP counts the terms of the new passages only, and holds the counts of every passage all the same.
      assert.equal(added.counts['passage-graph']?.['countedPassages'], newChunks);
      assert.equal(added.counts['passage-graph']?.['conceptPassagesRead'], newChunks, 'and reads the concepts of the new passages only');
      await assertTermCounts(kgrag);

      // The lists that held a removed chunk take the next neighbours from their reserves: none is scored again.
      const deleted = await kgrag.delete([files[3] as string, files[30] as string]);
      const deleteCounts = deleted.run.counts['chunk-knn'] ?? {};
      assert.equal(deleteCounts['updated'], 1, JSON.stringify(deleteCounts));
      assert.equal(deleteCounts['rescoredRows'], 0, JSON.stringify(deleteCounts));
      assert.equal(deleted.run.counts['chunk-graph']?.['vectorsRead'], 0, JSON.stringify(deleted.run.counts['chunk-graph']));
      await assertExactGraph(kgrag);
      await assertAutokgGraph(kgrag);
      await assertTermCounts(kgrag);
    } finally {
      await kgrag.close();
    }

    kgrag = await open(0);
    try {
      const refreshed = await kgrag.index(files);
      assert.equal(refreshed.counts['statistics']?.['refreshed'], 1);
      assert.equal(refreshed.counts['chunk-knn']?.['updated'], 0, 'refitted vectors: the graph is searched afresh');
      const keywordCounts = refreshed.counts['keywords'] ?? {};
      assert.equal(keywordCounts['reclustered'], 1, 'a refresh clusters the LLM-free keywords again');
      assert.equal(keywordCounts['solvedKeywords'], keywordCounts['keywords']);
      await assertExactGraph(kgrag);
    } finally {
      await kgrag.close();
    }
  });
});
