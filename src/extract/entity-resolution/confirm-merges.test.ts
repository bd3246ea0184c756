import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PromptLibrary } from '../../core/prompt-library.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { confirmMerges } from './confirm-merges.js';
import { mergesWithoutLlm } from './merges-without-llm.js';
import { resolutionGroupKey } from './resolution-group-key.js';
import type { ResolutionEntity } from './resolution-types.js';

const entities: ResolutionEntity[] = [
  { id: 'sherlock', title: 'Sherlock Holmes', type: 'person', aliases: ['Sherlock'], description: 'A consulting detective.', frequency: 9 },
  { id: 'holmes', title: 'Holmes', type: 'person', aliases: [], description: 'The detective of Baker Street.', frequency: 12 },
  { id: 'mr-holmes', title: 'Mr. Holmes', type: 'person', aliases: [], description: 'Addressed by his clients.', frequency: 2 },
  { id: 'mycroft', title: 'Mycroft Holmes', type: 'person', aliases: [], description: "Sherlock's elder brother.", frequency: 3 },
  { id: 'mycroft-2', title: 'Mycroft', type: 'person', aliases: [], description: 'Works for the government.', frequency: 1 },
  { id: 'dr-watson', title: 'Dr. Watson', type: 'person', aliases: [], description: 'The narrator.', frequency: 4 },
  { id: 'john-watson', title: 'John Watson', type: 'person', aliases: [], description: 'An army doctor.', frequency: 6 },
];
const byId = new Map(entities.map((entity) => [entity.id, entity]));
const holmesGroup = ['sherlock', 'holmes', 'mr-holmes', 'mycroft', 'mycroft-2'];
const watsonGroup = ['dr-watson', 'john-watson'];

describe('confirmMerges', () => {
  it('asks once per group with numbered records and reads several clusters', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { match: '"Mycroft" (person)', reply: { clusters: [{ ids: [1, 2, 3], canonical: 1 }, { ids: ['4', 5] }] } },
        { match: '"John Watson" (person)', reply: { clusters: [{ ids: [1, 2], canonical: 2, note: 'same doctor' }] } },
      ],
    });
    const result = await confirmMerges(model, [holmesGroup, watsonGroup], byId);
    assert.deepEqual(result.merges, [
      { canonical: 'sherlock', members: ['sherlock', 'holmes', 'mr-holmes'] },
      { canonical: 'mycroft', members: ['mycroft', 'mycroft-2'] },
      { canonical: 'john-watson', members: ['dr-watson', 'john-watson'] },
    ]);
    assert.deepEqual(result.undecided, []);
    assert.equal(result.ignoredIds, 0);
    assert.equal(result.calls, 2);
    assert.equal(model.calls[0]?.purpose, 'resolve-entities');
    const prompt = model.calls[0]?.messages[0]?.content ?? '';
    assert.match(prompt, /^1\. "Sherlock Holmes" \(person, also called "Sherlock"\): A consulting detective\.$/m);
    assert.match(prompt, /^5\. "Mycroft" \(person\): Works for the government\.$/m);
    assert.doesNotMatch(prompt, /\{entities\}/);
  });

  it('ignores and counts unknown ids, repeated records and a canonical outside its cluster', async () => {
    const model = createScriptedLanguageModel({
      responses: [{ reply: { clusters: [{ ids: [2, 9, 1, 'x'], canonical: 4 }, { ids: [1, 3] }, { ids: [4, 5, 0] }] } }],
    });
    const result = await confirmMerges(model, [holmesGroup], byId);
    assert.deepEqual(result.merges, [
      { canonical: 'sherlock', members: ['sherlock', 'holmes'] },
      { canonical: 'mycroft', members: ['mycroft', 'mycroft-2'] },
    ]);
    // 9, 'x', canonical 4, the repeated 1 and 0.
    assert.equal(result.ignoredIds, 5);
  });

  it('merges nothing for a group whose reply stays invalid after the repair, and lists it as undecided', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { match: (request) => request.messages[0]?.content.includes('"Mycroft" (person)') === true, reply: 'They are all the same person, I think.' },
        { match: '"John Watson" (person)', reply: { clusters: [{ ids: [1, 2] }] } },
      ],
    });
    const result = await confirmMerges(model, [holmesGroup, watsonGroup], byId);
    assert.deepEqual(result.merges, [{ canonical: 'john-watson', members: ['dr-watson', 'john-watson'] }]);
    assert.deepEqual(result.undecided, [resolutionGroupKey(holmesGroup)]);
    assert.equal(result.calls, 3);
  });

  it('asks again about the groups an earlier run could not decide, past the LLM cache that holds their unusable replies', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: { clusters: [{ ids: [1, 2] }] } }] });
    // The keys of a group do not depend on the order of its ids.
    const askAgain = new Set([resolutionGroupKey([...watsonGroup].reverse())]);
    const result = await confirmMerges(model, [holmesGroup, watsonGroup], byId, { askAgain, concurrency: 1 });
    assert.deepEqual(result.undecided, []);
    assert.deepEqual(model.calls.map((call) => call.refreshCache === true), [false, true]);
  });

  it('lets provider errors propagate', async () => {
    const model = createScriptedLanguageModel({
      responses: [{ reply: new LlmCallError('Rate limited after 5 attempts', { code: 'LLM_RETRIES_EXHAUSTED', retryable: false }) }],
    });
    await assert.rejects(confirmMerges(model, [watsonGroup], byId), (error: unknown) => LlmCallError.isInstance(error) && error.code === 'LLM_RETRIES_EXHAUSTED');
  });

  it('keeps at most `concurrency` calls in flight, uses prompt overrides, and skips groups left with one known id', async () => {
    let inFlight = 0;
    let most = 0;
    const model = createScriptedLanguageModel({
      responses: [
        {
          reply: async () => {
            inFlight++;
            most = Math.max(most, inFlight);
            await new Promise((resolve) => setTimeout(resolve, 2));
            inFlight--;
            return { clusters: [] };
          },
        },
      ],
    });
    const prompts: PromptLibrary = { text: () => 'Custom: {entities}' };
    const groups = Array.from({ length: 7 }, () => watsonGroup);
    const result = await confirmMerges(model, [...groups, ['dr-watson', 'unknown']], byId, { concurrency: 2, prompts });
    assert.equal(most, 2);
    assert.equal(model.calls.length, 7);
    assert.match(model.calls[0]?.messages[0]?.content ?? '', /^Custom: 1\. "Dr\. Watson"/);
    assert.deepEqual(result.merges, []);
  });
});

