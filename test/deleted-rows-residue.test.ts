import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sha256 } from '../src/core/ids.js';
import type { ChunkRecord, DocumentRecord, EntityRecord, ExtractionRecord } from '../src/core/types.js';
import { forgetCachedCalls } from '../src/store/forget-cached-calls.js';
import { openSqliteWorkspaceStorage } from '../src/store/sqlite/sqlite-workspace-storage.js';
import { createStoreLlmCache } from '../src/store/store-llm-cache.js';
import type { Store } from '../src/store/store.js';

/*
 * Issue 18: a deleted document must not survive in the workspace's files. Rows carrying a unique marker (a document,
 * its chunks in the full-text index, an entity, an extraction, a dense and a sparse vector, a blob, index-time LLM
 * cache entries tagged with its chunk, a query-time cache entry) are written and published, then deleted through the
 * store API and published again; every byte of every file left in the folder is searched for the marker and for the
 * vectors' floats. With secure delete off the same search must find them, which shows it can fail.
 */

const marker = 'Quillfeatherzq';
/**
 * What is searched for: the marker lowercased, as the full-text index stores its term, without its first letters,
 * which the index may share with the term before it and store once (prefix compression).
 */
const needle = Buffer.from(marker.slice(4).toLowerCase(), 'latin1');
const denseMarker = Float32Array.from([0.3141592, 0.2718281, 0.1618033, 0.5772156, 0.6931471, 0.1414213, 0.1732050, 0.2236067]);
const sparseMarkerValues = [0.6180339, 0.4142135, 0.7320508];

const keptDocument: DocumentRecord = { id: 'd-kept', title: 'Harbour notes', source: 'kept.md', text: 'The harbour wall was rebuilt.', metadata: {}, contentHash: 'h-kept', createdAt: '2026-01-01T00:00:00.000Z' };
const goneDocument: DocumentRecord = {
  id: 'd-gone',
  title: `${marker} diary`,
  source: 'gone.md',
  text: `Private entry: ${marker} met the ferryman at dawn.`,
  metadata: { author: marker },
  contentHash: 'h-gone',
  createdAt: '2026-01-01T00:00:00.000Z',
};

function fillerChunks(): ChunkRecord[] {
  return Array.from({ length: 120 }, (_, index) => ({
    id: `c-kept-${index}`,
    documentId: keptDocument.id,
    ordinal: index,
    text: `harbour wall stone ${index} tide ${index % 7} boats moored along the pier`,
    nTokens: 12,
    start: index * 60,
    end: index * 60 + 59,
  }));
}

const goneChunk: ChunkRecord = { id: 'c-gone', documentId: goneDocument.id, ordinal: 0, text: goneDocument.text, nTokens: 9, start: 0, end: goneDocument.text.length };
const goneEntity: EntityRecord = { id: 'e-gone', title: marker, type: 'person', description: `${marker} keeps a private diary`, aliases: [`Mr ${marker}`], frequency: 1, degree: 0, chunkIds: [goneChunk.id] };
const goneExtraction: ExtractionRecord = { id: 'x-gone', chunkId: goneChunk.id, extractor: 'llm-graph', model: 'm', promptHash: 'p', raw: `["(${marker})"]`, parsed: { name: marker } };

function sparse(values: ReadonlyArray<[number, number]>): Float32Array {
  const vector = new Float32Array(64);
  for (const [coordinate, value] of values) vector[coordinate] = value;
  return vector;
}

const reply = (text: string) => ({ text, usage: { inputTokens: 5, outputTokens: 5 }, finishReason: 'stop' as const, modelId: 'm' });

async function writeEverything(store: Store): Promise<void> {
  await store.table('documents').upsert([keptDocument, goneDocument]);
  await store.table('chunks').upsert([...fillerChunks(), goneChunk]);
  await store.table('entities').upsert([goneEntity, { id: 'e-kept', title: 'Harbour Wall', type: 'place', description: 'a stone wall', aliases: [], frequency: 3, degree: 0, chunkIds: ['c-kept-0'] }]);
  await store.table('extractions').upsert([goneExtraction]);
  const dense = Array.from({ length: 40 }, (_, index) => ({ id: `e-kept-${index}`, vector: Float32Array.from({ length: 8 }, (_, d) => 0.5 + ((index + d) % 5) / 10) }));
  await store.vectors('entities').upsert([...dense, { id: goneEntity.id, vector: denseMarker }], 'test:8');
  const sparseRows = fillerChunks().map((chunk, index) => ({ id: chunk.id, vector: sparse([[index % 64, 0.5], [(index * 7) % 64, 0.25]]) }));
  await store.vectors('chunks').upsert(
    [...sparseRows, { id: goneChunk.id, vector: sparse(sparseMarkerValues.map((value, index): [number, number] => [index * 3, value])) }],
    'test:64',
  );
  await store.setBlob('graph', Buffer.from(`nodes: harbour, ${marker}, pier`));
  const cache = createStoreLlmCache(store);
  await cache.set('extract-gone', reply(`("entity"<|>${marker}<|>person)`), [sha256(goneChunk.text)]);
  await cache.set('summary-gone', reply(`${marker} is a diarist`), [sha256(goneChunk.text), sha256('c-kept-0 text')]);
  await cache.set('extract-kept', reply('("entity"<|>HARBOUR WALL<|>place)'), [sha256('c-kept-0 text')]);
}

