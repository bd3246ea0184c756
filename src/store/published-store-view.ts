import { KgragError } from '../core/errors.js';
import type { TableName } from './schema.js';
import type { Store, TableAccess, VectorIndex, VectorSpace } from './store.js';
import type { WorkspaceStorage } from './workspace-storage.js';

/**
 * A `Store` that reads the newest published index of a workspace on every call, so that a long-lived handle
 * (`kgrag.store`) sees each index run once it has published. Writing through it is an error: index runs write
 * their draft, and a published index is never changed in place.
 */
export function publishedStoreView(storage: Pick<WorkspaceStorage, 'snapshot' | 'location'>): Store {
  const read = async <R>(use: (store: Store) => Promise<R>): Promise<R> => {
    const snapshot = await storage.snapshot();
    if (!snapshot) {
      throw new KgragError(`there is no index at ${storage.location} yet`, {
        code: 'STORE_NO_INDEX',
        category: 'input',
        hint: 'index documents first (`kgrag index <paths>`)',
        details: { location: storage.location },
      });
    }
    try {
      return await use(snapshot.store);
    } finally {
      snapshot.release();
    }
  };
  const readOnly = (operation: string): never => {
    throw new KgragError(`${operation}: the published index is read-only`, {
      code: 'STORE_READ_ONLY_VIEW',
      category: 'internal',
      hint: 'change an index through `kgrag.index` (or the other writing operations), which write a draft and publish it',
    });
  };

  const tableView = <T extends TableName>(name: T): TableAccess<T> => ({
    upsert: async () => readOnly(`upsert into ${name}`),
    get: (keys) => read((store) => store.table(name).get(keys)),
    all: () => read((store) => store.table(name).all()),
    where: (column, values) => read((store) => store.table(name).where(column, values)),
    pick: (columns, where) => read((store) => store.table(name).pick(columns, where)),
    deleteWhere: async () => readOnly(`delete from ${name}`),
    clear: async () => readOnly(`clear ${name}`),
    count: () => read((store) => store.table(name).count()),
  });

  const vectorView = (space: VectorSpace): VectorIndex => ({
    upsert: async () => readOnly(`upsert ${space} vectors`),
    search: (query, k) => read((store) => store.vectors(space).search(query, k)),
    scoreMany: (queries, count) => read((store) => store.vectors(space).scoreMany(queries, count)),
    ids: () => read((store) => store.vectors(space).ids()),
    load: (ids) => read((store) => store.vectors(space).load(ids)),
    loadSparse: () => read((store) => store.vectors(space).loadSparse()),
    delete: async () => readOnly(`delete ${space} vectors`),
    clear: async () => readOnly(`clear ${space} vectors`),
    count: () => read((store) => store.vectors(space).count()),
    info: () => read((store) => store.vectors(space).info()),
  });

  return {
    backend: 'published',
    table: tableView,
    vectors: vectorView,
    searchText: (table, terms, k) => read((store) => store.searchText(table, terms, k)),
    getMeta: (key) => read((store) => store.getMeta(key)),
    setMeta: async () => readOnly('setMeta'),
    getBlob: (key) => read((store) => store.getBlob(key)),
    setBlob: async () => readOnly('setBlob'),
    blobKeys: () => read((store) => store.blobKeys()),
    metaKeys: () => read((store) => store.metaKeys()),
    transaction: async () => readOnly('transaction'),
    async close() {},
  };
}
