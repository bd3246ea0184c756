// Issue 38: between refreshes of the corpus statistics, an update parses only the chunks it adds and keeps the stored
// triples of the others; the triple index, the rows of the phrase and fact vectors and the ppr graph are updated at the
// cost of the change. The NLP parser's lexicon grows with what it reads, so a chunk parsed in an update can differ from
// the same chunk parsed in a fresh build's single pass (here "the Ferry Inn", read after the ledger that starts with
// "Ferry"): that is the state frozen between refreshes, and `incremental-equivalence.test.ts` checks that a refresh
// gives the fresh build. What an update must give is checked here: the kept chunks' triples as stored, the new
// chunks' as a fresh parse of them gives, and everything built from the triples equal to building it from scratch
// from the stored triples and vectors.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { loadSampleDataset } from '../src/eval/datasets/load-sample-dataset.js';
import { buildTripleIndex } from '../src/extract/triples/triple-index.js';
import { encodeTripleIndex } from '../src/extract/triples/triple-index-codec.js';
import { assemblePprGraph, encodePprGraph } from '../src/methods/ppr/build/ppr-graph.js';
import { loadSynonymEdges, pprGraphKeys, type PprGraphMeta } from '../src/methods/ppr/build/ppr-graph-step.js';
import { computeSynonymEdges, type SparseVector } from '../src/methods/ppr/build/synonym-edges.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import type { PipelineSummary } from '../src/pipeline/run-pipeline.js';
import { loadTripleIndex, loadTripleVectorRows, tripleIndexKeys } from '../src/pipeline/stored-triple-index.js';
import { rowsOf } from '../src/store/row-map.js';
import type { TripleRecord } from '../src/core/types.js';

const extra: InputDocument[] = [
  {
    title: 'Kestermouth Regatta 1962',
    text: 'Kestermouth Regatta 1962\nThe Kestermouth Regatta of 1962 was rowed on the River Kester below the Kester Weir Bridge. The Marle Boatworks built two of the racing gigs, and the Ferry Inn served the crews.',
    source: 'extra:regatta',
  },
  {
    title: 'Ferry Inn ledger',
    text: 'Ferry Inn ledger\nThe ledger of the Ferry Inn records a dinner for the Kester Flood Boat Crew in 1969 and a meeting of the Kestermouth Heritage Society in 1988.',
    source: 'extra:ledger',
  },
];

/** Asserts that the index, vector rows, synonym edges and ppr graph are what building them from the stored triples and vectors gives. */
async function assertBuiltFromStored(kgrag: Kgrag): Promise<void> {
  const { store } = kgrag;
  const triples = await store.table('triples').all();
  const chunkOrder = new Map((await store.table('chunks').pick(['id'])).map((chunk, position) => [chunk.id, position]));
  const positions = triples.map((row) => chunkOrder.get(row.chunkId) as number);
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b), 'the triples table is in chunk order');
  const rebuilt = buildTripleIndex(triples);
  assert.deepEqual(Buffer.from((await store.getBlob(tripleIndexKeys.index)) as Uint8Array), Buffer.from(encodeTripleIndex(rebuilt) as Uint8Array), 'the stored triple index');
  const { version } = await loadTripleIndex(store);
  const rows = await loadTripleVectorRows(store, version);
  assert.ok(rows, 'the vector rows go with the stored index');
  assert.deepEqual(rows.phrases.rows, rowsOf(await store.vectors('phrases').ids(), rebuilt.phraseIds));
  assert.deepEqual(rows.facts.rows, rowsOf(await store.vectors('facts').ids(), rebuilt.factIds));
  assert.equal(rows.phrases.revision, (await store.vectors('phrases').info())?.revision);

  const loaded = await store.vectors('phrases').loadSparse();
  const vectors: Array<SparseVector | null> = rebuilt.phraseIds.map(() => null);
  rowsOf(loaded.ids, rebuilt.phraseIds).forEach((phrase, row) => {
    if (phrase < 0) return;
    const start = loaded.rowPointers[row] as number;
    const end = loaded.rowPointers[row + 1] as number;
    vectors[phrase] = { dimensions: loaded.dimensions, columns: loaded.columnIndices.subarray(start, end), values: loaded.values.subarray(start, end) };
  });
  const meta = (await store.getMeta<PprGraphMeta>(pprGraphKeys.meta)) as PprGraphMeta;
  const expected = await computeSynonymEdges(rebuilt.phraseTexts, vectors, { topK: meta.synonymyEdgeTopk, threshold: meta.synonymyEdgeSimThreshold, search: meta.search });
  const stored = await loadSynonymEdges(store, rebuilt.phraseIds);
  assert.ok(expected.sources.length > 0);
  assert.deepEqual([stored.sources, stored.targets, stored.weights].map((part) => [...part]), [expected.sources, expected.targets, expected.weights].map((part) => [...part]), 'the synonym edges');
  const passageIds = [...chunkOrder.keys()];
  assert.deepEqual(Buffer.from((await store.getBlob(pprGraphKeys.graph)) as Uint8Array), Buffer.from(encodePprGraph(assemblePprGraph(rebuilt, passageIds, expected))), 'the ppr graph');
}

