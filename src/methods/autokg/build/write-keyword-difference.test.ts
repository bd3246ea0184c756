import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { KeywordChunkRecord, KeywordEdgeRecord, KeywordRecord } from '../../../core/types.js';
import { openSqliteStore } from '../../../store/sqlite/sqlite-store.js';
import { storedKeywordRows, writeKeywordDifference, type KeywordRows } from './write-keyword-difference.js';

const byKey = (rows: KeywordRows): KeywordRows => ({
  keywords: [...rows.keywords].sort((a, b) => a.id.localeCompare(b.id)),
  members: [...rows.members].sort((a, b) => `${a.keywordId} ${a.chunkId}`.localeCompare(`${b.keywordId} ${b.chunkId}`)),
  edges: [...rows.edges].sort((a, b) => `${a.a} ${a.b}`.localeCompare(`${b.a} ${b.b}`)),
});

const edge = (a: string, b: string, weight: number): KeywordEdgeRecord[] => [
  { a, b, weight },
  { a: b, b: a, weight },
];

test('writing the difference of the keyword tables leaves them as the new rows: kept, re-cased, changed, gone and new keywords', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-keyword-difference-'));
  const store = openSqliteStore(join(folder, 'index.db'));
  try {
    const keywords: KeywordRecord[] = [
      { id: 'k1', text: 'Weir Bridge' },
      { id: 'k2', text: 'lantern river' },
      { id: 'k3', text: 'mill' },
    ];
    const members: KeywordChunkRecord[] = [
      { keywordId: 'k1', chunkId: 'c1', score: 0.5 },
      { keywordId: 'k1', chunkId: 'c2', score: 0.25 },
      { keywordId: 'k2', chunkId: 'c2', score: 0.75 },
      { keywordId: 'k3', chunkId: 'c3', score: 1 },
    ];
    const edges = [...edge('k1', 'k2', 0.5), ...edge('k2', 'k3', 0.125)];
    await store.transaction(async (tx) => {
      await tx.table('keywords').upsert(keywords);
      await tx.table('keywordChunks').upsert(members);
      await tx.table('keywordEdges').upsert(edges);
    });

    const next: KeywordRows = {
      // k1 kept as it was; k2 re-cased (same id); k3 gone; k4 new.
      keywords: [
        { id: 'k1', text: 'Weir Bridge' },
        { id: 'k2', text: 'Lantern River' },
        { id: 'k4', text: 'ferry inn' },
      ],
      members: [
        { keywordId: 'k1', chunkId: 'c1', score: 0.5 },
        { keywordId: 'k1', chunkId: 'c2', score: 0.25 },
        // k2's score moved in its last bits, and it took in a new chunk.
        { keywordId: 'k2', chunkId: 'c2', score: 0.75 + 2 ** -40 },
        { keywordId: 'k2', chunkId: 'c9', score: 0.5 },
        { keywordId: 'k4', chunkId: 'c9', score: 1 },
      ],
      edges: [...edge('k1', 'k2', 0.5), ...edge('k2', 'k4', 0.25)],
    };
    await store.transaction(async (tx) => writeKeywordDifference(tx, await storedKeywordRows(tx), next));
    assert.deepEqual(byKey(await storedKeywordRows(store)), byKey(next));

    // Writing the same rows again changes nothing.
    await store.transaction(async (tx) => writeKeywordDifference(tx, await storedKeywordRows(tx), next));
    assert.deepEqual(byKey(await storedKeywordRows(store)), byKey(next));
  } finally {
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
});
