import { createHash } from 'node:crypto';
import type { Kgrag } from '../../src/api/create-kgrag.js';
import type { TableName } from '../../src/store/schema.js';
import type { VectorSpace } from '../../src/store/store.js';

/** Tables that hold the index; `runs` (timings) and `llmCache` (replies, not results) describe how it was built. */
const indexTables = [
  'documents',
  'chunks',
  'entities',
  'relations',
  'triples',
  'claims',
  'communities',
  'reports',
  'keywords',
  'keywordChunks',
  'keywordEdges',
  'chunkEdges',
  'extractions',
] as const satisfies readonly TableName[];

const vectorSpaces = ['chunks', 'entities', 'relations', 'reports', 'keywords', 'phrases', 'facts'] as const satisfies readonly VectorSpace[];

/**
 * Everything an index contains that must not depend on how it was built (fresh, resumed after a crash,
 * or re-run): every table's rows without timestamps, every vector, and every stored blob (the graphs and
 * triple index the methods build), the blobs by content hash to keep a failing diff readable.
 */
export async function indexSnapshot(kgrag: Kgrag): Promise<Record<string, unknown>> {
  const { store } = kgrag;
  const snapshot: Record<string, unknown> = {};
  for (const table of indexTables) {
    const rows = await store.table(table).all();
    snapshot[table] = table === 'documents' ? rows.map((row) => ({ ...row, createdAt: undefined })) : rows;
  }
  for (const space of vectorSpaces) {
    const vectors = await store.vectors(space).load();
    snapshot[`vectors:${space}`] = { ids: vectors.ids, dimensions: vectors.dimensions, matrix: Array.from(vectors.matrix) };
  }
  for (const key of await store.blobKeys()) {
    const blob = await store.getBlob(key);
    snapshot[`blob:${key}`] = blob === undefined ? undefined : createHash('sha256').update(blob).digest('hex');
  }
  return snapshot;
}
