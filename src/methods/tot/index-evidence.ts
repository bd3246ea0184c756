import type { ContextChunk } from '../../answer/answer-types.js';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import type { MethodContext } from '../query-method.js';
import type { VisitedGraph } from './visited-graph.js';

/** The index records and passages behind what a search visited in the `index` graph. */
export interface IndexEvidence {
  chunks: ContextChunk[];
  entities: EntityRecord[];
  relations: RelationRecord[];
}

/** Name of the workspace graph (`KgEntity.graph` of its entities). */
const indexGraph = 'index';

/**
 * The passages behind the visited entities of the workspace graph, so that evaluation can score the
 * traversal's retrieval and answers can be traced to text: each visited index entity and each index
 * relation between two visited entities that an edge of the search joined counts for its chunks (twice
 * when it is in the returned answer's state), best first, ties in visiting order. Index entities are found
 * by title, the label the index graph shows; entities of other graphs contribute through nothing here.
 */
export async function indexEvidence(context: MethodContext, visited: VisitedGraph, maxChunks: number): Promise<IndexEvidence> {
  const visitedIndex = visited.entities.filter(({ entity }) => entity.graph === indexGraph);
  if (visitedIndex.length === 0) return { chunks: [], entities: [], relations: [] };
  const rows = await context.store.table('entities').where('title', [...new Set(visitedIndex.map(({ entity }) => entity.label))]);
  const byTitle = new Map<string, EntityRecord>();
  for (const row of rows) if (!byTitle.has(row.title)) byTitle.set(row.title, row);
  const recordOf = new Map<string, { record: EntityRecord; onPath: boolean }>();
  for (const { entity, onPath } of visitedIndex) {
    const record = byTitle.get(entity.label);
    if (record) recordOf.set(entity.id, { record, onPath });
  }
  const entities = [...new Map([...recordOf.values()].map(({ record }) => [record.id, record])).values()];

  // Pairs of records an edge of the search joined, in either direction.
  const joined = new Map<string, boolean>();
  for (const { edge, onPath } of visited.edges) {
    const source = recordOf.get(edge.source)?.record.id;
    const target = edge.target === undefined ? undefined : recordOf.get(edge.target)?.record.id;
    if (source === undefined || target === undefined) continue;
    for (const key of [`${source}\u0000${target}`, `${target}\u0000${source}`]) joined.set(key, (joined.get(key) ?? false) || onPath);
  }
  const relations =
    joined.size === 0
      ? []
      : (await context.store.table('relations').where('source', entities.map((entity) => entity.id))).filter((relation) => joined.has(`${relation.source}\u0000${relation.target}`));

  const scores = new Map<string, number>();
  const credit = (chunkIds: readonly string[], weight: number): void => {
    for (const chunkId of new Set(chunkIds)) scores.set(chunkId, (scores.get(chunkId) ?? 0) + weight);
  };
  for (const { record, onPath } of recordOf.values()) credit(record.chunkIds, onPath ? 2 : 1);
  for (const relation of relations) credit(relation.chunkIds, joined.get(`${relation.source}\u0000${relation.target}`) ? 2 : 1);
  // Stable sort: equal scores keep the order the search visited them in.
  const ranked = [...scores].sort((left, right) => right[1] - left[1]).slice(0, maxChunks);
  const chunks = await context.chunks(ranked.map(([id, score]) => ({ id, score, scores: { tot: score } })));
  return { chunks, entities, relations };
}
