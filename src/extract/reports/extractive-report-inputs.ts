import { contentId } from '../../core/ids.js';
import { sortedUnique } from '../../core/sorted-unique.js';
import type { CommunityRecord, EntityRecord } from '../../core/types.js';

/**
 * Hashes what an extractive report (`createExtractiveReporter`) is written from: the community's members
 * with their titles, aliases, types and descriptions, the chunks each member is mentioned in among the
 * community's chunks, the community's chunks (a chunk id names its text: it hashes the document's title
 * and text and the chunk's offsets) and its inner relations (a relation id names its two ends). Left out,
 * as the context fingerprint of LLM reports leaves them out: degrees and frequencies, which only order
 * members and sentences and rate the report, and which change whenever an entity gains an edge or a mention
 * anywhere in the corpus. Equal hashes: the report says the same. Each entity's own fields are hashed once
 * and shared by the communities (one per level) that hold it: `entityHashes` holds those hashes by entity id, and may
 * come with some already (an update's unchanged entities, whose stored hashes are theirs); the ones hashed are added.
 */
export function createExtractiveReportInputs(entities: ReadonlyMap<string, EntityRecord>, entityHashes: Map<string, string> = new Map()): (community: CommunityRecord) => string {
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
    const members = sortedUnique(community.entityIds).map((id) => {
      const entity = entities.get(id);
      if (!entity) return `${id}\u0000missing`;
      // The chunks of a member's list that are the community's, sorted: stored in order nearly always, sorted only when not.
      const mentions = entity.chunkIds.filter((chunkId) => chunks.has(chunkId));
      if (!ascending(mentions)) mentions.sort();
      return `${hashOf(entity)}\u0000${mentions.join(',')}`;
    });
    return contentId('extractive-report-inputs', joined(members), '\u0001', joined(sortedUnique(community.chunkIds)), '\u0001', joined(sortedUnique(community.relationIds)));
  };
}

/** Whether `list` is in ascending order (repeats allowed): what `sort()` would leave as it is. */
function ascending(list: readonly string[]): boolean {
  for (let index = 1; index < list.length; index++) if ((list[index] as string) < (list[index - 1] as string)) return false;
  return true;
}

/**
 * A list as one {@link contentId} part that hashes to the same bytes as the list itself (each item after a NUL), in
 * one hash update instead of one per item: a top-level community lists tens of thousands of relations, and the
 * updates, not the hashing, cost most of the step's hashing.
 */
function joined(list: readonly string[]): string[] {
  return list.length === 0 ? [] : [list.join('\u0000')];
}

/**
 * A digest of everything {@link createExtractiveReportInputs} reads of one entity (its id, title, type, description,
 * aliases and chunk list): a community whose row is unchanged and none of whose members' digests changed has the
 * inputs it had, without hashing them again (the reports step). Two 32-bit FNV-1a-style hashes over the fields' code
 * units, each field closed by its length and each list opened by its count, so that no two entities' fields run into
 * each other: a few milliseconds per thousand entities, where a cryptographic hash each cost tens, and no JSON text of
 * every entity to collect (a per-entity `JSON.stringify` had cost as much again as the hashing, on 2Wiki's 39,000).
 */
export function extractiveEntityDigest(entity: Pick<EntityRecord, 'id' | 'title' | 'type' | 'description' | 'aliases' | 'chunkIds'>): string {
  const digest = new FieldDigest();
  digest.text(entity.id);
  digest.text(entity.title);
  digest.text(entity.type);
  digest.text(entity.description);
  digest.list(entity.aliases);
  digest.list(entity.chunkIds);
  return digest.value();
}

/** The running state of {@link extractiveEntityDigest}. */
class FieldDigest {
  private low = 0x811c9dc5;
  private high = 0x9747b28c;
  private units = 0;

  text(text: string): void {
    let low = this.low;
    let high = this.high;
    for (let position = 0; position < text.length; position++) {
      const code = text.charCodeAt(position);
      low = Math.imul(low ^ code, 0x01000193);
      high = Math.imul(high ^ code, 0x5bd1e995);
      high ^= high >>> 15;
    }
    // Above every code unit: a field's end cannot be read as a character.
    const end = 0x10000 + text.length;
    low = Math.imul(low ^ end, 0x01000193);
    high = Math.imul(high ^ end, 0x5bd1e995);
    this.low = low;
    this.high = high ^ (high >>> 15);
    this.units += text.length + 1;
  }

  list(items: readonly string[]): void {
    this.text(String(items.length));
    for (const item of items) this.text(item);
  }

  value(): string {
    return `${this.units.toString(36)}:${(this.low >>> 0).toString(16)}:${(this.high >>> 0).toString(16)}`;
  }
}
