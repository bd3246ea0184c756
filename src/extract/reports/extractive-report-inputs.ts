import { contentId } from '../../core/ids.js';
import type { CommunityRecord, EntityRecord } from '../../core/types.js';

/**
 * Hashes what an extractive report (`createExtractiveReporter`) is written from: the community's members
 * with their titles, aliases, types and descriptions, the chunks each member is mentioned in among the
 * community's chunks, the community's chunks (a chunk id names its text: it hashes the document's title
 * and text and the chunk's offsets) and its inner relations (a relation id names its two ends). Left out,
 * as the context fingerprint of LLM reports leaves them out: degrees and frequencies, which only order
 * members and sentences and rate the report, and which change whenever an entity gains an edge or a mention
 * anywhere in the corpus. Equal hashes: the report says the same. Each entity's own fields are hashed once
 * and shared by the communities (one per level) that hold it.
 */
export function createExtractiveReportInputs(entities: ReadonlyMap<string, EntityRecord>): (community: CommunityRecord) => string {
  const entityHashes = new Map<string, string>();
  const hashOf = (entity: EntityRecord): string => {
    let hash = entityHashes.get(entity.id);
    if (hash === undefined) {
      hash = contentId('extractive-entity', JSON.stringify([entity.id, entity.title, entity.type, entity.description, entity.aliases]));
      entityHashes.set(entity.id, hash);
    }
    return hash;
  };
  return (community) => {
    const chunks = new Set(community.chunkIds);
    const members = [...new Set(community.entityIds)].sort().map((id) => {
      const entity = entities.get(id);
      if (!entity) return `${id}\u0000missing`;
      const mentions = entity.chunkIds.filter((chunkId) => chunks.has(chunkId)).sort();
      return `${hashOf(entity)}\u0000${mentions.join(',')}`;
    });
    const chunkList = Array.from(chunks).sort();
    const relationList = Array.from(new Set(community.relationIds)).sort();
    return contentId('extractive-report-inputs', joined(members), '\u0001', joined(chunkList), '\u0001', joined(relationList));
  };
}

/**
 * A list as one {@link contentId} part that hashes to the same bytes as the list itself (each item after a NUL), in
 * one hash update instead of one per item: a top-level community lists tens of thousands of relations, and the
 * updates, not the hashing, cost most of the step's hashing.
 */
function joined(list: readonly string[]): string[] {
  return list.length === 0 ? [] : [list.join('\u0000')];
}
