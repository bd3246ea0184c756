import { contentId } from '../../core/ids.js';
import { memoized } from '../../store/core/memoized.js';

/** A community of the new hierarchy, as the matching reads it. */
export interface NewCommunity {
  level: number;
  /** Entity ids, sorted. */
  members: readonly string[];
}

/** A community the index held before the run. */
export interface PreviousCommunity {
  id: string;
  level: number;
  entityIds: readonly string[];
}

/** Ids of the new communities and which previous community each one continues. */
export interface KeptCommunityIds {
  /** Id of each new community, in the order given. */
  ids: string[];
  /** For each new community, the index of the previous community whose id it kept, or −1. */
  keptFrom: number[];
}

/**
 * The id rule of incremental clustering: a new community keeps the id of a previous community of the same
 * level when the Jaccard similarity of their member sets, |A ∩ B| / |A ∪ B|, is at least `threshold`
 * (`communities.keepIdJaccard`). Matching is one-to-one per level and greedy, best similarity first; equal
 * similarities go to the new community with the smaller content id, then to the previous community with
 * the smaller id, so the outcome does not depend on list order. Every other community gets its content id
 * (`contentId('community', level, members)`, as a fresh build gives), made unique if an id kept from an
 * earlier run happens to equal it. Above a threshold of ½ a community can match at most one previous
 * community of its level (two disjoint sets cannot each share more than half of it), so the greedy order
 * only matters below ½.
 */
export function keepCommunityIds(next: readonly NewCommunity[], previous: readonly PreviousCommunity[], threshold: number): KeptCommunityIds {
  // Members as one part hash to the same bytes as the list, in one update instead of one per member. Made only for the
  // communities that need one (an id not kept, or a tie at ½ or below): an update keeps most ids.
  const contentIds = new Map<number, string>();
  const contentIdOf = (index: number): string =>
    memoized(contentIds, index, () => {
      const community = next[index] as NewCommunity;
      return contentId('community', community.level, community.members.length === 0 ? [] : [community.members.join('\u0000')]);
    });
  const previousSizes = previous.map((community) => new Set(community.entityIds).size);
  const keptFrom = next.map(() => -1);
  const levels = new Set(next.map((community) => community.level));
  for (const level of levels) {
    const before = previous.flatMap((community, index) => (community.level === level ? [index] : []));
    const previousOf = new Map<string, number>();
    for (const index of before) for (const entity of (previous[index] as PreviousCommunity).entityIds) previousOf.set(entity, index);
    const taken = new Set<number>();
    // Pairs above ½ are one-to-one already (see above), so they are kept in any order; only the others are ranked.
    const ranked: Array<{ similarity: number; next: number; previous: number }> = [];
    next.forEach((community, index) => {
      if (community.level !== level) return;
      const shared = new Map<number, number>();
      for (const member of community.members) {
        const earlier = previousOf.get(member);
        if (earlier !== undefined) shared.set(earlier, (shared.get(earlier) ?? 0) + 1);
      }
      for (const [earlier, overlap] of shared) {
        const similarity = overlap / (community.members.length + (previousSizes[earlier] as number) - overlap);
        if (similarity < threshold) continue;
        if (similarity > 0.5) {
          keptFrom[index] = earlier;
          taken.add(earlier);
        } else {
          ranked.push({ similarity, next: index, previous: earlier });
        }
      }
    });
    ranked.sort(
      (left, right) =>
        right.similarity - left.similarity ||
        compare(contentIdOf(left.next), contentIdOf(right.next)) ||
        compare((previous[left.previous] as PreviousCommunity).id, (previous[right.previous] as PreviousCommunity).id),
    );
    for (const candidate of ranked) {
      if (keptFrom[candidate.next] !== -1 || taken.has(candidate.previous)) continue;
      keptFrom[candidate.next] = candidate.previous;
      taken.add(candidate.previous);
    }
  }
  const keptIds = new Set(keptFrom.flatMap((earlier) => (earlier < 0 ? [] : [(previous[earlier] as PreviousCommunity).id])));
  const ids = next.map((community, index) => {
    const earlier = keptFrom[index] as number;
    if (earlier >= 0) return (previous[earlier] as PreviousCommunity).id;
    const id = contentIdOf(index);
    return keptIds.has(id) ? contentId('community', community.level, community.members, id) : id;
  });
  return { ids, keptFrom };
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
