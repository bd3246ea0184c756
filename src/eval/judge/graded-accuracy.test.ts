import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { gradeAnswers } from './graded-accuracy.js';
import { gradeReaskMessage, renderGradedAccuracyPrompt } from './graded-accuracy-prompt.js';
import { parseStrictGrade } from './parse-strict-grade.js';

const item = { question: 'Who wrote Hamlet?', answers: ['William Shakespeare', 'Shakespeare'], prediction: 'Shakespeare {sic}' };
const lastUser = (request: ChatRequest | undefined): string => [...(request?.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';

describe('graded-accuracy prompt', () => {
  it('contains the question, every gold answer, the prediction, the three examples and the reply rule', () => {
    const prompt = renderGradedAccuracyPrompt(item.question, item.answers, item.prediction);
    assert.match(prompt, /Question: Who wrote Hamlet\?/);
    assert.match(prompt, /Answer: any one of "William Shakespeare", "Shakespeare"/);
    assert.match(prompt, /Prediction: Shakespeare \{sic\}/);
    assert.match(prompt, /Marvel Comics[\s\S]*Walt Disney[\s\S]*Grade: 1/);
    assert.match(prompt, /Prediction: Magdalen College\.\nGrade: 1/);
    assert.match(prompt, /Answer: 1939\nPrediction: 1200\nGrade: 0/);
    assert.match(prompt, /one number, 0 or 1/);
    assert.doesNotMatch(prompt, /\{(question|answer|prediction)\}/);
  });

  it('shows a single gold answer as it is', () => {
    assert.match(renderGradedAccuracyPrompt('Q?', ['Paris'], 'paris'), /\nAnswer: Paris\n/);
  });
});

describe('parseStrictGrade', () => {
  const table: ReadonlyArray<readonly [string, 0 | 1 | null]> = [
    ['1', 1],
    ['0', 0],
    ['  1\n', 1],
    ['1.', 1],
    ['"1"', 1],
    ["'0'", 0],
    ['“1”', 1],
    ['**1**', 1],
    ['*0*', 0],
    ['`1`', 1],
    ['```\n1\n```', 1],
    ['```text\n0\n```', 0],
    ['**1.**', 1],
    ['"1".', 1],
    ['1 because the prediction names the same person', null],
    ['The answer is 1', null],
    ['Grade: 1', null],
    ['yes', null],
    ['', null],
    ['   ', null],
    ['10', null],
    ['1.0', null],
    ['0 or 1', null],
    ['"1', null],
    ['2', null],
  ];
  for (const [reply, expected] of table) {
    it(`${JSON.stringify(reply)} → ${expected === null ? 'failure' : expected}`, () => {
      assert.equal(parseStrictGrade(reply), expected);
    });
  }
});

describe('gradeAnswers', () => {
  it('grades at temperature 0 with purpose eval-grade and computes accuracy over all items', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { match: 'Prediction: right', reply: '1' },
        { match: 'Prediction: wrong', reply: '0' },
      ],
    });
    const items = [
      { question: 'Q1?', answers: ['A'], prediction: 'right' },
      { question: 'Q2?', answers: ['A'], prediction: 'wrong' },
      { question: 'Q3?', answers: ['A'], prediction: 'right' },
      { question: 'Q4?', answers: ['A'], prediction: 'right' },
    ];
    const result = await gradeAnswers(model, items);
    assert.equal(result.accuracy, 75);
    assert.equal(result.correct, 3);
    assert.equal(result.incorrect, 1);
    assert.equal(result.failures, 0);
    assert.equal(result.failureRate, 0);
    assert.deepEqual(result.items.map((graded) => graded.grade), [1, 0, 1, 1]);
    assert.equal(model.calls.length, 4);
    for (const call of model.calls) {
      assert.equal(call.temperature, 0);
      assert.equal(call.purpose, 'eval-grade');
    }
  });

  it('re-asks once with a corrective turn and accepts a valid second reply', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { match: gradeReaskMessage, reply: '1' },
        { reply: 'The prediction is correct, so 1.' },
      ],
    });
    const result = await gradeAnswers(model, [item]);
    assert.equal(result.accuracy, 100);
    assert.equal(result.failures, 0);
    assert.deepEqual(result.items[0], { grade: 1, raw: '1', replies: ['The prediction is correct, so 1.', '1'] });
    assert.equal(model.calls.length, 2);
    const reask = model.calls[1]?.messages ?? [];
    assert.equal(reask.length, 3);
    assert.equal(reask[1]?.role, 'assistant');
    assert.equal(reask[1]?.content, 'The prediction is correct, so 1.');
    assert.equal(lastUser(model.calls[1]), gradeReaskMessage);
  });

  it('counts a reply that stays unreadable after the re-ask as a failure, kept in the denominator', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { match: 'Prediction: good', reply: '1' },
        { match: 'Prediction: chatty', reply: 'yes' },
        { match: gradeReaskMessage, reply: '1 because it matches' },
      ],
    });
    const items = [
      { question: 'Q1?', answers: ['A'], prediction: 'good' },
      { question: 'Q2?', answers: ['A'], prediction: 'chatty' },
    ];
    const result = await gradeAnswers(model, items);
    assert.equal(result.correct, 1);
    assert.equal(result.incorrect, 0);
    assert.equal(result.failures, 1);
    // KGP would report 100 % here ('1' in grade, failures dropped); the failure counts as incorrect.
    assert.equal(result.accuracy, 50);
    assert.equal(result.failureRate, 50);
    const failed = result.items[1];
    assert.equal(failed?.grade, null);
    assert.equal(failed?.raw, '1 because it matches');
    assert.deepEqual(failed?.replies, ['yes', '1 because it matches']);
    assert.match(failed?.error ?? '', /not exactly 0 or 1/);
    assert.equal(model.calls.length, 3);
  });

  it('never re-asks more than once', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: '' }] });
    const result = await gradeAnswers(model, [item]);
    assert.equal(model.calls.length, 2);
    assert.equal(result.failures, 1);
    assert.equal(result.accuracy, 0);
  });

  it('records call errors about one item as failures and rethrows errors that would fail every item', async () => {
    const tooLong = new LlmCallError('prompt too long', { code: 'LLM_CONTEXT_LENGTH_EXCEEDED', retryable: false });
    const model = createScriptedLanguageModel({ responses: [{ match: 'Prediction: long', reply: tooLong }, { reply: '1' }] });
    const result = await gradeAnswers(model, [
      { question: 'Q?', answers: ['A'], prediction: 'long' },
      { question: 'Q?', answers: ['A'], prediction: 'short' },
    ]);
    assert.equal(result.failures, 1);
    assert.equal(result.accuracy, 50);
    assert.match(result.items[0]?.error ?? '', /^LLM_CONTEXT_LENGTH_EXCEEDED/);

    const denied = new LlmCallError('bad key', { code: 'LLM_AUTHENTICATION_FAILED', retryable: false });
    const broken = createScriptedLanguageModel({ responses: [{ reply: denied }] });
    await assert.rejects(gradeAnswers(broken, [item]), (error: unknown) => LlmCallError.isInstance(error) && error.code === 'LLM_AUTHENTICATION_FAILED');
  });

  it('counts items without a gold answer as failures without calling the model', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: '1' }] });
    const result = await gradeAnswers(model, [{ question: 'Q?', answers: ['  '], prediction: 'x' }, item]);
    assert.equal(model.calls.length, 1);
    assert.equal(result.failures, 1);
    assert.equal(result.accuracy, 50);
  });

  it('reports null rates for no items', async () => {
    const model = createScriptedLanguageModel({ responses: [] });
    const result = await gradeAnswers(model, []);
    assert.equal(result.accuracy, null);
    assert.equal(result.failureRate, null);
    assert.deepEqual(result.items, []);
  });

  it('keeps at most `concurrency` calls in flight and returns grades in input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const model = createScriptedLanguageModel({
      responses: [
        {
          reply: async (request) => {
            inFlight += 1;
            peak = Math.max(peak, inFlight);
            await new Promise((resolve) => setTimeout(resolve, 2));
            inFlight -= 1;
            return /Prediction: p\d*[02468]\n/.test(lastUser(request)) ? '1' : '0';
          },
        },
      ],
    });
    const items = Array.from({ length: 20 }, (_unused, index) => ({ question: `Q${index}?`, answers: ['A'], prediction: `p${index}` }));
    const result = await gradeAnswers(model, items, { concurrency: 3 });
    assert.equal(peak, 3);
    assert.deepEqual(
      result.items.map((graded) => graded.grade),
      items.map((_unused, index) => (index % 2 === 0 ? 1 : 0)),
    );
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const model = createScriptedLanguageModel({ responses: [{ reply: '1' }] });
    await assert.rejects(gradeAnswers(model, [item], { abortSignal: controller.signal }), /stop/);
    assert.equal(model.calls.length, 0);
  });
});
