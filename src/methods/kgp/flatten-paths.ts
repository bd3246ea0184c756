import { maxOf } from '../../core/max-of.js';
import type { OneHopPath, ScoredPassage } from './one-hop-traversal.js';

/** A passage of the flattened ranking, with the path step that placed it. */
export interface RankedPathPassage extends ScoredPassage {
  /** The seed whose path holds it; itself for a seed. */
  seed: number;
  /** 0 for a seed, n for the seed's n-th best neighbour. */
  neighbourRank: number;
  kinds: number;
}

/**
 * Flattens reasoning paths into distinct passages: each seed followed by its best neighbour, in seed
 * order, then every seed's second neighbours, then the third ones, until `budget`. The release hands the
 * reader its 30 (seed, neighbour) pairs grouped by seed; flattened in that order a third of the first ten
 * places would go to the first seed's neighbours before the second seed, so the same pairs are ordered by
 * neighbour rank first. A passage reached twice keeps its first place.
 */
export function flattenPaths(paths: readonly OneHopPath[], budget: number): RankedPathPassage[] {
  const ranked: RankedPathPassage[] = [];
  const seen = new Set<number>();
  const add = (item: RankedPathPassage): void => {
    if (ranked.length >= budget || seen.has(item.passage)) return;
    seen.add(item.passage);
    ranked.push(item);
  };
  for (const path of paths) {
    add({ ...path.seed, seed: path.seed.passage, neighbourRank: 0, kinds: 0 });
    const first = path.neighbours[0];
    if (first) add({ passage: first.passage, score: first.score, seed: path.seed.passage, neighbourRank: 1, kinds: first.kinds });
  }
  const deepest = Math.max(0, maxOf(paths.map((path) => path.neighbours.length)));
  for (let rank = 1; rank < deepest; rank++) {
    for (const path of paths) {
      const neighbour = path.neighbours[rank];
      if (neighbour) add({ passage: neighbour.passage, score: neighbour.score, seed: path.seed.passage, neighbourRank: rank + 1, kinds: neighbour.kinds });
    }
  }
  return ranked;
}
