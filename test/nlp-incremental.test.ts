// Issue 38: fast mode's noun-phrase graph between refreshes keeps the figures fitted at the last refresh, so an update
// changes only the rows of the phrases a change mentions; past index.refreshShare it refits and equals a fresh build.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { RelationRecord } from '../src/core/types.js';
import { loadSampleDataset } from '../src/eval/datasets/load-sample-dataset.js';
import { phraseEntityId } from '../src/extract/nlp-graph/build-noun-graph.js';
import type { PhraseExtraction } from '../src/extract/nlp-graph/noun-phrase-extractor.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { nounGraphStateKey } from '../src/pipeline/steps/nlp-extract-step.js';

const folders: string[] = [];
const open = async (refreshShare: number): Promise<Kgrag> => {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-nlp-incremental-'));
  folders.push(folder);
  return createKgrag({ workspace: folder, env: {}, config: { index: { mode: 'fast', refreshShare }, pipeline: { methods: ['local'] } } });
};

/** A document about phrases the sample corpus has (the Ferry Inn, the Kester) and some it has not. */
const visitor: InputDocument = {
  title: 'Ferry Inn ledger',
  text: 'Ferry Inn ledger\nThe ledger of the Ferry Inn records a dinner for the Kester Flood Boat Crew in 1969 and a meeting of the Kestermouth Heritage Society in 1988. The Quarry Lane Choir sang at the Ferry Inn that winter.',
  source: 'test:visitor',
};

type Rows = Map<string, Record<string, unknown>>;

async function graphRows(kgrag: Kgrag, withHid: boolean): Promise<{ entities: Rows; relations: Rows }> {
  const keyed = (rows: ReadonlyArray<{ id: string; hid?: number }>): Rows =>
    new Map(rows.map((row) => [row.id, withHid ? { ...row } : Object.fromEntries(Object.entries(row).filter(([field]) => field !== 'hid'))]));
  return { entities: keyed(await kgrag.store.table('entities').all()), relations: keyed(await kgrag.store.table('relations').all()) };
}

/** Entity ids of the phrases the chunks of `kgrag` that `before` lacks mention. */
async function phrasesOfNewChunks(kgrag: Kgrag, before: ReadonlySet<string>): Promise<Set<string>> {
  const added = (await kgrag.store.table('chunks').pick(['id'])).map((chunk) => chunk.id).filter((id) => !before.has(id));
  assert.ok(added.length > 0);
  const ids = new Set<string>();
  for (const record of await kgrag.store.table('extractions').where('chunkId', added)) {
    for (const mention of (record.parsed as PhraseExtraction).mentions) ids.add(phraseEntityId(mention.key));
  }
  return ids;
}

const chunkIdsOf = async (kgrag: Kgrag): Promise<Set<string>> => new Set((await kgrag.store.table('chunks').pick(['id'])).map((chunk) => chunk.id));
const lastCounts = async (kgrag: Kgrag): Promise<Record<string, number>> => (await kgrag.store.table('runs').get(['nlp-extract']))[0]?.counts ?? {};

describe('the noun-phrase graph between refreshes (fast mode)', { timeout: 300_000 }, () => {
  let documents: InputDocument[];

  before(async () => {
    const dataset = await loadSampleDataset();
    documents = dataset.passages.map((passage, index) => ({ title: passage.title, text: `${passage.title}\n${passage.text}`, source: `sample#${index}` }));
  });

  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('leaves the rows of relations whose ends an added document does not mention untouched; a refresh re-weighs them', async () => {
    const kept = await open(0.5);
    const refreshed = await open(0);
    for (const kgrag of [kept, refreshed]) await kgrag.index(documents);
    const base = await graphRows(kept, true);
    assert.deepEqual(await graphRows(refreshed, true), base, 'both start from the same fresh build');
    const chunksBefore = await chunkIdsOf(kept);
    for (const kgrag of [kept, refreshed]) await kgrag.index([visitor]);
    assert.equal((await lastCounts(kept))['refitted'], 0);
    assert.equal((await lastCounts(refreshed))['refitted'], 1);
    const mentioned = await phrasesOfNewChunks(kept, chunksBefore);
    const far = [...base.relations.values()].filter((relation) => !mentioned.has(relation['source'] as string) && !mentioned.has(relation['target'] as string));
    assert.ok(far.length > 50, `${far.length} relations away from the document`);
    const between = await graphRows(kept, true);
    for (const relation of far) assert.deepEqual(between.relations.get(relation['id'] as string), relation, `relation ${String(relation['id'])} was rewritten`);
    const counts = await lastCounts(kept);
    assert.ok((counts['relationsWritten'] ?? 0) + (counts['relationsRemoved'] ?? 0) < base.relations.size / 4, `wrote ${counts['relationsWritten']} of ${base.relations.size} relations`);
    const afterRefresh = await graphRows(refreshed, true);
    const moved = far.filter((relation) => (afterRefresh.relations.get(relation['id'] as string) as RelationRecord | undefined)?.weight !== relation['weight']);
    assert.ok(moved.length > far.length / 2, `a refresh re-weighs them (${moved.length} of ${far.length} moved)`);
    for (const kgrag of [kept, refreshed]) await kgrag.close();
  });

  it('deleting the added document between refreshes brings back the rows it touched', async () => {
    const kgrag = await open(0.5);
    await kgrag.index(documents);
    const base = await graphRows(kgrag, false);
    await kgrag.index([visitor]);
    assert.equal((await lastCounts(kgrag))['refitted'], 0);
    const grown = await graphRows(kgrag, false);
    assert.notDeepEqual(grown, base, 'the document changed the graph');
    await kgrag.delete([visitor.source as string]);
    assert.equal((await lastCounts(kgrag))['refitted'], 0);
    assert.deepEqual(await graphRows(kgrag, false), base);
    await kgrag.close();
  });

  it('refits past the share and then equals a fresh build of the same documents, rows and stored state', async () => {
    const fresh = await open(0.1);
    await fresh.index([...documents, visitor]);
    const kgrag = await open(0.1);
    const split = documents.length - 6;
    await kgrag.index(documents.slice(0, split));
    await kgrag.index(documents.slice(split, split + 1));
    assert.equal((await lastCounts(kgrag))['refitted'], 0, 'one document is within the share');
    await kgrag.index([...documents.slice(split + 1), visitor]);
    assert.equal((await lastCounts(kgrag))['refitted'], 1, 'six more pass it');
    assert.deepEqual(await graphRows(kgrag, true), await graphRows(fresh, true));
    const state = async (index: Kgrag): Promise<string> => createHash('sha256').update((await index.store.getBlob(nounGraphStateKey)) ?? '').digest('hex');
    assert.equal(await state(kgrag), await state(fresh));
    assert.equal((await kgrag.store.table('runs').get(['nlp-extract']))[0]?.outputVersion, (await fresh.store.table('runs').get(['nlp-extract']))[0]?.outputVersion);
    for (const index of [fresh, kgrag]) await index.close();
  });
});
