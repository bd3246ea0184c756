import type { EntityRecord, RelationRecord } from '../core/types.js';
import { normalizeEntityName } from './entity-resolution/normalize-entity-name.js';
import type { ChunkExtraction } from './merge-extracted-graphs.js';

/** Every description the extractions gave each final entity and relation. */
export interface ExtractedDescriptions {
  entities: Map<string, string[]>;
  relations: Map<string, string[]>;
}

/**
 * Gathers, for each entity of the final graph, the descriptions of every extracted mention whose name
 * is its title or one of its aliases (after resolution merged spellings), and for each relation those of
 * the extracted relationships between the same two entities. The extractions stay the record of what the
 * model said; entity descriptions are derived from them, so re-running resolution never loses one.
 */
export function collectExtractedDescriptions(
  extractions: readonly ChunkExtraction[],
  entities: readonly EntityRecord[],
  relations: readonly RelationRecord[],
): ExtractedDescriptions {
  const entityOfName = new Map<string, string>();
  for (const entity of entities) {
    for (const name of [entity.title, ...entity.aliases]) {
      const key = normalizeEntityName(name);
      if (!entityOfName.has(key)) entityOfName.set(key, entity.id);
    }
  }
  const relationOfPair = new Map<string, string>();
  for (const relation of relations) {
    const [first, second] = [relation.source, relation.target].sort() as [string, string];
    relationOfPair.set(`${first}\u0000${second}`, relation.id);
  }
  const result: ExtractedDescriptions = { entities: new Map(), relations: new Map() };
  const add = (map: Map<string, string[]>, key: string, description: string): void => {
    const text = description.trim();
    if (!text) return;
    let list = map.get(key);
    if (!list) map.set(key, (list = []));
    if (!list.includes(text)) list.push(text);
  };
  for (const { graph } of extractions) {
    for (const entity of graph.entities) {
      const id = entityOfName.get(normalizeEntityName(entity.name));
      if (id) add(result.entities, id, entity.description);
    }
    for (const relation of graph.relations) {
      const source = entityOfName.get(normalizeEntityName(relation.source));
      const target = entityOfName.get(normalizeEntityName(relation.target));
      if (!source || !target || source === target) continue;
      const [first, second] = [source, target].sort() as [string, string];
      const id = relationOfPair.get(`${first}\u0000${second}`);
      if (id) add(result.relations, id, relation.description);
    }
  }
  return result;
}
