import type { KeywordChunkRecord, KeywordEdgeRecord, KeywordRecord } from '../../../core/types.js';
import type { Store } from '../../../store/store.js';

/** The rows of the keyword tables as the index holds them. */
export interface KeywordRows {
  keywords: KeywordRecord[];
  members: KeywordChunkRecord[];
  edges: KeywordEdgeRecord[];
}

export async function storedKeywordRows(store: Store): Promise<KeywordRows> {
  const [keywords, members, edges] = await Promise.all([store.table('keywords').all(), store.table('keywordChunks').all(), store.table('keywordEdges').all()]);
  return { keywords, members, edges };
}

/**
 * Writes `next` over `stored` keyword by keyword: a keyword row that differs is upserted and a gone one deleted; a
 * keyword whose member list (chunk and score) or edge list (from it) differs has that list deleted and written again.
 */
export async function writeKeywordDifference(tx: Store, stored: KeywordRows, next: KeywordRows): Promise<void> {
  const storedText = new Map(stored.keywords.map((record) => [record.id, record.text]));
  const nextIds = new Set(next.keywords.map((record) => record.id));
  await tx.table('keywords').deleteWhere('id', stored.keywords.filter((record) => !nextIds.has(record.id)).map((record) => record.id));
  await tx.table('keywords').upsert(next.keywords.filter((record) => storedText.get(record.id) !== record.text));
  const changedMembers = changedOwners(stored.members, next.members, (row) => row.keywordId, (row) => `${row.chunkId} ${row.score}`);
  if (changedMembers.size > 0) {
    await tx.table('keywordChunks').deleteWhere('keywordId', [...changedMembers]);
    await tx.table('keywordChunks').upsert(next.members.filter((row) => changedMembers.has(row.keywordId)));
  }
  // Edges are stored both ways, so a changed edge changes the lists of both its keywords.
  const changedEdges = changedOwners(stored.edges, next.edges, (row) => row.a, (row) => `${row.b} ${row.weight}`);
  if (changedEdges.size > 0) {
    await tx.table('keywordEdges').deleteWhere('a', [...changedEdges]);
    await tx.table('keywordEdges').upsert(next.edges.filter((row) => changedEdges.has(row.a)));
  }
}

/** The owners (keywords) whose list of entries differs between `before` and `after`, in any order of the rows. */
function changedOwners<R>(before: readonly R[], after: readonly R[], owner: (row: R) => string, entry: (row: R) => string): Set<string> {
  const listsOf = (rows: readonly R[]): Map<string, string> => {
    const lists = new Map<string, string[]>();
    for (const row of rows) {
      const list = lists.get(owner(row));
      if (list) list.push(entry(row));
      else lists.set(owner(row), [entry(row)]);
    }
    return new Map([...lists].map(([key, list]) => [key, list.sort().join('\n')]));
  };
  const old = listsOf(before);
  const now = listsOf(after);
  return new Set([...old.keys(), ...now.keys()].filter((key) => old.get(key) !== now.get(key)));
}
