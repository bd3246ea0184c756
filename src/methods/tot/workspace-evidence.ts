import type { ContextChunk } from '../../answer/answer-types.js';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import type { KgEntity } from './kg/knowledge-graph.js';
import type { MethodContext } from '../query-method.js';
import { entityIndexOf, typedRelationGraph } from './typed-relation-graph.js';
import { indexGraphName } from './workspace-knowledge-graph.js';
import type { VisitedGraph } from './visited-graph.js';

/** The index records and passages behind what a search visited in the `index` graph. */
export interface IndexEvidence {
  chunks: ContextChunk[];
  entities: EntityRecord[];
  relations: RelationRecord[];
}

/** The index id of an entity: its own when the index handed it out, else its link into the index. */
const indexIdOf = (entity: KgEntity): string | undefined => (entity.graph === indexGraphName ? entity.id : entity.sameAs?.[indexGraphName]);

/**
 * The passages behind the visited entities of the workspace graph, so that evaluation can score the
 * traversal's retrieval and answers can be traced to text: each visited index entity (or entity of another
 * graph linked to one) and each index relation between two visited entities that an edge of the search
 * joined counts for its chunks (twice when it is in the returned answer's state), best first, ties in visiting
 * order. Entities and relations are found by id through the index's typed graph, shared with the index
 * knowledge graph.
 */
export async function workspaceEvidence(context: MethodContext, visited: VisitedGraph, maxChunks: number): Promise<IndexEvidence> {
  // A walk of other graphs only has no index evidence, and should not load the index graph to find that out.
  if (!visited.entities.some(({ entity }) => indexIdOf(entity) !== undefined)) return { chunks: [], entities: [], relations: [] };
  const kg = await typedRelationGraph(context);
  /** Visited entity id (as the search held it) → its position in the typed graph. */
  const positionOf = new Map<string, { position: number; onPath: boolean }>();
  for (const { entity, onPath } of visited.entities) {
    const indexId = indexIdOf(entity);
    const position = indexId === undefined ? undefined : entityIndexOf(kg, indexId);
    if (position !== undefined) positionOf.set(entity.id, { position, onPath });
  }
  if (positionOf.size === 0) return { chunks: [], entities: [], relations: [] };

  // Pairs of positions an edge of the search joined, either direction, and whether the answer's state holds it.
  const joined = new Map<string, boolean>();
  for (const { edge, onPath } of visited.edges) {
    const source = positionOf.get(edge.source)?.position;
    const target = edge.target === undefined ? undefined : positionOf.get(edge.target)?.position;
    if (source === undefined || target === undefined) continue;
    for (const key of [`${source}\u0000${target}`, `${target}\u0000${source}`]) joined.set(key, (joined.get(key) ?? false) || onPath);
  }
  /** Relation record id → on the answer's path, from the typed edges between joined pairs. */
  const relationOnPath = new Map<string, boolean>();
  for (const { position } of positionOf.values()) {
    for (const edge of [...(kg.outgoing.get(position) ?? []), ...(kg.incoming.get(position) ?? [])]) {
      const from = kg.edgeFrom[edge] as number;
      const other = from === position ? (kg.edgeTo[edge] as number) : from;
      const onPath = joined.get(`${position}\u0000${other}`);
      if (onPath === undefined) continue;
      const relation = kg.edgeRelation[edge] as string;
      relationOnPath.set(relation, (relationOnPath.get(relation) ?? false) || onPath);
    }
  }

  const entityOnPath = new Map<string, boolean>();
  for (const { position, onPath } of positionOf.values()) {
    const id = kg.entityIds[position] as string;
    entityOnPath.set(id, (entityOnPath.get(id) ?? false) || onPath);
  }
  const [entityRows, relationRows] = await Promise.all([context.store.table('entities').get([...entityOnPath.keys()]), context.store.table('relations').get([...relationOnPath.keys()])]);
  // In visiting order, which breaks ties of the ranking below.
  const inOrder = <T extends { id: string }>(rows: readonly T[], ids: Iterable<string>): T[] => {
    const byId = new Map(rows.map((row) => [row.id, row]));
    return [...ids].flatMap((id) => byId.get(id) ?? []);
  };
  const entities = inOrder(entityRows, entityOnPath.keys());
  const relations = inOrder(relationRows, relationOnPath.keys());

  const scores = new Map<string, number>();
  const credit = (chunkIds: readonly string[], onPath: boolean): void => {
    for (const chunkId of new Set(chunkIds)) scores.set(chunkId, (scores.get(chunkId) ?? 0) + (onPath ? 2 : 1));
  };
  for (const entity of entities) credit(entity.chunkIds, entityOnPath.get(entity.id) ?? false);
  for (const relation of relations) credit(relation.chunkIds, relationOnPath.get(relation.id) ?? false);
  // Stable sort: equal scores keep the order the search visited them in.
  const ranked = [...scores].sort((left, right) => right[1] - left[1]).slice(0, maxChunks);
  const chunks = await context.chunks(ranked.map(([id, score]) => ({ id, score, scores: { tot: score } })));
  return { chunks, entities, relations };
}
