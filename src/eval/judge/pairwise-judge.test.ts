import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../providers/llm/language-model.js';
import { llmCacheKey } from '../../providers/llm/llm-cache-key.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { judgePairs } from './pairwise-judge.js';
import { allCriteria, criterionDefinitions, renderPairwiseJudgePrompt } from './pairwise-judge-prompt.js';

const firstUser = (request: ChatRequest | undefined): string => request?.messages.find((m) => m.role === 'user')?.content ?? '';

/** Reads the two answers back out of a judge prompt, as a test judge would "see" them. */
function shownAnswers(request: ChatRequest): [string, string] {
  const match = /---Answer 1---\n\n([\s\S]*?)\n\n---Answer 2---\n\n([\s\S]*?)\n\n---End of answers---/.exec(firstUser(request));
  assert.ok(match, 'the prompt shows both answers between markers');
  return [match[1] ?? '', match[2] ?? ''];
}

const pairs = [
  { question: 'What are the main themes?', answerA: 'Short.', answerB: 'A much longer answer covering several themes.' },
  { question: 'How did policy change?', answerA: 'A long answer about policy across the decade.', answerB: 'Brief.' },
];

describe('pairwise judge prompt', () => {
  it('contains the question, both answers and the criterion with its definition', () => {
    const prompt = renderPairwiseJudgePrompt('Which topics recur?', 'diversity', 'First {answer}', 'Second answer');
    assert.match(prompt, /---Question---\n\nWhich topics recur\?/);
    assert.match(prompt, /---Answer 1---\n\nFirst \{answer\}\n/);
    assert.match(prompt, /---Answer 2---\n\nSecond answer\n/);
    assert.ok(prompt.includes(`Diversity: ${criterionDefinitions.diversity.definition}`));
    assert.match(prompt, /"winner": <1 if Answer 1 is better, 2 if Answer 2 is better, 0 for a tie>/);
    assert.match(prompt, /tie/);
    assert.doesNotMatch(prompt, /\{(criterion_name|criterion_definition|question|answer_1|answer_2)\}/);
  });

  it('defines all four GraphRAG criteria', () => {
    assert.deepEqual(allCriteria, ['comprehensiveness', 'diversity', 'empowerment', 'directness']);
    for (const criterion of allCriteria) assert.ok(criterionDefinitions[criterion].definition.length > 20);
  });
});

