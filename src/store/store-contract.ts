import assert from 'node:assert/strict';
import { KgragError } from '../core/errors.js';
import { bm25Stopwords } from '../text/stopwords.js';
import { wordTokens } from '../text/word-tokens.js';
import { forgetCachedCalls } from './forget-cached-calls.js';
import { replaceVectors } from './replace-vectors.js';
import { tableNames, type BuiltInTableName, type TableName, type TableRows } from './schema.js';
import { createStoreLlmCache } from './store-llm-cache.js';
import type { RowAccess, Store } from './store.js';
import type { PluginTables, StoreExtensions } from './store-extensions.js';

/** How the contract suite obtains stores of the backend under test. */
export interface StoreContractOptions {
  /** A fresh, empty store, opened with `extensions` (plugin tables) when given. */
  open(extensions?: StoreExtensions): Promise<Store>;
  /** Reopens the store last returned by `open` after it was closed, with the same extensions (omit for in-memory backends). */
  reopen?(extensions?: StoreExtensions): Promise<Store>;
}

/** One case of the contract: a name and a test that rejects when the backend breaks the contract. */
export interface StoreContractCase {
  name: string;
  run(): Promise<void>;
}

/** Two sample rows of every table, exercising json, nullable and numeric columns. */
export const sampleRows: { [T in BuiltInTableName]: [TableRows[T], TableRows[T]] } = {
  documents: [
    { id: 'd1', title: 'Alpha', source: 'docs/a.md', text: 'Alpha text', metadata: { tags: ['x'], n: 1 }, contentHash: 'h1', createdAt: '2026-01-01T00:00:00.000Z' },
    { id: 'd2', title: 'Beta "quoted"', source: 'docs/b.md', text: 'Beta text', metadata: {}, contentHash: 'h2', createdAt: '2026-01-02T00:00:00.000Z' },
  ],
  chunks: [
    { id: 'c1', documentId: 'd1', ordinal: 0, text: 'The river floods in spring', nTokens: 5, start: 0, end: 26 },
    { id: 'c2', documentId: 'd2', ordinal: 0, text: 'A bridge over the quiet river', nTokens: 6, start: 0, end: 29 },
  ],
  entities: [
    { id: 'e1', title: 'Weir Bridge', type: 'geo', description: 'A stone bridge', aliases: ['the weir'], frequency: 2, degree: 1, chunkIds: ['c1'] },
    { id: 'e2', title: 'Ida Halvard', type: 'person', description: 'An engineer', aliases: [], frequency: 1, degree: 1, chunkIds: ['c1', 'c2'] },
  ],
  relations: [
    { id: 'r1', source: 'e1', target: 'e2', description: 'designed by', keywords: ['design'], weight: 2.5, combinedDegree: 2, chunkIds: ['c1'] },
    { id: 'r2', source: 'e2', target: 'e1', description: 'maintains', keywords: [], weight: 1, combinedDegree: 2, chunkIds: [] },
  ],
  triples: [
    { id: 't1', subject: 'Ida Halvard', predicate: 'designed', object: 'Weir Bridge', chunkId: 'c1' },
    { id: 't2', subject: 'Weir Bridge', predicate: 'crosses', object: 'river', chunkId: 'c2' },
  ],
  claims: [
    { id: 'k1', subject: 'e1', object: null, type: 'repair', status: 'TRUE', startDate: '1990-01-01', endDate: null, description: 'Repaired', sourceText: 'was repaired', chunkId: 'c1' },
    { id: 'k2', subject: 'e2', object: 'e1', type: 'design', status: 'SUSPECTED', startDate: null, endDate: null, description: 'Designed', sourceText: 'designed', chunkId: 'c2' },
  ],
  communities: [
    { id: 'm1', level: 0, parent: null, children: ['m2'], title: 'Community 1', entityIds: ['e1', 'e2'], relationIds: ['r1'], chunkIds: ['c1'], size: 2 },
    { id: 'm2', level: 1, parent: 'm1', children: [], title: 'Community 2', entityIds: ['e1'], relationIds: [], chunkIds: [], size: 1 },
  ],
  reports: [
    { communityId: 'm1', level: 0, title: 'Bridges', summary: 'About bridges', findings: [{ summary: 'f', explanation: 'e' }], rating: 7.5, ratingExplanation: 'important', fullContent: '# Bridges', generatedBy: 'extractive', error: null },
    { communityId: 'm2', level: 1, title: 'Weir', summary: 'About the weir', findings: [], rating: 1, ratingExplanation: '', fullContent: '# Weir', generatedBy: 'llm', error: 'rate limited' },
  ],
  keywords: [
    { id: 'w1', text: 'flooding' },
    { id: 'w2', text: 'bridges' },
  ],
  keywordChunks: [
    { keywordId: 'w1', chunkId: 'c1', score: 0.9 },
    { keywordId: 'w2', chunkId: 'c2', score: 0.6 },
  ],
  keywordEdges: [
    { a: 'w1', b: 'w2', weight: 3 },
    { a: 'w2', b: 'w1', weight: 3 },
  ],
  extractions: [
    { id: 'x1', chunkId: 'c1', extractor: 'llm-graph', model: 'm', promptHash: 'p', raw: '{"a":1}', parsed: { a: 1 } },
    { id: 'x2', chunkId: 'c2', extractor: 'llm-graph', model: 'm', promptHash: 'p', raw: 'bad', parsed: null },
  ],
  llmCache: [
    { key: 'k1', model: 'm', response: { text: 'hi' }, usage: { inputTokens: 3, outputTokens: 1 }, createdAt: '2026-01-01T00:00:00.000Z' },
    { key: 'k2', model: 'm', response: { text: 'yo' }, usage: { inputTokens: 4, outputTokens: 2 }, createdAt: '2026-01-01T00:00:00.000Z' },
  ],
  llmCacheSources: [
    { key: 'k1', source: 'a3f1' },
    { key: 'k1', source: 'b702' },
  ],
  externalIds: [
    { kind: 'entity', externalId: '9a062709-56dd-4bf2-8b41-926124b7a6f7', id: 'e1', system: 'graphrag', record: { human_readable_id: 0 } },
    { kind: 'relation', externalId: '9af066c8-031b-4c52-b93b-b37763f6f0f7', id: 'r1', system: 'graphrag', record: { source: 'A', target: 'B', weight: 2 } },
  ],
  runs: [
    { step: 'load', status: 'done', fingerprint: 'f', outputVersion: 'v', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z', durationMs: 1000, counts: { documents: 2 }, usage: { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, byModel: {} }, error: null },
    { step: 'chunk', status: 'failed', fingerprint: 'g', outputVersion: '', startedAt: null, finishedAt: null, durationMs: 0, counts: {}, usage: { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, byModel: {} }, error: 'boom' },
  ],
};

function withoutHid<R>(rows: R[]): R[] {
  return rows.map((row) => {
    const copy = { ...row } as Record<string, unknown>;
    delete copy.hid;
    return copy as R;
  });
}

/** Rows of a plugin's table as the contract declares them (a plugin would name them in `TableRows` instead). */
interface PluginScoreRow {
  id: string;
  score: number;
  tags: string[];
  note: string | null;
}
interface PluginPairRow {
  a: string;
  b: string;
}

/** Two tables a plugin could declare: one with `hid`, json, a nullable column and an index; one keyed by two columns. */
const pluginTables: PluginTables = {
  contractScores: {
    sqlName: 'contract_scores',
    key: ['id'],
    hid: true,
    columns: { id: { type: 'text' }, score: { type: 'real' }, tags: { type: 'json' }, note: { type: 'text', nullable: true } },
    indexes: [['score']],
  },
  contractPairs: { sqlName: 'contract_pairs', key: ['a', 'b'], hid: false, columns: { a: { type: 'text' }, b: { type: 'text' } } },
};

const pluginScoreRows: PluginScoreRow[] = [
  { id: 'p1', score: 0.75, tags: ['a', 'b'], note: null },
  { id: 'p2', score: 0.25, tags: [], note: 'kept' },
];

function pluginTable<Row>(store: Store, name: string): RowAccess<Row> {
  return store.table(name as TableName) as unknown as RowAccess<Row>;
}

function unit(values: number[]): Float32Array {
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
  return new Float32Array(values.map((value) => value / norm));
}

/**
 * The behaviour every `Store` backend must have (drizzle's shared dialect suite, graphology's `specs(Graph)`), as
 * cases any test runner can register: give it a way to open fresh stores and run each case as a test (node:test:
 * `describeStoreContract`).
 */
export function storeContractCases(options: StoreContractOptions): StoreContractCase[] {
  const cases: StoreContractCase[] = [];
  const test = (name: string, run: () => Promise<void>): void => {
    cases.push({ name, run });
  };
  const withStore = async (fn: (store: Store) => Promise<void>, extensions?: StoreExtensions): Promise<void> => {
    const store = await options.open(extensions);
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  };

  for (const name of tableNames) {
    test(`${name}: rows round-trip with every column`, () =>
      withStore(async (store) => {
        const table = store.table(name);
        await table.upsert(sampleRows[name]);
        assert.equal(await table.count(), 2);
        assert.deepEqual(withoutHid(await table.all()), sampleRows[name]);
      }));
  }

  test('upsert replaces by key, keeps hid and insertion order', () =>
    withStore(async (store) => {
      const chunks = store.table('chunks');
      await chunks.upsert(sampleRows.chunks);
      const before = await chunks.all();
      const first = sampleRows.chunks[0];
      await chunks.upsert([{ ...first, text: 'The river floods every spring' }]);
      const after = await chunks.all();
      assert.deepEqual(after.map((row) => row.id), ['c1', 'c2']);
      assert.equal(after[0]?.hid, before[0]?.hid);
      assert.equal(after[0]?.text, 'The river floods every spring');
      assert.ok((before[0]?.hid ?? 0) < (before[1]?.hid ?? 0));
    }));

  test('rows are numbered 1, 2, … in the order first given, the same from an empty table and into a filled one', () =>
    withStore(async (store) => {
      for (const name of ['chunks', 'relations'] as const) {
        const table = store.table(name);
        const [first, second] = sampleRows[name] as [TableRows[typeof name], TableRows[typeof name]];
        const hids = async (): Promise<Array<[string, number | undefined]>> => (await table.all()).map((row) => [row.id, row.hid]);
        await table.upsert([first]);
        await table.upsert([second, { ...first }]);
        assert.deepEqual(await hids(), [[first.id, 1], [second.id, 2]], name);
        await table.clear();
        await table.upsert([second, first]);
        assert.deepEqual(await hids(), [[second.id, 1], [first.id, 2]], `${name} after clear`);
      }
    }));

  test('get, where, deleteWhere, clear', () =>
    withStore(async (store) => {
      const chunks = store.table('chunks');
      await chunks.upsert(sampleRows.chunks);
      assert.deepEqual((await chunks.get(['c2', 'missing'])).map((row) => row.id), ['c2']);
      assert.deepEqual((await chunks.where('documentId', ['d1'])).map((row) => row.id), ['c1']);
      assert.deepEqual(await chunks.where('documentId', []), []);
      const picked = await chunks.pick(['id', 'nTokens']);
      assert.deepEqual(withoutHid(picked), [{ id: 'c1', nTokens: 5 }, { id: 'c2', nTokens: 6 }]);
      assert.ok(typeof picked[0]?.hid === 'number');
      assert.deepEqual(withoutHid(await chunks.pick(['documentId'], { column: 'id', values: ['c2'] })), [{ documentId: 'd2' }]);
      assert.deepEqual(await chunks.pick(['id'], { column: 'id', values: [] }), []);
      assert.deepEqual(withoutHid(await chunks.pick(['id'], { column: ['id', 'documentId'], values: ['c2', 'd1'] })), [{ id: 'c1' }, { id: 'c2' }], 'a value in any of the columns');
      assert.deepEqual(await chunks.pick(['id'], { column: [], values: ['c2'] }), []);
      assert.equal(await chunks.deleteWhere('documentId', ['d1']), 1);
      assert.equal(await chunks.count(), 1);
      await chunks.clear();
      assert.equal(await chunks.count(), 0);
    }));

  test('composite keys upsert by the whole key', () =>
    withStore(async (store) => {
      const links = store.table('keywordChunks');
      await links.upsert(sampleRows.keywordChunks);
      await links.upsert([
        { keywordId: 'w1', chunkId: 'c1', score: 0.5 },
        { keywordId: 'w1', chunkId: 'c2', score: 0.3 },
      ]);
      const rows = await links.all();
      assert.equal(rows.length, 3);
      assert.equal(rows.find((row) => row.keywordId === 'w1' && row.chunkId === 'c1')?.score, 0.5);
      assert.equal(rows.find((row) => row.keywordId === 'w2')?.score, 0.6);
    }));

  test('a failed transaction writes nothing; a nested failure rolls back only its savepoint', () =>
    withStore(async (store) => {
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.table('documents').upsert(sampleRows.documents);
          throw new Error('crash inside the step');
        }),
        /crash inside the step/,
      );
      assert.equal(await store.table('documents').count(), 0);

      await store.transaction(async (tx) => {
        await tx.table('documents').upsert([sampleRows.documents[0]]);
        await assert.rejects(
          tx.transaction(async (inner) => {
            await inner.table('documents').upsert([sampleRows.documents[1]]);
            throw new Error('inner');
          }),
        );
      });
      assert.deepEqual((await store.table('documents').all()).map((row) => row.id), ['d1']);
    }));

  test('BM25 text search ranks, follows updates and deletes, and tolerates quotes', () =>
    withStore(async (store) => {
      const chunks = store.table('chunks');
      await chunks.upsert([
        { id: 'a', documentId: 'd', ordinal: 0, text: 'flood flood flood warnings along the river', nTokens: 7, start: 0, end: 1 },
        { id: 'b', documentId: 'd', ordinal: 1, text: 'the river is calm in summer and the town sleeps', nTokens: 10, start: 1, end: 2 },
        { id: 'c', documentId: 'd', ordinal: 2, text: 'a note about bakeries', nTokens: 4, start: 2, end: 3 },
      ]);
      const hits = await store.searchText('chunks', ['flood', 'river'], 10);
      assert.deepEqual(hits.map((hit) => hit.id), ['a', 'b']);
      assert.ok((hits[0]?.score ?? 0) > (hits[1]?.score ?? 0));
      assert.deepEqual(await store.searchText('chunks', ['say "hello'], 5), []);
      assert.deepEqual(await store.searchText('chunks', [], 5), []);
      await chunks.upsert([{ id: 'c', documentId: 'd', ordinal: 2, text: 'a note about floods and bakeries', nTokens: 6, start: 2, end: 3 }]);
      assert.deepEqual((await store.searchText('chunks', ['bakeries'], 5)).map((hit) => hit.id), ['c']);
      await chunks.deleteWhere('id', ['a']);
      assert.deepEqual((await store.searchText('chunks', ['flood'], 5)).map((hit) => hit.id), []);
      await store.table('entities').upsert(sampleRows.entities);
      assert.deepEqual((await store.searchText('entities', ['engineer'], 5)).map((hit) => hit.id), ['e2']);
    }));

  test('BM25 scores are FTS5 bm25(): k1 = 1.2, b = 0.75, lengths without stopwords, columns pooled, ties in insertion order', () =>
    withStore(async (store) => {
      // Lengths vary; "river" is in most rows (a non-positive idf counts as 1e-6); two rows are the same text.
      const texts = [
        'The river floods the river meadows in spring',
        'A quiet river under an old stone bridge',
        'River boats, river barges and river ferries',
        'Bakeries of the town open at dawn',
        'The mill by the river grinds flour for the bakeries',
        'An old stone bridge',
        'An old stone bridge',
        'Ferries cross the estuary where the River widens',
      ];
      await store.table('chunks').upsert(texts.map((text, ordinal) => ({ id: `c${ordinal}`, documentId: 'd', ordinal, text, nTokens: 1, start: ordinal, end: ordinal + 1 })));
      await store.table('entities').upsert([
        { id: 'e1', title: 'Stone Bridge', type: 'geo', description: 'A bridge of stone over the river', aliases: [], frequency: 1, degree: 1, chunkIds: [] },
        { id: 'e2', title: 'Ferry', type: 'thing', description: 'Crosses the estuary', aliases: [], frequency: 1, degree: 1, chunkIds: [] },
        { id: 'e3', title: 'Mill', type: 'geo', description: '', aliases: [], frequency: 1, degree: 1, chunkIds: [] },
      ]);
      const indexed = (text: string) => wordTokens(text).filter((token) => !bm25Stopwords.has(token));
      const expected = (documents: Array<{ id: string; tokens: string[] }>, terms: string[], k: number) => {
        const averageLength = documents.reduce((sum, document) => sum + document.tokens.length, 0) / documents.length;
        return documents
          .map((document) => {
            let score = 0;
            for (const term of terms) {
              const hits = documents.filter((other) => other.tokens.includes(term)).length;
              const frequency = document.tokens.filter((token) => token === term).length;
              const logarithm = Math.log((documents.length - hits + 0.5) / (hits + 0.5));
              const idf = logarithm <= 0 ? 1e-6 : logarithm;
              score += idf * ((frequency * (1.2 + 1)) / (frequency + 1.2 * (1 - 0.75 + (0.75 * document.tokens.length) / averageLength)));
            }
            return { id: document.id, score, matched: terms.some((term) => document.tokens.includes(term)) };
          })
          .filter((hit) => hit.matched)
          .sort((left, right) => right.score - left.score)
          .slice(0, k)
          .map(({ id, score }) => ({ id, score }));
      };
      const chunkDocuments = texts.map((text, ordinal) => ({ id: `c${ordinal}`, tokens: indexed(text) }));
      const entityDocuments = [
        { id: 'e1', tokens: [...indexed('Stone Bridge'), ...indexed('A bridge of stone over the river')] },
        { id: 'e2', tokens: [...indexed('Ferry'), ...indexed('Crosses the estuary')] },
        { id: 'e3', tokens: indexed('Mill') },
      ];
      const close = (actual: Array<{ id: string; score: number }>, wanted: Array<{ id: string; score: number }>) => {
        assert.deepEqual(actual.map((hit) => hit.id), wanted.map((hit) => hit.id));
        for (const [index, hit] of actual.entries()) {
          const target = wanted[index]?.score ?? Number.NaN;
          assert.ok(Math.abs(hit.score - target) <= 1e-6 * Math.abs(target), `${hit.id}: ${hit.score} vs ${target}`);
        }
      };
      for (const terms of [['river'], ['stone', 'bridge'], ['river', 'bakeries', 'ferries'], ['old', 'estuary', 'flour', 'dawn'], ['bridge']]) {
        close(await store.searchText('chunks', terms, 10), expected(chunkDocuments, terms, 10));
        close(await store.searchText('chunks', terms, 2), expected(chunkDocuments, terms, 2));
      }
      // Equal scores rank in insertion order.
      const ties = await store.searchText('chunks', ['bridge'], 10);
      assert.deepEqual(ties.map((hit) => hit.id), ['c5', 'c6', 'c1']);
      assert.equal(ties[0]?.score, ties[1]?.score);
      close(await store.searchText('entities', ['stone', 'estuary'], 5), expected(entityDocuments, ['stone', 'estuary'], 5));
      // Query words fold case and diacritics as the index does.
      close(await store.searchText('chunks', ['Bäkeries'], 5), expected(chunkDocuments, ['bakeries'], 5));
    }));

  test('the full-text index follows a clear, a refill and updates of other columns', () =>
    withStore(async (store) => {
      const entities = store.table('entities');
      await entities.upsert(sampleRows.entities);
      await entities.upsert([{ ...sampleRows.entities[0], degree: 9, frequency: 5 }]);
      assert.deepEqual((await store.searchText('entities', ['stone'], 5)).map((hit) => hit.id), ['e1']);
      await entities.clear();
      assert.deepEqual(await store.searchText('entities', ['stone', 'engineer'], 5), []);
      await entities.upsert([{ ...sampleRows.entities[1], description: 'A stone mason' }]);
      assert.deepEqual((await store.searchText('entities', ['stone'], 5)).map((hit) => hit.id), ['e2']);
      assert.deepEqual(await store.searchText('entities', ['engineer'], 5), []);
    }));

  test('LLM cache: replies tagged by their sources are forgotten by any of them', () =>
    withStore(async (store) => {
      const cache = createStoreLlmCache(store);
      const reply = (text: string) => ({ text, usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop' as const, modelId: 'm' });
      await cache.set('extract-1', reply('one'), ['h1']);
      await cache.set('summary', reply('both'), ['h1', 'h2', 'h1']);
      await cache.set('extract-2', reply('two'), ['h2']);
      await cache.set('untagged', reply('query'));
      await cache.addSources('extract-2', ['h3']);
      await cache.addSources('missing', ['h3']);
      assert.deepEqual(
        (await store.table('llmCacheSources').all()).map((row) => `${row.key}:${row.source}`).sort(),
        ['extract-1:h1', 'extract-2:h2', 'extract-2:h3', 'summary:h1', 'summary:h2'],
      );
      assert.equal(await forgetCachedCalls(store, []), 0);
      assert.equal(await forgetCachedCalls(store, ['unknown']), 0);
      assert.equal(await forgetCachedCalls(store, ['h3', 'h1']), 3, 'every entry tagged with any of the hashes');
      assert.deepEqual((await store.table('llmCache').all()).map((row) => row.key), ['untagged']);
      assert.deepEqual(await store.table('llmCacheSources').all(), []);
      assert.equal((await cache.get('untagged'))?.text, 'query');
      assert.equal(await cache.get('summary'), undefined);
    }));

  test('vectors: cosine search, load order, delete, dimension and embedder checks', () =>
    withStore(async (store) => {
      const vectors = store.vectors('chunks');
      assert.deepEqual(await vectors.search(unit([1, 0, 0]), 3), []);
      await vectors.upsert(
        [
          { id: 'x', vector: unit([1, 0, 0]) },
          { id: 'y', vector: unit([1, 1, 0]) },
          { id: 'z', vector: unit([0, 0, 1]) },
        ],
        'test:3',
      );
      const hits = await vectors.search(unit([1, 0.1, 0]), 2);
      assert.deepEqual(hits.map((hit) => hit.id), ['x', 'y']);
      assert.ok(Math.abs((hits[0]?.score ?? 0) - 0.995) < 0.01);
      assert.deepEqual((await vectors.search(unit([1, 0, 0]), 10)).length, 3);
      await vectors.upsert([{ id: 'x', vector: unit([0, 1, 0]) }], 'test:3');
      const loaded = await vectors.load();
      assert.deepEqual(loaded.ids, ['x', 'y', 'z']);
      assert.equal(loaded.dimensions, 3);
      assert.ok(Math.abs((loaded.matrix[1] ?? 0) - 1) < 1e-6);
      assert.deepEqual((await vectors.load(['z'])).ids, ['z']);
      await assert.rejects(vectors.upsert([{ id: 'w', vector: unit([1, 0]) }], 'test:3'), (error: unknown) => {
        return KgragError.isInstance(error) && error.code === 'STORE_VECTOR_SPACE_MISMATCH';
      });
      await assert.rejects(vectors.upsert([{ id: 'w', vector: unit([1, 0, 0]) }], 'other:3'), (error: unknown) => {
        return KgragError.isInstance(error) && error.code === 'STORE_VECTOR_SPACE_MISMATCH';
      });
      await vectors.delete(['y']);
      assert.equal(await vectors.count(), 2);
      assert.deepEqual(await vectors.ids(), ['x', 'z']);
      const { embedderId, dimensions } = (await vectors.info()) ?? {};
      assert.deepEqual({ embedderId, dimensions }, { embedderId: 'test:3', dimensions: 3 });
      await vectors.clear();
      assert.equal(await vectors.count(), 0);
      await vectors.upsert([{ id: 'w', vector: unit([1, 0]) }], 'other:2');
      assert.deepEqual((await store.vectors('entities').load()).ids, []);
    }));

  test('vectors: a space of mostly-zero vectors is stored sparsely and answers exactly as a dense one', () =>
    withStore(async (store) => {
      const dimensions = 64;
      // Rows with 3 of 64 coordinates set (one negative), like the local embedder's short-text vectors.
      const sparseRow = (index: number): Float32Array => {
        const values = new Array<number>(dimensions).fill(0);
        values[index % dimensions] = 1;
        values[(index * 7 + 3) % dimensions] = 0.5;
        values[(index * 13 + 5) % dimensions] = -0.25;
        return unit(values);
      };
      const denseRow = (index: number): Float32Array => unit(Array.from({ length: dimensions }, (_, d) => Math.sin(index + d) + 0.1));
      const items = (row: (index: number) => Float32Array) => Array.from({ length: 50 }, (_, index) => ({ id: `v${index}`, vector: row(index) }));
      const sparse = store.vectors('phrases');
      const dense = store.vectors('reports');
      await sparse.upsert(items(sparseRow), 'test:64');
      await dense.upsert(items(denseRow), 'test:64');
      assert.equal((await sparse.info())?.layout, 'sparse');
      assert.equal((await dense.info())?.layout, 'dense');

      for (const space of [sparse, dense]) {
        // Both layouts give back the vectors bit for bit, in insertion order.
        const all = await space.load();
        assert.deepEqual(all.ids, await space.ids());
        assert.equal(all.dimensions, dimensions);
        assert.deepEqual(all.matrix, Float32Array.from(items(space === sparse ? sparseRow : denseRow).flatMap((item) => [...item.vector])));
        // And as sparse rows: the same ids, and exactly the non-zeros of each row, coordinates ascending.
        const rows = await space.loadSparse();
        assert.deepEqual(rows.ids, all.ids);
        assert.equal(rows.dimensions, dimensions);
        const spread = new Float32Array(all.matrix.length);
        for (let row = 0; row < rows.ids.length; row++) {
          for (let entry = rows.rowPointers[row] as number; entry < (rows.rowPointers[row + 1] as number); entry++) {
            if (entry > (rows.rowPointers[row] as number)) assert.ok((rows.columnIndices[entry] as number) > (rows.columnIndices[entry - 1] as number));
            assert.notEqual(rows.values[entry], 0);
            spread[row * dimensions + (rows.columnIndices[entry] as number)] = rows.values[entry] as number;
          }
        }
        assert.deepEqual(spread, all.matrix);

        // scoreMany: every vector against several queries at once, rows in ids() order.
        const queries = new Float32Array(2 * dimensions);
        queries.set(sparseRow(3), 0);
        queries.set(denseRow(8), dimensions);
        const scored = await space.scoreMany(queries, 2);
        assert.equal(scored.rows, all.ids.length);
        assert.equal(scored.revision, (await space.info())?.revision);
        for (let query = 0; query < 2; query++) {
          for (let row = 0; row < all.ids.length; row++) {
            let dot = 0;
            for (let d = 0; d < dimensions; d++) dot += (all.matrix[row * dimensions + d] as number) * (queries[query * dimensions + d] as number);
            assert.ok(Math.abs((scored.scores[query * all.ids.length + row] as number) - dot) < 1e-6);
          }
        }
        await assert.rejects(space.scoreMany(new Float32Array(dimensions + 1), 1), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_VECTOR_SPACE_MISMATCH');
      }
      const stored = await sparse.load();
      assert.deepEqual(stored.matrix, Float32Array.from(items(sparseRow).flatMap((item) => [...item.vector])));

      // Exact search: the same ranking as a scan of the vectors, ties in insertion order.
      const query = sparseRow(3);
      const expected = stored.ids
        .map((id, row) => ({ id, score: stored.matrix.subarray(row * dimensions, (row + 1) * dimensions).reduce((sum, value, d) => sum + value * (query[d] as number), 0) }))
        .sort((left, right) => right.score - left.score || Number(left.id.slice(1)) - Number(right.id.slice(1)));
      const hits = await sparse.search(query, 5);
      assert.deepEqual(hits.map((hit) => hit.id), expected.slice(0, 5).map((hit) => hit.id));
      for (const [index, hit] of hits.entries()) assert.ok(Math.abs(hit.score - (expected[index]?.score ?? 0)) < 1e-6);

      // Writes show in the next search (the in-memory postings follow the revision), ids keep their order.
      const before = (await sparse.info())?.revision ?? 0;
      assert.equal((await sparse.scoreMany(query, 1)).revision, before);
      await sparse.upsert([{ id: 'v7', vector: query }], 'test:64');
      const afterUpsert = (await sparse.info())?.revision ?? 0;
      assert.ok(afterUpsert > before);
      assert.deepEqual((await sparse.search(query, 2)).map((hit) => hit.id), ['v3', 'v7']);
      const rescored = await sparse.scoreMany(query, 1);
      assert.equal(rescored.revision, afterUpsert);
      assert.ok(Math.abs((rescored.scores[7] as number) - 1) < 1e-6);
      assert.deepEqual((await sparse.ids()).slice(0, 8), ['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7']);
      await sparse.delete(['v3']);
      assert.ok(((await sparse.info())?.revision ?? 0) > afterUpsert);
      assert.equal((await sparse.search(query, 1))[0]?.id, 'v7');
      assert.equal(await sparse.count(), 49);
      assert.deepEqual((await sparse.load(['v9', 'v7'])).ids, ['v7', 'v9']);
      await assert.rejects(sparse.upsert([{ id: 'w', vector: sparseRow(1) }], 'other:64'), (error: unknown) => {
        return KgragError.isInstance(error) && error.code === 'STORE_VECTOR_SPACE_MISMATCH';
      });

      // The revision never repeats, across clear() too: a row map stored for an old space cannot match a new one.
      const beforeClear = (await sparse.info())?.revision ?? 0;
      await sparse.clear();
      assert.equal(await sparse.info(), undefined);
      assert.deepEqual(await sparse.search(query, 3), []);
      assert.equal((await sparse.scoreMany(query, 1)).rows, 0);
      assert.deepEqual((await sparse.load()).ids, []);
      assert.deepEqual((await sparse.loadSparse()).ids, []);
      await sparse.upsert([{ id: 'n', vector: denseRow(1) }], 'test:64');
      const recreated = await sparse.info();
      assert.equal(recreated?.layout, 'dense');
      assert.ok((recreated?.revision ?? 0) > beforeClear);
      assert.deepEqual((await sparse.search(denseRow(1), 1)).map((hit) => hit.id), ['n']);
      // Vector bookkeeping leaves the other uses of the meta table alone.
      await store.setMeta('after-vectors', { kept: true });
      assert.deepEqual(await store.getMeta('after-vectors'), { kept: true });
    }));

  test('vectors: a vector given by its non-zero coordinates stores as its dense form', () =>
    withStore(async (store) => {
      const dimensions = 64;
      const dense = (seed: number): Float32Array => {
        const values = new Array<number>(dimensions).fill(0);
        for (let entry = 0; entry < 3; entry++) values[(seed * 7 + entry * 13) % dimensions] = entry - seed / 10;
        return unit(values);
      };
      const sparseOf = (vector: Float32Array) => {
        const columns = [...vector.keys()].filter((column) => vector[column] !== 0);
        // An explicit zero among the given entries is no entry, as in a dense vector.
        return { dimensions, columns: Int32Array.from([...columns, dimensions - 1].sort((a, b) => a - b)), values: Float32Array.from([...columns, dimensions - 1].sort((a, b) => a - b), (column) => vector[column] as number) };
      };
      for (const [space, mixed] of [['entities', false], ['facts', true]] as const) {
        const fromDense = store.vectors('phrases');
        const fromSparse = store.vectors(space);
        const ids = Array.from({ length: 12 }, (_, index) => `v${index}`);
        await fromDense.upsert(ids.map((id, index) => ({ id, vector: dense(index) })), 'test:64');
        await fromSparse.upsert(ids.map((id, index) => ({ id, vector: mixed && index % 2 === 0 ? dense(index) : sparseOf(dense(index)) })), 'test:64');
        assert.equal((await fromSparse.info())?.layout, (await fromDense.info())?.layout);
        assert.deepEqual(await fromSparse.load(), await fromDense.load());
        assert.deepEqual(await fromSparse.search(dense(4), 5), await fromDense.search(dense(4), 5));
        await fromDense.clear();
      }
      await assert.rejects(store.vectors('entities').upsert([{ id: 'w', vector: { dimensions: 32, columns: Int32Array.of(1), values: Float32Array.of(1) } }], 'test:64'), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_VECTOR_SPACE_MISMATCH');
    }));

  test('vectors: a large sparse space keeps rows, order and values through upserts and deletes', () =>
    withStore(async (store) => {
      const dimensions = 300;
      const vector = (seed: number): Float32Array => {
        const values = new Array<number>(dimensions).fill(0);
        for (let entry = 0; entry < 1 + (seed % 5); entry++) values[(seed * 31 + entry * 97) % dimensions] = ((seed + entry) % 7) - 3 || 1;
        return unit(values);
      };
      const space = store.vectors('facts');
      const expected = new Map<string, Float32Array>();
      const put = async (ids: number[], salt: number): Promise<void> => {
        const items = ids.map((id) => ({ id: `f${id}`, vector: vector(id + salt) }));
        await space.upsert(items, 'test:300');
        for (const item of items) expected.set(item.id, item.vector);
      };
      await put(Array.from({ length: 700 }, (_, index) => index), 0);
      await put([5, 300, 699], 11);
      await put([700, 701], 0);
      const removed = ['f0', 'f255', 'f256', 'f511', 'f600', 'f701'];
      await space.delete(removed);
      for (const id of removed) expected.delete(id);
      const order = [...expected.keys()];
      assert.deepEqual(await space.ids(), order);
      assert.equal(await space.count(), order.length);
      const all = await space.load();
      assert.deepEqual(all.ids, order);
      assert.deepEqual(all.matrix, Float32Array.from(order.flatMap((id) => [...(expected.get(id) as Float32Array)])));
      const picked = await space.load(['f699', 'f1', 'f300']);
      assert.deepEqual(picked.ids, ['f1', 'f300', 'f699']);
      assert.deepEqual(picked.matrix.subarray(dimensions, 2 * dimensions), expected.get('f300'));
      const scored = await space.scoreMany(expected.get('f300') as Float32Array, 1);
      assert.equal(scored.rows, order.length);
      assert.ok(Math.abs((scored.scores[order.indexOf('f300')] as number) - 1) < 1e-6);
      const top = (await space.search(expected.get('f699') as Float32Array, 1))[0];
      assert.deepEqual(expected.get(top?.id ?? ''), expected.get('f699'));
    }));

  test('vectors: a replace removes ids and upserts items, as a delete and an upsert do, whatever the order it leaves', () =>
    withStore(async (store) => {
      for (const space of [store.vectors('reports'), store.vectors('keywords')]) {
        // Dense and sparse vectors: 3 and 8 dimensions (the last 5 zeros).
        const dimensions = space === store.vectors('reports') ? 3 : 8;
        const vectors: Record<string, number[]> = { a: [1, 0, 0], b: [0, 1, 0], c: [0, 0, 1], d: [1, 1, 0], c2: [1, 0, 1], e: [0, 1, 1] };
        const axis = (name: string): Float32Array => unit([...(vectors[name] as number[]), ...new Array<number>(dimensions - 3).fill(0)]);
        await space.upsert(['a', 'b', 'c', 'd'].map((id) => ({ id, vector: axis(id) })), `test:${dimensions}`);
        await replaceVectors(space, ['b', 'd', 'missing'], [{ id: 'c', vector: axis('c2') }, { id: 'e', vector: axis('e') }], `test:${dimensions}`);
        assert.deepEqual([...(await space.ids())].sort(), ['a', 'c', 'e']);
        assert.equal(await space.count(), 3);
        const loaded = await space.load(['e', 'c']);
        assert.deepEqual([...loaded.ids].sort(), ['c', 'e']);
        const rowOf = (id: string): Float32Array => loaded.matrix.subarray(loaded.ids.indexOf(id) * dimensions, (loaded.ids.indexOf(id) + 1) * dimensions);
        assert.deepEqual(rowOf('c'), axis('c2'));
        assert.deepEqual(rowOf('e'), axis('e'));
        assert.equal((await space.search(axis('e'), 1))[0]?.id, 'e');
        await assert.rejects(replaceVectors(space, ['a'], [{ id: 'f', vector: unit([1, 0]) }], `test:${dimensions}`), (error: unknown) => KgragError.isInstance(error));
        assert.deepEqual([...(await space.ids())].sort(), ['a', 'c', 'e'], 'a refused replace removes nothing');
      }
    }));

  test('vectors: an all-zero vector is stored and scores 0', () =>
    withStore(async (store) => {
      const space = store.vectors('keywords');
      await space.upsert([{ id: 'empty', vector: new Float32Array(8) }, { id: 'one', vector: unit([1, 0, 0, 0, 0, 0, 0, 0]) }], 'test:8');
      assert.equal((await space.info())?.layout, 'sparse');
      const hits = await space.search(unit([1, 0, 0, 0, 0, 0, 0, 0]), 2);
      assert.deepEqual(hits.map((hit) => hit.id), ['one', 'empty']);
      assert.equal(hits[1]?.score, 0);
      assert.deepEqual((await space.load()).matrix.subarray(0, 8), new Float32Array(8));
    }));

  test('vector search beyond the backend k limit still returns exact results', () =>
    withStore(async (store) => {
      const count = 4200;
      const items = Array.from({ length: count }, (_, index) => ({ id: `v${index}`, vector: unit([1, index / count, 0.5]) }));
      await store.vectors('entities').upsert(items, 'test:3');
      const hits = await store.vectors('entities').search(unit([1, 0, 0.5]), count);
      assert.equal(hits.length, count);
      assert.equal(hits[0]?.id, 'v0');
    }));

  test('meta and blobs round-trip', () =>
    withStore(async (store) => {
      assert.equal(await store.getMeta('missing'), undefined);
      await store.setMeta('embedder', { id: 'local', n: [1, 2] });
      assert.deepEqual(await store.getMeta('embedder'), { id: 'local', n: [1, 2] });
      const blob = new Uint8Array([0, 1, 2, 250]);
      await store.setBlob('state', blob);
      assert.deepEqual(await store.getBlob('state'), blob);
      assert.deepEqual(await store.getMeta('embedder'), { id: 'local', n: [1, 2] });
      await store.setBlob('graph', new Uint8Array([7]));
      assert.deepEqual(await store.blobKeys(), ['graph', 'state'], 'blobs only, sorted; meta values are not blobs');
      await store.setMeta('a-null', null);
      assert.deepEqual(await store.metaKeys(), ['a-null', 'embedder'], 'values only, sorted, a stored null among them; blobs are not meta values');
    }));

  test('plugin tables: declared tables keep rows as built-in ones do (keys, order, json, nulls, where, delete); an undeclared one is an error', () =>
    withStore(async (store) => {
      const scores = pluginTable<PluginScoreRow & { hid?: number }>(store, 'contractScores');
      await scores.upsert(pluginScoreRows);
      await scores.upsert([{ ...(pluginScoreRows[0] as PluginScoreRow), score: 0.5 }]);
      const rows = await scores.all();
      assert.deepEqual(withoutHid(rows), [{ ...(pluginScoreRows[0] as PluginScoreRow), score: 0.5 }, pluginScoreRows[1]]);
      assert.deepEqual(rows.map((row) => row.hid), [1, 2]);
      assert.deepEqual(withoutHid(await scores.where('score', [0.25])), [pluginScoreRows[1]]);
      assert.deepEqual(await scores.pick(['id'], { column: 'id', values: ['p2'] }), [{ hid: 2, id: 'p2' }]);
      assert.equal(await scores.deleteWhere('id', ['p1']), 1);
      assert.equal(await scores.count(), 1);
      const pairs = pluginTable<PluginPairRow>(store, 'contractPairs');
      await pairs.upsert([
        { a: 'x', b: 'y' },
        { a: 'x', b: 'y' },
        { a: 'y', b: 'x' },
      ]);
      assert.deepEqual(await pairs.all(), [
        { a: 'x', b: 'y' },
        { a: 'y', b: 'x' },
      ]);
      assert.throws(() => store.table('contractMissing' as TableName), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_UNKNOWN_TABLE');
    }, { tables: pluginTables }));

  test('plugin vector spaces: any valid name is a space of its own; an invalid name is refused', () =>
    withStore(async (store) => {
      await store.vectors('contract_space').upsert([{ id: 'p', vector: unit([1, 0, 0]) }], 'test:3');
      assert.deepEqual((await store.vectors('contract_space').search(unit([1, 0, 0]), 1)).map((hit) => hit.id), ['p']);
      assert.equal(await store.vectors('chunks').count(), 0);
      for (const name of ['Bad', 'no-dash', '1st', 'x; DROP TABLE meta', '']) {
        assert.throws(() => store.vectors(name), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_INVALID_VECTOR_SPACE', name);
      }
    }));

  if (options.reopen) {
    const reopen = options.reopen;
    test('data survives close and reopen', async () => {
      const store = await options.open({ tables: pluginTables });
      await store.table('documents').upsert(sampleRows.documents);
      await pluginTable<PluginScoreRow>(store, 'contractScores').upsert(pluginScoreRows);
      await store.vectors('chunks').upsert([{ id: 'x', vector: unit([1, 0]) }], 'test:2');
      await store.setMeta('k', 1);
      await store.close();
      const again = await reopen({ tables: pluginTables });
      try {
        assert.deepEqual(withoutHid(await again.table('documents').all()), sampleRows.documents);
        assert.deepEqual(withoutHid(await pluginTable<PluginScoreRow>(again, 'contractScores').all()), pluginScoreRows);
        assert.deepEqual((await again.vectors('chunks').search(unit([1, 0]), 1)).map((hit) => hit.id), ['x']);
        assert.equal(await again.getMeta('k'), 1);
      } finally {
        await again.close();
      }
    });
  }
  return cases;
}
