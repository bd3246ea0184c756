import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { judgeTablePercentages } from './judge-table-percentages.js';
import { judgePairs } from './pairwise-judge.js';

const tenths = (values: readonly number[]): number => values.reduce((sum, value) => sum + Math.round(value * 10), 0);

describe('judgeTablePercentages', () => {
  it('shows wins, losses and ties that sum to 100.0 where one decimal each gave 99.9', async () => {
    // One question A wins, one B wins, one is a tie (in both orders): each a third of the questions.
    const items = [
      { question: 'q-a', answerA: 'A is better', answerB: 'b' },
      { question: 'q-b', answerA: 'a', answerB: 'B is better' },
      { question: 'q-tie', answerA: 'same', answerB: 'same' },
    ];
    const model = createScriptedLanguageModel({
      responses: [
        { match: /A is better/, reply: (request) => ({ reason: 'A', winner: /---Answer 1---\n\nA is better/.test(request.messages[0]?.content ?? '') ? 1 : 2 }) },
        { match: /B is better/, reply: (request) => ({ reason: 'B', winner: /---Answer 1---\n\nB is better/.test(request.messages[0]?.content ?? '') ? 1 : 2 }) },
        { reply: { reason: 'equal', winner: 0 } },
      ],
    });
    const { byCriterion } = await judgePairs(model, items, { criteria: ['comprehensiveness'], repeats: 1 });
    const tally = byCriterion.comprehensiveness;
    assert.ok(tally);
    assert.deepEqual([tally.winsA, tally.winsB, tally.ties], [2, 2, 2]);
    const { winRateA, winRateB, tieRate } = tally;
    assert.ok(winRateA !== null && winRateB !== null && tieRate !== null);
    const separately = [winRateA - tieRate / 2, winRateB - tieRate / 2, tieRate].map((value) => Number(value.toFixed(1)));
    assert.equal(tenths(separately), 999, 'each share rounded alone: 33.3 + 33.3 + 33.3');
    const shares = judgeTablePercentages(tally);
    assert.ok(shares);
    assert.equal(tenths([shares.winsA, shares.winsB, shares.ties]), 1000);
    assert.deepEqual([shares.winsA, shares.winsB, shares.ties], [33.4, 33.3, 33.3]);
    assert.equal(shares.scoreA, 50, 'the tie counts half: GraphRAG win rate');
  });

  it('is null when no judgment succeeded', () => {
    assert.equal(judgeTablePercentages({ winRateA: null, winRateB: null, tieRate: null, comparisons: 2, failures: 2, questions: 0, winsA: 0, winsB: 0, ties: 0 }), null);
  });
});