describe('judgePairs', () => {
  it('cancels position bias: a judge that always prefers the first answer gives 50/50', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: { reason: 'The first one reads better.', winner: 1 } }] });
    const result = await judgePairs(model, pairs);
    assert.equal(model.calls.length, pairs.length * 4 * 5 * 2);
    for (const criterion of allCriteria) {
      const tally = result.byCriterion[criterion];
      assert.equal(tally?.winRateA, 50);
      assert.equal(tally?.winRateB, 50);
      assert.equal(tally?.tieRate, 0);
      assert.equal(tally?.comparisons, 20);
      assert.equal(tally?.failures, 0);
      assert.equal(tally?.winsA, 10);
      assert.equal(tally?.winsB, 10);
    }
    const judgments = result.items[0]?.judgments ?? [];
    assert.equal(judgments.length, 40);
    assert.deepEqual(
      judgments.slice(0, 2).map(({ order, winner }) => ({ order, winner })),
      [
        { order: 'A-first', winner: 'A' },
        { order: 'B-first', winner: 'B' },
      ],
    );
  });

  it('undoes the order swap: a judge that always picks the longer answer makes it win 100 %', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        {
          reply: (request) => {
            const [first, second] = shownAnswers(request);
            return { reason: 'More content.', winner: first.length > second.length ? 1 : 2 };
          },
        },
      ],
    });
    const result = await judgePairs(model, pairs, { criteria: ['comprehensiveness'], repeats: 3 });
    assert.deepEqual(Object.keys(result.byCriterion), ['comprehensiveness']);
    // B is longer in the first pair, A in the second: each question's longer answer wins all 6 judgments.
    assert.equal(result.items[0]?.byCriterion.comprehensiveness?.winRateB, 100);
    assert.equal(result.items[1]?.byCriterion.comprehensiveness?.winRateA, 100);
    assert.equal(result.byCriterion.comprehensiveness?.winRateA, 50);

    const longerAlwaysB = await judgePairs(
      model,
      [
        { question: 'Q1?', answerA: 'x', answerB: 'xyz' },
        { question: 'Q2?', answerA: 'short', answerB: 'much longer' },
      ],
      { criteria: ['directness'], repeats: 2 },
    );
    assert.equal(longerAlwaysB.byCriterion.directness?.winRateB, 100);
    assert.equal(longerAlwaysB.byCriterion.directness?.winRateA, 0);
  });

  it('shows each order the right way round and puts the criterion in the prompt', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: { reason: 'r', winner: 0 } }] });
    await judgePairs(model, [{ question: 'Q?', answerA: 'alpha', answerB: 'beta' }], { criteria: ['empowerment'], repeats: 1 });
    assert.equal(model.calls.length, 2);
    assert.deepEqual(shownAnswers(model.calls[0]!), ['alpha', 'beta']);
    assert.deepEqual(shownAnswers(model.calls[1]!), ['beta', 'alpha']);
    for (const call of model.calls) {
      assert.match(firstUser(call), /Empowerment: /);
      assert.equal(call.purpose, 'eval-judge');
      assert.equal(call.responseFormat?.type, 'json');
    }
  });

  it('counts a tie as half a win for each side', async () => {
    let call = 0;
    // Per question and order: tie, A wins (in A/B terms), tie, tie → A: (1 + 3·½)/4 = 62.5 %, B: 37.5 %, ties 75 %.
    const verdicts = [0, 1, 0, 0];
    const model = createScriptedLanguageModel({
      responses: [
        {
          reply: (request) => {
            const winner = verdicts[call % verdicts.length] ?? 0;
            call += 1;
            const aFirst = shownAnswers(request)[0] === 'A text';
            return { reason: 'r', winner: winner === 0 ? 0 : aFirst ? 1 : 2 };
          },
        },
      ],
    });
    const result = await judgePairs(model, [{ question: 'Q?', answerA: 'A text', answerB: 'B text' }], { criteria: ['diversity'], repeats: 2, concurrency: 1 });
    const tally = result.byCriterion.diversity;
    assert.equal(tally?.winRateA, 62.5);
    assert.equal(tally?.winRateB, 37.5);
    assert.equal(tally?.tieRate, 75);
    assert.equal(tally?.ties, 3);
    assert.equal(tally?.winsA, 1);
  });

  it('weighs every question equally when averaging', async () => {
    // Question 1: A always wins. Question 2: B always wins except one failure → still 0 % for A.
    let failedOnce = false;
    const model = createScriptedLanguageModel({
      responses: [
        {
          reply: (request) => {
            const [first] = shownAnswers(request);
            const prompt = firstUser(request);
            if (prompt.includes('Q2?') && !failedOnce && request.messages.length === 1) {
              failedOnce = true;
              return 'no verdict';
            }
            if (request.messages.length > 1) return 'still no verdict';
            const aFirst = first.startsWith('A');
            const aWins = prompt.includes('Q1?');
            return { reason: 'r', winner: aWins === aFirst ? 1 : 2 };
          },
        },
      ],
    });
    const result = await judgePairs(
      model,
      [
        { question: 'Q1?', answerA: 'A1', answerB: 'B1' },
        { question: 'Q2?', answerA: 'A2', answerB: 'B2' },
      ],
      { criteria: ['directness'], repeats: 2, concurrency: 1 },
    );
    const tally = result.byCriterion.directness;
    assert.equal(tally?.failures, 1);
    assert.equal(tally?.comparisons, 8);
    assert.equal(tally?.questions, 2);
    assert.equal(tally?.winRateA, 50);
    assert.equal(tally?.winRateB, 50);
  });

  it('counts malformed verdicts as failures, reports them, and leaves them out of the denominator', async () => {
    let call = 0;
    const model = createScriptedLanguageModel({
      responses: [
        {
          reply: (request) => {
            // Odd first attempts are malformed in a way the repair does not fix; even ones pick the first answer.
            if (request.messages.length > 1) return '{"winner": "first", "reason": 3}';
            call += 1;
            if (call % 2 === 1) return call % 4 === 1 ? 'Answer 1 is clearly better.' : { winner: 3, reason: 'out of range' };
            return { reason: 'ok', winner: 1 };
          },
        },
      ],
    });
    const result = await judgePairs(model, [{ question: 'Q?', answerA: 'a', answerB: 'b' }], { criteria: ['comprehensiveness'], repeats: 2, concurrency: 1 });
    const tally = result.byCriterion.comprehensiveness;
    assert.equal(tally?.comparisons, 4);
    assert.equal(tally?.failures, 2);
    // Valid calls were the B-first ones, where "first" means B.
    assert.equal(tally?.winRateB, 100);
    assert.equal(tally?.winRateA, 0);
    const failed = result.items[0]?.judgments.filter((judgment) => judgment.winner === null) ?? [];
    assert.equal(failed.length, 2);
    for (const judgment of failed) assert.match(judgment.error ?? '', /^LLM_INVALID_OUTPUT/);
    // Each failure is the first reply plus one repair turn.
    assert.equal(model.calls.length, 2 + 2 * 2);
  });

  it('gives null rates when every verdict fails', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'not json at all' }] });
    const result = await judgePairs(model, [{ question: 'Q?', answerA: 'a', answerB: 'b' }], { criteria: ['diversity'], repeats: 1 });
    assert.deepEqual(result.byCriterion.diversity, {
      winRateA: null,
      winRateB: null,
      tieRate: null,
      comparisons: 2,
      failures: 2,
      questions: 0,
      winsA: 0,
      winsB: 0,
      ties: 0,
    });
  });

  it('varies the repeats: 5 distinct requests (and cache keys) per order, deterministic across runs', async () => {
    const run = async (): Promise<ChatRequest[]> => {
      const model = createScriptedLanguageModel({ responses: [{ reply: { reason: 'r', winner: 0 } }] });
      await judgePairs(model, [{ question: 'Q?', answerA: 'a', answerB: 'b' }], { criteria: ['directness'], seed: 7 });
      return [...model.calls];
    };
    const calls = await run();
    assert.equal(calls.length, 10);
    const model = { provider: 'scripted', modelId: 'scripted-model' };
    for (const shownFirst of ['a', 'b']) {
      const ofOrder = calls.filter((call) => shownAnswers(call)[0] === shownFirst);
      assert.equal(ofOrder.length, 5);
      assert.equal(new Set(ofOrder.map((call) => llmCacheKey(model, call))).size, 5);
      assert.deepEqual(
        ofOrder.map((call) => call.seed),
        [7, 8, 9, 10, 11],
      );
      assert.ok(ofOrder.every((call) => call.temperature === 1));
    }
    const again = await run();
    assert.deepEqual(
      again.map((call) => llmCacheKey(model, call)),
      calls.map((call) => llmCacheKey(model, call)),
    );
  });

  it('rejects invalid options', async () => {
    const model = createScriptedLanguageModel({ responses: [] });
    await assert.rejects(judgePairs(model, pairs, { repeats: 0 }), { code: 'EVAL_INVALID_OPTIONS' });
    await assert.rejects(judgePairs(model, pairs, { criteria: [] }), { code: 'EVAL_INVALID_OPTIONS' });
    await assert.rejects(judgePairs(model, pairs, { criteria: ['fluency' as 'diversity'] }), { code: 'EVAL_INVALID_OPTIONS' });
  });
});
