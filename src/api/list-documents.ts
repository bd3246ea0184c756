import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Store } from '../store/store.js';
import type { IndexedDocument } from './kgrag.js';

/** Whether a source names a file (absolute path, or `file#record`) that no longer exists. */
function sourceFileMissing(source: string): boolean {
  if (!isAbsolute(source) || existsSync(source)) return false;
  const hash = source.lastIndexOf('#');
  return hash < 0 || !existsSync(source.slice(0, hash));
}

/** The documents of an index with their chunk counts, and whether their source file still exists. */
export async function listDocuments(from: Store, ids?: readonly string[]): Promise<IndexedDocument[]> {
  const only = ids === undefined ? undefined : { column: 'documentId' as const, values: ids };
  const chunkCounts = new Map<string, number>();
  for (const { documentId } of await from.table('chunks').pick(['documentId'], only)) chunkCounts.set(documentId, (chunkCounts.get(documentId) ?? 0) + 1);
  const documents = await from.table('documents').pick(['id', 'title', 'source', 'createdAt'], ids === undefined ? undefined : { column: 'id', values: ids });
  return documents.map((document) => ({
    id: document.id,
    title: document.title,
    source: document.source,
    chunks: chunkCounts.get(document.id) ?? 0,
    indexedAt: document.createdAt,
    status: sourceFileMissing(document.source) ? 'source-missing' : 'indexed',
  }));
}
