import { roundToTotal } from '../round-to-total.js';
import type { PairwiseTally } from './pairwise-judge.js';

/** One criterion's row of the judge table: shares of the valid judgments, each with one decimal. */
export interface JudgeTablePercentages {
  /** Judgments A won outright, B won outright, and ties: together exactly 100.0. */
  winsA: number;
  winsB: number;
  ties: number;
  /** GraphRAG's win rate of A, a tie counting half (`winRateA`), with one decimal. */
  scoreA: number;
}

/**
 * The percentages the judge table shows for one tally, or null when no judgment succeeded. Wins of A, wins
 * of B and ties are question-weighted shares like the tally's rates (`winRateA − tieRate/2`, …) and are
 * rounded together so that the row sums to 100.0.
 */
export function judgeTablePercentages(tally: PairwiseTally): JudgeTablePercentages | null {
  if (tally.winRateA === null || tally.winRateB === null || tally.tieRate === null) return null;
  const half = tally.tieRate / 2;
  const [winsA = 0, winsB = 0, ties = 0] = roundToTotal([Math.max(0, tally.winRateA - half), Math.max(0, tally.winRateB - half), tally.tieRate], 100, 1);
  return { winsA, winsB, ties, scoreA: Math.round(tally.winRateA * 10) / 10 };
}