async function deleteTheDocument(store: Store): Promise<number> {
  await store.table('documents').deleteWhere('id', [goneDocument.id]);
  await store.table('chunks').deleteWhere('documentId', [goneDocument.id]);
  await store.table('entities').deleteWhere('id', [goneEntity.id]);
  await store.table('extractions').deleteWhere('chunkId', [goneChunk.id]);
  await store.vectors('entities').delete([goneEntity.id]);
  await store.vectors('chunks').delete([goneChunk.id]);
  await store.setBlob('graph', Buffer.from('nodes: harbour, pier'));
  return forgetCachedCalls(store, [sha256(goneChunk.text)]);
}

/** Where in the folder's files the deleted rows left bytes: `file: what` per finding. */
function residue(folder: string): string[] {
  const found: string[] = [];
  const floatBytes = (values: ArrayLike<number>): Buffer => Buffer.from(Float32Array.from(values).buffer);
  for (const name of readdirSync(folder)) {
    const bytes = readFileSync(join(folder, name));
    if (Buffer.from(bytes.toString('latin1').toLowerCase(), 'latin1').includes(needle)) found.push(`${name}: marker text`);
    if (bytes.includes(floatBytes(denseMarker.subarray(0, 4)))) found.push(`${name}: dense vector`);
    for (const value of sparseMarkerValues) if (bytes.includes(floatBytes([value]))) found.push(`${name}: sparse vector value ${value}`);
  }
  return found;
}

async function writeThenDelete(folder: string, secureDelete: boolean): Promise<{ forgotten: number; files: string[]; published: string[] }> {
  const path = join(folder, 'kgrag.db');
  const storage = openSqliteWorkspaceStorage(path, { secureDelete });
  let forgotten = 0;
  let published: string[] = [];
  try {
    const first = await storage.beginWrite({ command: 'test: index' });
    await writeEverything(first.store);
    await first.publish();
    await first.end();
    await storage.queryCache.set('question', reply(`An answer quoting ${marker}.`));
    await storage.queryCache.set('other question', reply('The harbour wall.'));
    published = residue(folder);

    const second = await storage.beginWrite({ command: 'test: delete' });
    forgotten = await deleteTheDocument(second.store);
    await second.publish();
    await second.end();
    assert.equal(await storage.clearQueryCache(), 2);
    assert.equal(await storage.queryCache.get('question'), undefined);

    // What was kept is still there and still found.
    const snapshot = await storage.snapshot();
    assert.ok(snapshot);
    try {
      assert.deepEqual((await snapshot.store.searchText('chunks', ['harbour'], 200)).length, 120);
      assert.deepEqual(await snapshot.store.searchText('chunks', [marker.toLowerCase(), 'ferryman'], 5), []);
      assert.deepEqual(await snapshot.store.searchText('entities', [marker.toLowerCase()], 5), []);
      assert.equal(await snapshot.store.vectors('entities').count(), 40);
      assert.equal(await snapshot.store.vectors('chunks').count(), 120);
      assert.deepEqual((await snapshot.store.table('llmCache').all()).map((row) => row.key), ['extract-kept']);
    } finally {
      snapshot.release();
    }
  } finally {
    await storage.close();
  }
  return { forgotten, files: readdirSync(folder).sort(), published };
}

describe('nothing of deleted rows survives in the workspace files', () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-residue-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('finds no marker, no vector bytes, no cache entry of the deleted document in any file of the folder', async () => {
    const folder = join(directory, 'secure');
    const { forgotten, files, published } = await writeThenDelete(folder, true);
    // The search finds each kind of trace while the document is there.
    assert.deepEqual(published.sort(), [
      'kgrag.db: dense vector',
      'kgrag.db: marker text',
      ...sparseMarkerValues.map((value) => `kgrag.db: sparse vector value ${value}`),
      'kgrag.db-state: marker text',
    ].sort());
    assert.equal(forgotten, 2, 'the two cache entries tagged with the deleted chunk');
    assert.deepEqual(files, ['kgrag.db', 'kgrag.db-state'], 'no draft, log or journal is left beside the index');
    assert.deepEqual(residue(folder), []);
  });

  it('with secure delete off, the same search finds what the rows left (the test can fail)', async () => {
    const folder = join(directory, 'insecure');
    await writeThenDelete(folder, false);
    const found = residue(folder);
    assert.ok(found.some((finding) => finding.startsWith('kgrag.db: marker text')), `found: ${found.join('; ')}`);
  });
});