describe('mergesWithoutLlm', () => {
  const unit = (values: readonly number[]): Float32Array => {
    const norm = Math.hypot(...values);
    return Float32Array.from(values, (value) => value / norm);
  };

  it('merges the same name behind an honorific, but not contained names without vectors', () => {
    const merges = mergesWithoutLlm([holmesGroup, watsonGroup], byId, new Map());
    assert.deepEqual(merges, [{ canonical: 'holmes', members: ['holmes', 'mr-holmes'] }]);
  });

  it('merges a contained name with a near-identical vector, never both brothers', () => {
    const vectors = new Map([
      ['sherlock', unit([1, 0, 0])],
      ['holmes', unit([1, 0.1, 0])],
      ['mr-holmes', unit([1, 0.12, 0])],
      ['mycroft', unit([1, 0.25, 0])],
      ['mycroft-2', unit([0.2, 1, 0])],
    ]);
    const merges = mergesWithoutLlm([holmesGroup], byId, vectors);
    assert.equal(merges.length, 1);
    assert.equal(merges[0]?.canonical, 'sherlock');
    assert.deepEqual(merges[0]?.members, ['sherlock', 'holmes', 'mr-holmes']);
  });

  it('never merges Mr. and Mrs., nor different types', () => {
    const people = new Map<string, ResolutionEntity>([
      ['a', { id: 'a', title: 'Mr. Hudson', type: 'person', aliases: [], description: '' }],
      ['b', { id: 'b', title: 'Mrs. Hudson', type: 'person', aliases: [], description: '' }],
      ['c', { id: 'c', title: 'Hudson', type: 'geo', aliases: [], description: '' }],
    ]);
    assert.deepEqual(mergesWithoutLlm([['a', 'b', 'c']], people, new Map()), []);
  });
});
