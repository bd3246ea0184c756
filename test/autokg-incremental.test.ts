// Issue 18 for AutoKG's `keywords` step: a small change of the corpus keeps the clustering and names again only the
// clusters whose members changed, while a change past `reclusterShare` clusters from scratch like a fresh build.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { sha256 } from '../src/core/ids.js';
import { chunkNounPhrases } from '../src/methods/autokg/build/chunk-noun-phrases.js';
import { keywordClusterStateKey, readKeywordClusterState, type KeywordClusterState } from '../src/methods/autokg/build/keyword-cluster-state.js';
import { decodePhraseTable, encodePhraseTable, phraseTableKey } from '../src/methods/autokg/build/phrase-table.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel, type ScriptedLanguageModel } from '../src/testing/index.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const files = readdirSync(corpus)
  .sort()
  .map((file) => join(corpus, file));

/** A document whose name no other text holds, written often enough to be its cluster's most frequent name. */
const marker = 'Qzvortlexq';
const markerDocument: InputDocument = {
  title: `${marker} Trust`,
  text: `${marker} Trust\nThe ${marker} Trust bought the Ferry Inn in 1971. ${marker} Trust volunteers restored the Kester Weir Bridge, and the ${marker} Trust archive holds the Ferry Inn ledger. Ada Brimwell founded the ${marker} Trust.`,
  source: 'test:marker',
};

const keywordPurposes = new Set(['autokg-extract', 'autokg-refine', 'autokg-refine-all', 'autokg-final']);

function scriptedModel(): ScriptedLanguageModel {
  return createScriptedLanguageModel({ responses: [{ match: () => true, reply: (request) => sampleLlmReply(request) }] });
}

/** The keyword calls the model received since `from`, by purpose. */
function keywordCalls(llm: ScriptedLanguageModel, from: number): { all: ChatRequest[]; byPurpose: Map<string, number> } {
  const all = llm.calls.slice(from).filter((call) => keywordPurposes.has(call.purpose ?? ''));
  const byPurpose = new Map<string, number>();
  for (const call of all) byPurpose.set(call.purpose ?? '', (byPurpose.get(call.purpose ?? '') ?? 0) + 1);
  return { all, byPurpose };
}

async function stateOf(kgrag: Kgrag): Promise<KeywordClusterState> {
  const state = await readKeywordClusterState(kgrag.store);
  assert.ok(state, 'the keywords step stored its clusters');
  return state;
}

/** Per clustering, the clusters whose stored keywords differ between two states. */
function changedClusters(before: KeywordClusterState, after: KeywordClusterState, part: 'named' | 'tfidf'): number[][] {
  return before.clusterings.map((clustering, index) => {
    const then = part === 'named' ? clustering.named?.map((entry) => entry.keywords) : clustering.tfidf;
    const now = part === 'named' ? after.clusterings[index]?.named?.map((entry) => entry.keywords) : after.clusterings[index]?.tfidf;
    return (then ?? []).flatMap((keywords, cluster) => (JSON.stringify(keywords) === JSON.stringify(now?.[cluster]) ? [] : [cluster]));
  });
}

/** Where the marker still is: keywords, extractions, or the stored state. */
async function markerPlaces(kgrag: Kgrag): Promise<string[]> {
  const places: string[] = [];
  const has = (value: unknown): boolean => JSON.stringify(value).includes(marker);
  if ((await kgrag.store.table('keywords').all()).some(has)) places.push('keywords');
  if ((await kgrag.store.table('extractions').all()).some(has)) places.push('extractions');
  const blob = await kgrag.store.getBlob(keywordClusterStateKey);
  if (blob !== undefined && new TextDecoder().decode(blob).includes(marker)) places.push('state');
  if (has(decodePhraseTable(await kgrag.store.getBlob(phraseTableKey))?.surfaces ?? [])) places.push('phrase table');
  return places;
}

