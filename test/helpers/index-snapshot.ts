import type { Kgrag } from '../../src/api/create-kgrag.js';

/**
 * Everything an index contains that must not depend on how it was built (fresh, resumed after a crash,
 * or re-run): table rows without timestamps, and every vector.
 */
export async function indexSnapshot(kgrag: Kgrag): Promise<Record<string, unknown>> {
  const { store } = kgrag;
  const documents = (await store.table('documents').all()).map(({ createdAt: _createdAt, ...document }) => document);
  const snapshot: Record<string, unknown> = {
    documents,
    chunks: await store.table('chunks').all(),
    entities: await store.table('entities').all(),
    relations: await store.table('relations').all(),
    communities: await store.table('communities').all(),
    reports: await store.table('reports').all(),
    extractions: await store.table('extractions').all(),
    claims: await store.table('claims').all(),
    triples: await store.table('triples').all(),
  };
  for (const space of ['chunks', 'entities', 'relations', 'reports', 'phrases', 'facts'] as const) {
    const vectors = await store.vectors(space).load();
    snapshot[`vectors:${space}`] = { ids: vectors.ids, dimensions: vectors.dimensions, matrix: Array.from(vectors.matrix) };
  }
  return snapshot;
}
