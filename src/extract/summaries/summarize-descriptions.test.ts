import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KgragError } from '../../core/errors.js';
import type { PromptLibrary } from '../../core/prompt-library.js';
import type { ChatRequest } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { createTokenizer } from '../../text/tokenizer.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import { summarizeAll } from './summarize-all.js';
import { summarizeDescriptions } from './summarize-descriptions.js';

const tokenizer: Tokenizer = await createTokenizer('o200k_base');

const limits = (): { maxInputTokens: number; maxWords: number; tokenizer: Tokenizer } => ({ maxInputTokens: 4000, maxWords: 500, tokenizer });

/** A short template, so small budgets hold only a few descriptions. */
const tinyPrompts: PromptLibrary = { text: () => 'Merge {entity_name} in {max_length} words: {description_list}' };

function descriptionsOf(request: ChatRequest | undefined): string[] {
  const content = request?.messages[0]?.content ?? '';
  return JSON.parse(content.slice(content.indexOf('['))) as string[];
}

describe('summarizeDescriptions', () => {
  it('returns nothing or the single description without a call', async () => {
    const model = createScriptedLanguageModel({ responses: [] });
    assert.deepEqual(await summarizeDescriptions(model, { ...limits(), name: 'Holmes', descriptions: [] }), { summary: '', calls: 0, failures: 0 });
    assert.deepEqual(await summarizeDescriptions(model, { ...limits(), name: 'Holmes', descriptions: [' A detective. ', 'A detective.', ''] }), {
      summary: 'A detective.',
      calls: 0,
      failures: 0,
    });
    assert.equal(model.calls.length, 0);
  });

  it('summarizes two or more distinct descriptions in one call, sorted and de-duplicated', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: '  Holmes is a detective who plays the violin.\n' }] });
    const result = await summarizeDescriptions(model, {
      ...limits(),
      name: 'Sherlock Holmes',
      descriptions: ['Plays the violin.', 'A detective.', 'Plays the violin.'],
    });
    assert.deepEqual(result, { summary: 'Holmes is a detective who plays the violin.', calls: 1, failures: 0 });
    const request = model.calls[0];
    assert.equal(request?.purpose, 'summarize-descriptions');
    assert.equal(request?.responseFormat, undefined, 'plain text, not JSON');
    const prompt = request?.messages[0]?.content ?? '';
    assert.match(prompt, /Entities: "Sherlock Holmes"/);
    assert.match(prompt, /Description list: \["A detective\.","Plays the violin\."\]/);
    assert.match(prompt, /at most 500 words/);
  });

  it('names both ends of a relationship', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'They share rooms.' }] });
    await summarizeDescriptions(model, { ...limits(), name: ['Sherlock Holmes', 'John Watson'], descriptions: ['Flatmates.', 'Friends.'] });
    assert.match(model.calls[0]?.messages[0]?.content ?? '', /Entities: \["Sherlock Holmes","John Watson"\]/);
  });

  it('rolls the summary through batches that fit a tiny budget', async () => {
    let round = 0;
    const model = createScriptedLanguageModel({ responses: [{ reply: () => `summary ${++round}` }] });
    const descriptions = Array.from({ length: 9 }, (_, index) => `Fact number ${index} about the detective and his cases.`);
    const maxInputTokens = 60;
    const result = await summarizeDescriptions(model, { name: 'Holmes', descriptions, maxInputTokens, maxWords: 50, tokenizer, prompts: tinyPrompts });
    assert.ok(result.calls >= 3, `${result.calls} calls`);
    assert.equal(result.summary, `summary ${result.calls}`);
    const used: string[] = [];
    model.calls.forEach((request, index) => {
      assert.ok(tokenizer.count(request.messages[0]?.content ?? '') <= maxInputTokens, `call ${index} fits the budget`);
      const items = descriptionsOf(request);
      assert.ok(items.length >= 2);
      if (index > 0) assert.equal(items[0], `summary ${index}`, 'the previous summary leads the next batch');
      used.push(...items.slice(index > 0 ? 1 : 0));
    });
    assert.deepEqual(used, [...descriptions].sort(), 'every description is used once, in sorted order');
  });

  it('cuts a description longer than the budget so that every call fits', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'merged' }] });
    const long = 'The detective '.repeat(200);
    const result = await summarizeDescriptions(model, { name: 'Holmes', descriptions: [long, 'Short.'], maxInputTokens: 80, maxWords: 50, tokenizer, prompts: tinyPrompts });
    assert.equal(result.calls, 1);
    const prompt = model.calls[0]?.messages[0]?.content ?? '';
    assert.ok(tokenizer.count(prompt) <= 80);
    assert.match(prompt, /…/);
  });

  it('keeps the joined descriptions when the reply is empty, and counts the failure', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: '   ' }] });
    const result = await summarizeDescriptions(model, { ...limits(), maxWords: 3, name: 'Holmes', descriptions: ['Plays the violin.', 'A detective.'] });
    assert.deepEqual(result, { summary: 'A detective. Plays…', calls: 1, failures: 1 });
  });

  it('rejects a budget the prompt alone exhausts, and lets provider errors through', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: new LlmCallError('Unauthorized', { code: 'LLM_AUTHENTICATION_FAILED', retryable: false }) }] });
    await assert.rejects(
      summarizeDescriptions(model, { ...limits(), maxInputTokens: 20, name: 'Holmes', descriptions: ['a', 'b'] }),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'SUMMARY_BUDGET_TOO_SMALL',
    );
    await assert.rejects(
      summarizeDescriptions(model, { ...limits(), name: 'Holmes', descriptions: ['a', 'b'] }),
      (error: unknown) => LlmCallError.isInstance(error) && error.code === 'LLM_AUTHENTICATION_FAILED',
    );
  });
});

describe('summarizeAll', () => {
  it('summarizes only items with two or more descriptions, in a bounded pool, keyed in input order', async () => {
    let inFlight = 0;
    let most = 0;
    const model = createScriptedLanguageModel({
      responses: [
        {
          reply: async (request) => {
            inFlight++;
            most = Math.max(most, inFlight);
            await new Promise((resolve) => setTimeout(resolve, 2));
            inFlight--;
            return `merged ${descriptionsOf(request).join(' + ')}`;
          },
        },
      ],
    });
    const items = [
      { key: 'e0', name: 'A', descriptions: [] },
      ...Array.from({ length: 8 }, (_, index) => ({ key: `e${index + 1}`, name: `N${index}`, descriptions: [`y${index}`, `x${index}`] })),
      { key: 'r1', name: ['A', 'B'] as const, descriptions: ['only one'] },
    ];
    const progress: number[] = [];
    const result = await summarizeAll(model, items, { ...limits(), prompts: tinyPrompts, concurrency: 3, onProgress: (done) => progress.push(done) });
    assert.equal(most, 3);
    assert.equal(result.calls, 8);
    assert.equal(result.failures, 0);
    assert.deepEqual([...result.summaries.keys()], items.map((item) => item.key));
    assert.equal(result.summaries.get('e0'), '');
    assert.equal(result.summaries.get('e3'), 'merged x2 + y2');
    assert.equal(result.summaries.get('r1'), 'only one');
    assert.deepEqual(progress, [1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
