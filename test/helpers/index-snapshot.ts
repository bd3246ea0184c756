import { createHash } from 'node:crypto';
import { createKgrag, type Kgrag } from '../../src/api/create-kgrag.js';
import type { TableName } from '../../src/store/schema.js';
import { builtInVectorSpaces } from '../../src/store/store.js';

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
  'extractions',
] as const satisfies readonly TableName[];


/**
 * Meta records left out. Those that say how an index was built, not what it holds, and so differ between a fresh
 * build and one resumed or updated: which generation it is and when that was published (one more for every
 * publish), the generation a SQLite draft was copied from (`index:draftBase`, bookkeeping of SQLite's drafts that
 * Postgres keeps elsewhere), and the write counters of the vector spaces (`vectors-revision:<space>`, one more for
 * every write, a cache key for readers). And SQLite's record of each vector space (`vectors:<space>`): its embedder,
 * dimensions and layout are compared through `vectors(space).info()`, which every backend answers.
 */
const buildHistoryMeta = new Set(['index:generation', 'index:publishedAt', 'index:draftBase']);
const isBuildHistoryMeta = (key: string): boolean =>
  buildHistoryMeta.has(key) || key.startsWith('vectors-revision:') || key.startsWith('vectors:') || key.startsWith('statistics-epoch:');
/**
 * Fields of meta records that copy those counters: the stored triple vectors name the revisions they were built at;
 * the corpus statistics name their refresh (an epoch chained to the one before) and when it ran.
 */
const buildHistoryFields: Readonly<Record<string, readonly string[]>> = {
  'triples:vector-rows-meta': ['phrasesRevision', 'factsRevision'],
  'corpus-statistics': ['epoch', 'fittedAt'],
};

/**
 * Everything an index contains that must not depend on how it was built (fresh, resumed after a crash,
 * or re-run): every table's rows without timestamps, every vector, every meta record but those of the build's
 * history (above), and every stored blob (the graphs and triple index the methods build), the blobs by content hash
 * to keep a failing diff readable.
 */
export async function indexSnapshot(kgrag: Kgrag): Promise<Record<string, unknown>> {
  const { store } = kgrag;
  const snapshot: Record<string, unknown> = {};
  for (const table of indexTables) {
    const rows = await store.table(table).all();
    snapshot[table] = table === 'documents' ? rows.map((row) => ({ ...row, createdAt: undefined })) : rows;
  }
  for (const space of builtInVectorSpaces) {
    const vectors = await store.vectors(space).load();
    const info = await store.vectors(space).info();
    // Without `revision`, the space's write counter (see above).
    const described = info === undefined ? undefined : { embedderId: info.embedderId, layout: info.layout };
    snapshot[`vectors:${space}`] = { ids: vectors.ids, dimensions: vectors.dimensions, matrix: Array.from(vectors.matrix), info: described };
  }
  for (const key of await store.metaKeys()) {
    if (isBuildHistoryMeta(key)) continue;
    const value = await store.getMeta<unknown>(key);
    const left = buildHistoryFields[key];
    snapshot[`meta:${key}`] = left && value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([field]) => !left.includes(field))) : value;
  }
  for (const key of await store.blobKeys()) {
    const blob = await store.getBlob(key);
    snapshot[`blob:${key}`] = blob === undefined ? undefined : createHash('sha256').update(blob).digest('hex');
  }
  return snapshot;
}

/** {@link indexSnapshot} of the published index of the workspace folder `workspace`, opened and closed for it. */
export async function workspaceSnapshot(workspace: string): Promise<Record<string, unknown>> {
  const kgrag = await createKgrag({ workspace, env: {} });
  try {
    return await indexSnapshot(kgrag);
  } finally {
    await kgrag.close();
  }
}
