import { contentId } from '../../core/ids.js';
import { packTypedArrays, unpackTypedArrays } from '../../graph/typed-array-bundle.js';

/**
 * The members of every community as numbers: for each community id, its members as positions in the entity list the
 * communities step clustered (`communities:graph`'s `ids`, in table order), in the order its row lists them. An update
 * reads this instead of every row's `entityIds` (4.2 MB of JSON on 2Wiki, about 200,000 ids to parse and look up again).
 */
export interface CommunityMembers {
  /** Community ids, in the order of `starts`. */
  communityIds: string[];
  /** How many entities the positions index (the length of the entity list they are positions in). */
  entities: number;
  /** {@link entityListDigest} of that entity list: a reader with another list of the same length cannot use the positions. */
  entityDigest: string;
  /** Community i's members are `members[starts[i]]` up to `members[starts[i + 1]]`. */
  starts: Int32Array;
  members: Int32Array;
}

/** Packs {@link CommunityMembers} into bytes for a store blob. */
export function encodeCommunityMembers(value: CommunityMembers): Uint8Array {
  if (value.starts.length !== value.communityIds.length + 1 || value.starts[value.communityIds.length] !== value.members.length) {
    throw new RangeError('encodeCommunityMembers: starts do not match the communities and members');
  }
  return packTypedArrays({ json: { version: 1, communityIds: value.communityIds, entities: value.entities, entityDigest: value.entityDigest }, arrays: { starts: value.starts, members: value.members } });
}

/** Reads what {@link encodeCommunityMembers} wrote; undefined for bytes that are not such a blob, or not a whole one. */
export function decodeCommunityMembers(bytes: Uint8Array): CommunityMembers | undefined {
  let bundle;
  try {
    bundle = unpackTypedArrays(bytes);
  } catch {
    return undefined;
  }
  const header = bundle.json as { version?: unknown; communityIds?: unknown; entities?: unknown; entityDigest?: unknown } | null;
  const { starts, members } = bundle.arrays;
  if (header?.version !== 1 || !Array.isArray(header.communityIds) || typeof header.entities !== 'number' || typeof header.entityDigest !== 'string') return undefined;
  if (!(starts instanceof Int32Array) || !(members instanceof Int32Array)) return undefined;
  const communityIds = header.communityIds as unknown[];
  if (!communityIds.every((id) => typeof id === 'string') || starts.length !== communityIds.length + 1 || starts[0] !== 0 || starts[communityIds.length] !== members.length) return undefined;
  for (let index = 0; index < communityIds.length; index++) if ((starts[index + 1] as number) < (starts[index] as number)) return undefined;
  for (const member of members) if (member < 0 || member >= header.entities) return undefined;
  return { communityIds: communityIds as string[], entities: header.entities, entityDigest: header.entityDigest, starts, members };
}

/** A digest of an entity id list, in its order: what tells whether positions in one list are positions in another. */
export function entityListDigest(entityIds: readonly string[]): string {
  return contentId('entity-list', String(entityIds.length), entityIds.join('\u0000'));
}
