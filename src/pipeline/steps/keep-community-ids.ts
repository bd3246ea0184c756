import { contentId } from '../../core/ids.js';
import { memoized } from '../../store/core/memoized.js';

/** A community of the new hierarchy, as the matching reads it. */
export interface NewCommunity {
  level: number;
  /** Node numbers, ascending; nodes are numbered in ascending id order, so these are also its ids sorted. */
  members: readonly number[];
}

/** A community the index held before the run. */
export interface PreviousCommunity {
  id: string;
  level: number;
  /** The node number of each member, −1 for a member that is no longer a node (it still counts in the community's size). */
  members: ArrayLike<number>;
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
 * (`contentId('community', level, members)` over its member ids, as a fresh build gives), made unique if an id kept
 * from an earlier run happens to equal it. Above a threshold of ½ a community can match at most one previous
 * community of its level (two disjoint sets cannot each share more than half of it), so the greedy order
 * only matters below ½.
 *
 * Members are node numbers (`nodes` of them, `idOf` naming each): the matching counts overlaps in arrays, where string
 * sets and maps of every member at every level cost 75-95 ms of a 2Wiki update.
 */
export function keepCommunityIds(next: readonly NewCommunity[], previous: readonly PreviousCommunity[], threshold: number, nodes: number, idOf: (node: number) => string): KeptCommunityIds {
  const idsOf = (community: NewCommunity): string[] => community.members.map(idOf);
  // Members as one part hash to the same bytes as the list, in one update instead of one per member. Made only for the
  // communities that need one (an id not kept, or a tie at ½ or below): an update keeps most ids.
  const contentIds = new Map<number, string>();
  const contentIdOf = (index: number): string =>
    memoized(contentIds, index, () => {
      const community = next[index] as NewCommunity;
      return contentId('community', community.level, community.members.length === 0 ? [] : [idsOf(community).join('\u0000')]);
    });
  const keptFrom = next.map(() => -1);
  const byLevel = new Map<number, number[]>();
  previous.forEach((community, index) => memoized(byLevel, community.level, () => []).push(index));
  // The previous community of each node at the level being matched, and the overlap of each with the community being matched.
  const previousOf = new Int32Array(nodes);
  const overlaps = new Int32Array(previous.length);
  const levels = new Set(next.map((community) => community.level));
  for (const level of levels) {
    previousOf.fill(-1);
    for (const index of byLevel.get(level) ?? []) {
      const members = (previous[index] as PreviousCommunity).members;
      for (let position = 0; position < members.length; position++) {
        const node = members[position] as number;
        if (node >= 0 && node < nodes) previousOf[node] = index;
      }
    }
    const taken = new Set<number>();
    // Pairs above ½ are one-to-one already (see above), so they are kept in any order; only the others are ranked.
    const ranked: Array<{ similarity: number; next: number; previous: number }> = [];
    const met: number[] = [];
    next.forEach((community, index) => {
      if (community.level !== level) return;
      for (const member of community.members) {
        const earlier = previousOf[member] as number;
        if (earlier < 0) continue;
        if (overlaps[earlier] === 0) met.push(earlier);
        overlaps[earlier] = (overlaps[earlier] as number) + 1;
      }
      // In the order first met, as the map of overlaps this replaces listed them.
      for (const earlier of met) {
        const overlap = overlaps[earlier] as number;
        overlaps[earlier] = 0;
        const similarity = overlap / (community.members.length + (previous[earlier] as PreviousCommunity).members.length - overlap);
        if (similarity < threshold) continue;
        if (similarity > 0.5) {
          keptFrom[index] = earlier;
          taken.add(earlier);
        } else {
          ranked.push({ similarity, next: index, previous: earlier });
        }
      }
      met.length = 0;
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
    return keptIds.has(id) ? contentId('community', community.level, idsOf(community), id) : id;
  });
  return { ids, keptFrom };
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
