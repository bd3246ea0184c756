import type { EvalJudgePair, EvalJudgeTally } from './eval-report';

/**
 * Rounds shares to one decimal so that they sum to exactly 100 (largest remainder, ties to the earlier value), as
 * src/eval/round-to-total.ts does for the markdown report, so both show the same numbers.
 */
function roundToHundred(values: readonly number[]): number[] {
  const scaled = values.map((value) => value * 10);
  const floors = scaled.map((value) => Math.floor(value + 1e-9));
  let missing = 1000 - floors.reduce((sum, value) => sum + value, 0);
  const order = scaled
    .map((value, index) => ({ index, remainder: Math.round((value - (floors[index] ?? 0)) * 1e6) / 1e6 }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (let position = 0; missing > 0 && order.length > 0; position = (position + 1) % order.length, missing -= 1) {
    const index = order[position]?.index ?? 0;
    floors[index] = (floors[index] ?? 0) + 1;
  }
  for (let position = order.length - 1; missing < 0 && order.length > 0; position = (position - 1 + order.length) % order.length) {
    const index = order[position]?.index ?? 0;
    if ((floors[index] ?? 0) > 0) {
      floors[index] = (floors[index] ?? 0) - 1;
      missing += 1;
    }
  }
  return floors.map((value) => value / 10);
}

/** Wins of A, of B and ties (shares of valid judgments, summing to 100) and A's win rate, or null when none was valid. */
function shares(tally: EvalJudgeTally): { winsA: number; winsB: number; ties: number; scoreA: number } | null {
  if (tally.winRateA === null || tally.winRateB === null || tally.tieRate === null) return null;
  const half = tally.tieRate / 2;
  const [winsA = 0, winsB = 0, ties = 0] = roundToHundred([Math.max(0, tally.winRateA - half), Math.max(0, tally.winRateB - half), tally.tieRate]);
  return { winsA, winsB, ties, scoreA: Math.round(tally.winRateA * 10) / 10 };
}

const cell = (value: number | undefined): string => (value === undefined ? '–' : value.toFixed(1));

/** The pairwise LLM judge's table of one pair of methods, as the markdown report shows it. */
export function EvalJudgeTable({ pair }: { pair: EvalJudgePair }) {
  return (
    <section class="eval-judge" data-testid="eval-judge">
      <h3>Pairwise judge: {pair.pair}</h3>
      <table class="eval-table">
        <thead>
          <tr>
            <th scope="col">criterion</th>
            <th scope="col" class="num">{pair.first} wins %</th>
            <th scope="col" class="num">{pair.second} wins %</th>
            <th scope="col" class="num">ties %</th>
            <th scope="col" class="num">{pair.first} win rate %</th>
            <th scope="col" class="num">comparisons</th>
            <th scope="col" class="num">failures</th>
          </tr>
        </thead>
        <tbody>
          {pair.tallies.map((tally) => {
            const row = shares(tally) ?? undefined;
            return (
              <tr>
                <th scope="row">{tally.criterion}</th>
                <td class="num">{cell(row?.winsA)}</td>
                <td class="num">{cell(row?.winsB)}</td>
                <td class="num">{cell(row?.ties)}</td>
                <td class="num">{cell(row?.scoreA)}</td>
                <td class="num">{tally.comparisons}</td>
                <td class="num">{tally.failures}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p class="muted">
        Each comparison judged in both answer orders; wins and ties are shares of the valid judgments (each question weighs the same) and sum to 100. The win
        rate counts a tie half to each side (GraphRAG, arXiv 2404.16130 §3.4); {pair.second}'s is 100 minus {pair.first}'s.
      </p>
    </section>
  );
}
