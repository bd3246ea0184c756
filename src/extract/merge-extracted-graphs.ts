import { contentId } from '../core/ids.js';
import type { EntityRecord, RelationRecord } from '../core/types.js';
import { normalizeEntityName } from './entity-resolution/normalize-entity-name.js';
import type { ExtractedGraph } from './llm-graph/extracted-graph.js';
import { isAllCapitals } from './llm-graph/restore-name-casing.js';

/** One chunk's extraction, in chunk order. */
export interface ChunkExtraction {
  chunkId: string;
  graph: ExtractedGraph;
}

/** The merged graph and what the merge had to drop. */
export interface MergedGraph {
  entities: EntityRecord[];
  relations: RelationRecord[];
  /** Relationships whose source or target was never extracted as an entity (GraphRAG drops them too). */
  droppedRelations: number;
}

/** Entity id of an extracted name: the hash of its normalized form, so every chunk agrees. */
export function extractedEntityId(name: string): string {
  return contentId('entity', normalizeEntityName(name));
}

/** The most frequent value, the first seen on ties; with `avoidCapitals`, names in capitals only win when no other is left. */
function mostCommon(counts: ReadonlyMap<string, number>, avoidCapitals = false): string {
  let best = '';
  let bestRank = -1;
  for (const [value, count] of counts) {
    const rank = avoidCapitals && !isAllCapitals(value) ? count + 1e9 : count;
    if (rank > bestRank) {
      best = value;
      bestRank = rank;
    }
  }
  return best;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * Merges per-chunk extractions by exact normalized name (GraphRAG `extract_graph` merge,
 * microsoft/graphrag `index/workflows/extract_graph.py`): the title is the most frequent spelling (one not in capitals when there is one), the type the most frequent type, the
 * relation weight the sum of strengths over chunks; relationships are undirected (a sorted id pair).
 * Descriptions are left as the first one seen: the summarize step rebuilds them from all extractions.
 */
export function mergeExtractedGraphs(extractions: readonly ChunkExtraction[]): MergedGraph {
  interface EntityAccumulator {
    id: string;
    spellings: Map<string, number>;
    types: Map<string, number>;
    description: string;
    chunkIds: string[];
  }
  const entities = new Map<string, EntityAccumulator>();
  for (const { chunkId, graph } of extractions) {
    for (const entity of graph.entities) {
      const key = normalizeEntityName(entity.name);
      if (key.length === 0) continue;
      let accumulator = entities.get(key);
      if (!accumulator) {
        accumulator = { id: contentId('entity', key), spellings: new Map(), types: new Map(), description: '', chunkIds: [] };
        entities.set(key, accumulator);
      }
      increment(accumulator.spellings, entity.name.trim());
      increment(accumulator.types, entity.type.trim().toLowerCase() || 'unknown');
      if (!accumulator.description && entity.description.trim()) accumulator.description = entity.description.trim();
      if (accumulator.chunkIds[accumulator.chunkIds.length - 1] !== chunkId) accumulator.chunkIds.push(chunkId);
    }
  }

  interface RelationAccumulator {
    source: string;
    target: string;
    weight: number;
    description: string;
    chunkIds: string[];
  }
  const relations = new Map<string, RelationAccumulator>();
  let droppedRelations = 0;
  for (const { chunkId, graph } of extractions) {
    for (const relation of graph.relations) {
      const source = entities.get(normalizeEntityName(relation.source));
      const target = entities.get(normalizeEntityName(relation.target));
      if (!source || !target || source === target) {
        droppedRelations++;
        continue;
      }
      const [first, second] = [source.id, target.id].sort() as [string, string];
      const key = `${first}\u0000${second}`;
      let accumulator = relations.get(key);
      if (!accumulator) {
        accumulator = { source: first, target: second, weight: 0, description: '', chunkIds: [] };
        relations.set(key, accumulator);
      }
      accumulator.weight += relation.strength;
      if (!accumulator.description && relation.description.trim()) accumulator.description = relation.description.trim();
      if (accumulator.chunkIds[accumulator.chunkIds.length - 1] !== chunkId) accumulator.chunkIds.push(chunkId);
    }
  }

  const degree = new Map<string, number>();
  for (const relation of relations.values()) {
    degree.set(relation.source, (degree.get(relation.source) ?? 0) + 1);
    degree.set(relation.target, (degree.get(relation.target) ?? 0) + 1);
  }
  const entityRecords: EntityRecord[] = [...entities.values()].map((entity) => {
    const title = mostCommon(entity.spellings, true);
    return {
      id: entity.id,
      title,
      type: mostCommon(entity.types),
      description: entity.description,
      aliases: [...entity.spellings.keys()].filter((spelling) => spelling !== title),
      frequency: entity.chunkIds.length,
      degree: degree.get(entity.id) ?? 0,
      chunkIds: entity.chunkIds,
    };
  });
  const relationRecords: RelationRecord[] = [...relations.values()]
    .map((relation) => ({
      id: contentId('relation', relation.source, relation.target),
      source: relation.source,
      target: relation.target,
      description: relation.description,
      keywords: [],
      weight: relation.weight,
      combinedDegree: (degree.get(relation.source) ?? 0) + (degree.get(relation.target) ?? 0),
      chunkIds: relation.chunkIds,
    }))
    .sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
  return { entities: entityRecords, relations: relationRecords, droppedRelations };
}