const rowsOfChunks = (rows: readonly TripleRecord[], chunks: ReadonlySet<string>): TripleRecord[] => rows.filter((row) => chunks.has(row.chunkId));

describe('triples, their vectors and the ppr graph updated between refreshes', { timeout: 300_000 }, () => {
  const folders: string[] = [];
  let documents: InputDocument[];
  const open = async (): Promise<Kgrag> => {
    const folder = mkdtempSync(join(tmpdir(), 'kgrag-triples-incremental-'));
    folders.push(folder);
    // refreshShare 1: no update in this test refits the corpus statistics.
    return createKgrag({ workspace: folder, env: {}, config: { index: { mode: 'fast', refreshShare: 1 }, pipeline: { methods: ['ppr'] } } });
  };
  const stepCounts = (result: PipelineSummary, step: string): Record<string, number> | undefined => result.counts[step];

  before(async () => {
    documents = (await loadSampleDataset()).passages.map((passage, index) => ({ title: passage.title, text: `${passage.title}\n${passage.text}`, source: `sample#${index}` }));
  });
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('an add parses only the new chunks, keeps the others’ triples and appends to the stored index; a delete drops the removed chunks’ triples', async () => {
    const updated = await open();
    const alone = await open();
    try {
      await updated.index(documents);
      const before = await updated.store.table('triples').all();
      const keptChunks = new Set((await updated.store.table('chunks').pick(['id'])).map((chunk) => chunk.id));
      const result = await updated.index(extra);
      const triples = stepCounts(result, 'triples');
      assert.equal(triples?.['extracted'], 2, 'only the two new chunks are parsed');
      assert.equal(triples?.['indexRebuilt'], 0, 'the stored index is appended to');
      assert.equal(stepCounts(result, 'embed-triples')?.['appended'], 1, 'the new phrases and facts are embedded and their rows appended, without comparing every id');
      assert.equal(stepCounts(result, 'ppr-graph')?.['updated'], 1, 'the synonym edges are updated, not recomputed');
      assert.equal(stepCounts(result, 'ppr-graph')?.['graphAppended'], 1, 'the stored ppr graph is updated, not assembled again');
      const after = await updated.store.table('triples').all();
      assert.deepEqual(rowsOfChunks(after, keptChunks), before, 'the kept chunks keep their triples');
      // The new chunks' triples are a fresh parse of them: what indexing them alone gives.
      await alone.index(extra);
      const newChunks = new Set((await alone.store.table('chunks').pick(['id'])).map((chunk) => chunk.id));
      assert.deepEqual(rowsOfChunks(after, newChunks), await alone.store.table('triples').all());
      assert.equal(after.length, before.length + (await alone.store.table('triples').count()));
      await assertBuiltFromStored(updated);

      const removed = await updated.delete(extra.map((document) => document.source as string));
      assert.equal(removed.deleted.length, extra.length);
      assert.deepEqual(await updated.store.table('triples').all(), before, 'a delete leaves the triples the index had before the add');
      assert.equal(stepCounts(removed.run, 'embed-triples')?.['followedRemoval'], 1, 'the vectors follow the removal, without comparing every id');
      assert.equal(stepCounts(removed.run, 'ppr-graph')?.['graphRemovedFrom'], 1, 'the stored ppr graph follows the removal, not assembled again');
      await assertBuiltFromStored(updated);

      // After a delete (the index and its vectors updated in place), an add appends again.
      const again = await updated.index(extra);
      assert.equal(stepCounts(again, 'embed-triples')?.['appended'], 1);
      assert.equal(stepCounts(again, 'ppr-graph')?.['graphAppended'], 1);
      await assertBuiltFromStored(updated);
    } finally {
      await updated.close();
      await alone.close();
    }
  });

  it('a delete of documents among the others removes their chunks from the stored index instead of building it again', async () => {
    const kgrag = await open();
    try {
      await kgrag.index(documents);
      // Early documents: phrases and facts first seen in them move to the later chunks that name them too.
      const sources = [0, 1, 3, 6].map((index) => `sample#${index}`);
      const removed = await kgrag.delete(sources);
      assert.equal(removed.deleted.length, sources.length);
      const triples = stepCounts(removed.run, 'triples');
      assert.ok((triples?.['removedTriples'] ?? 0) > 0, 'the deleted documents had triples');
      assert.equal(triples?.['indexRebuilt'], 0, 'the stored index is updated in place');
      assert.equal(stepCounts(removed.run, 'embed-triples')?.['followedRemoval'], 1, 'the vectors follow the removal');
      assert.equal(stepCounts(removed.run, 'ppr-graph')?.['graphRemovedFrom'], 1, 'the stored ppr graph follows the removal');
      await assertBuiltFromStored(kgrag);
    } finally {
      await kgrag.close();
    }
  });
});
