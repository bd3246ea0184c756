import { isAllCapitals } from '../llm-graph/restore-name-casing.js';
import { prepareName } from './name-similarity.js';
import type { ResolutionEntity } from './resolution-types.js';

/**
 * The member of a cluster whose name the merged entity keeps when nobody chose one: the fullest name
 * (most words once honorifics and function words are dropped: "Sherlock Holmes" over "Mr. Holmes"), then
 * one not written in capitals, then the most frequent, then the first listed.
 */
export function chooseCanonical<T extends ResolutionEntity>(members: readonly T[]): T | undefined {
  let best: T | undefined;
  let bestRank: number[] = [];
  for (const member of members) {
    const rank = [prepareName(member.title).words.length, isAllCapitals(member.title) ? 0 : 1, member.frequency ?? 1];
    if (best === undefined || outranks(rank, bestRank)) {
      best = member;
      bestRank = rank;
    }
  }
  return best;
}

function outranks(rank: readonly number[], other: readonly number[]): boolean {
  for (let index = 0; index < rank.length; index++) {
    const difference = (rank[index] as number) - (other[index] as number);
    if (difference !== 0) return difference > 0;
  }
  return false;
}