describe('AutoKG keywords after a small change of the corpus', { timeout: 300_000 }, () => {
  const folders: string[] = [];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  const open = async (mode: 'fast' | 'standard', llm?: ScriptedLanguageModel, autokg: Record<string, unknown> = {}): Promise<Kgrag> => {
    const folder = mkdtempSync(join(tmpdir(), 'kgrag-autokg-incremental-'));
    folders.push(folder);
    return createKgrag({ workspace: folder, env: {}, ...(llm ? { llm } : {}), config: { index: { mode }, pipeline: { methods: ['autokg'] }, methods: { autokg: autokg } } });
  };

  it('standard mode: adding a document names again only the cluster it joined in each clustering; deleting it names that cluster again, and its keyword is gone', async () => {
    // A model without a response cache, so every call counted is a call the step made.
    const llm = scriptedModel();
    const kgrag = await open('standard', llm);
    try {
      await kgrag.index(files);
      assert.equal(keywordCalls(llm, 0).all.length, 2 * (15 * 2 + 1) + 3, 'a full build asks for every cluster');
      const built = await stateOf(kgrag);
      assert.equal(built.changedChunks, 0);

      let from = llm.calls.length;
      const added = await kgrag.index({ paths: [], documents: [markerDocument] });
      const counts = added.counts.keywords as Record<string, number>;
      assert.equal(counts.reclustered, 0);
      assert.equal(counts.addedChunks, 1);
      assert.equal(counts.renamedClusters, 2, 'the new chunk joined one cluster of each clustering');
      const onAdd = keywordCalls(llm, from);
      // One extraction and refinement per changed cluster; the two clusterings' lists changed, so each is refined
      // again, and so did the united list, so the three final passes run again: 9 calls instead of 65.
      assert.deepEqual(Object.fromEntries(onAdd.byPurpose), { 'autokg-extract': 2, 'autokg-refine': 2, 'autokg-refine-all': 2, 'autokg-final': 3 });
      assert.equal(counts.llmCalls, onAdd.all.length);
      const [markerChunk] = (await kgrag.store.table('chunks').all()).filter((chunk) => chunk.text.includes(marker));
      assert.ok(markerChunk);
      for (const call of onAdd.all.filter((entry) => entry.purpose === 'autokg-extract')) {
        assert.ok(call.messages[0]?.content.includes(markerChunk.text), 'the renamed cluster shows the new chunk');
        assert.ok(call.sources?.includes(sha256(markerChunk.text)), 'and names it among its sources');
      }
      const withMarker = await stateOf(kgrag);
      assert.deepEqual(
        changedClusters(built, withMarker, 'named').map((clusters) => clusters.length <= 1),
        [true, true],
        'every other cluster keeps its keywords',
      );
      assert.ok(withMarker.chunkIds.includes(markerChunk.id));
      assert.deepEqual(await markerPlaces(kgrag), ['keywords', 'extractions', 'state'], 'the marker became a keyword');

      from = llm.calls.length;
      const removed = await kgrag.delete(['test:marker']);
      assert.equal(removed.deleted.length, 1);
      const onDelete = keywordCalls(llm, from);
      const deleteCounts = (await kgrag.store.table('runs').all()).find((run) => run.step === 'keywords')?.counts as Record<string, number>;
      assert.equal(deleteCounts.removedChunks, 1);
      assert.equal(deleteCounts.renamedClusters, 2);
      assert.deepEqual(Object.fromEntries(onDelete.byPurpose), { 'autokg-extract': 2, 'autokg-refine': 2, 'autokg-refine-all': 2, 'autokg-final': 3 }, 'a deletion names again only the clusters it changed');
      const afterDelete = await stateOf(kgrag);
      assert.ok(!afterDelete.chunkIds.includes(markerChunk.id), 'the deleted chunk left the stored clustering');
      assert.equal(afterDelete.changedChunks, 2);
      assert.deepEqual(await markerPlaces(kgrag), [], 'nothing of the deleted document is left in the keywords, the replies or the state');
    } finally {
      await kgrag.close();
    }
  });

  it('standard mode: a change past reclusterShare clusters from scratch and gives the fresh build\'s keywords', async () => {
    const split = 28; // 7 new documents of 28: 25 % > 20 %.
    const llm = scriptedModel();
    const incremental = await open('standard', llm);
    const fresh = await open('standard', scriptedModel());
    try {
      await incremental.index(files.slice(0, split));
      const from = llm.calls.length;
      const summary = await incremental.index(files.slice(split));
      assert.equal((summary.counts.keywords as Record<string, number>).reclustered, 1);
      assert.equal(keywordCalls(llm, from).all.length, 2 * (15 * 2 + 1) + 3);
      await fresh.index(files);
      const expected = await indexSnapshot(fresh);
      const actual = await indexSnapshot(incremental);
      for (const key of ['keywords', 'keywordChunks', 'keywordEdges', 'vectors:keywords', `blob:${keywordClusterStateKey}`]) assert.deepEqual(actual[key], expected[key], key);
    } finally {
      await incremental.close();
      await fresh.close();
    }
  });

  it('standard mode: reclusterShare 0 clusters from scratch on every change', async () => {
    const llm = scriptedModel();
    const kgrag = await open('standard', llm, { reclusterShare: 0 });
    try {
      await kgrag.index(files.slice(0, -1));
      const summary = await kgrag.index(files.slice(-1));
      assert.equal((summary.counts.keywords as Record<string, number>).reclustered, 1);
    } finally {
      await kgrag.close();
    }
  });

  it('fast mode: adding a document keeps every unchanged cluster\'s keywords and parses only the new chunk; deleting it leaves none of it', async () => {
    const kgrag = await open('fast');
    try {
      await kgrag.index(files);
      const built = await stateOf(kgrag);
      const added = await kgrag.index({ paths: [], documents: [markerDocument] });
      const counts = added.counts.keywords as Record<string, number>;
      assert.equal(counts.reclustered, 0);
      assert.equal(counts.renamedClusters, 2);
      assert.equal(counts.parsedChunks, 1, 'the noun phrases of the other chunks were stored by the build');
      assert.equal(counts.phraseChunksRead, 1, 'the other chunks\' phrases come from the stored phrase table');
      const withMarker = await stateOf(kgrag);
      const [markerChunk] = (await kgrag.store.table('chunks').all()).filter((chunk) => chunk.text.includes(marker));
      assert.ok(markerChunk);
      // Only the cluster the new chunk joined may change its keywords, in each clustering.
      withMarker.clusterings.forEach((clustering, index) => {
        const joined = clustering.assignments[withMarker.chunkIds.indexOf(markerChunk.id)];
        const changed = changedClusters(built, withMarker, 'tfidf')[index] ?? [];
        assert.ok(changed.every((cluster) => cluster === joined), `clustering ${clustering.method}: clusters ${changed.join(', ')} changed, the new chunk joined ${joined}`);
        // The other chunks keep their clusters.
        built.chunkIds.forEach((id, row) => assert.equal(clustering.assignments[withMarker.chunkIds.indexOf(id)], built.clusterings[index]?.assignments[row]));
      });
      // The table holds the state's keywords; an update writes only the rows that changed, so new ones come last.
      assert.deepEqual((await kgrag.store.table('keywords').all()).map((keyword) => keyword.text).sort(), [...withMarker.keywords].sort());
      assert.deepEqual(await markerPlaces(kgrag), ['extractions', 'phrase table'], 'the new chunk\'s noun phrases are stored');
      // The table updated row by row is the one read afresh from every chunk's extraction, bytes included.
      const textsOf = async (ids: readonly string[]): Promise<Map<string, string>> => new Map((await kgrag.store.table('chunks').get(ids)).map((chunk) => [chunk.id, chunk.text]));
      const fresh = await chunkNounPhrases(kgrag.store, withMarker.chunkIds, textsOf);
      assert.equal(fresh.readChunks, withMarker.chunkIds.length);
      assert.ok(Buffer.from((await kgrag.store.getBlob(phraseTableKey)) ?? []).equals(Buffer.from(encodePhraseTable(fresh.table))));

      await kgrag.delete(['test:marker']);
      const afterDelete = await stateOf(kgrag);
      assert.ok(!afterDelete.chunkIds.includes(markerChunk.id));
      assert.deepEqual(await markerPlaces(kgrag), []);
      assert.equal((await kgrag.store.table('extractions').all()).filter((record) => record.chunkId === markerChunk.id).length, 0, 'its noun phrases are deleted');
    } finally {
      await kgrag.close();
    }
  });
});
