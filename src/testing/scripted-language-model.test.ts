import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KgragError } from '../core/errors.js';
import type { ChatStreamPart } from '../providers/llm/language-model.js';
import { createScriptedLanguageModel } from './scripted-language-model.js';

const user = (content: string) => ({ messages: [{ role: 'system' as const, content: 'sys' }, { role: 'user' as const, content }] });

describe('createScriptedLanguageModel', () => {
  it('answers with the first matching entry: substring, RegExp, predicate', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { match: 'entities', reply: { entities: [] } },
        { match: /^summar/i, reply: 'summary' },
        { match: (request) => request.purpose === 'rate', reply: (request) => `rated ${request.messages.length}` },
        { reply: 'catch-all' },
      ],
    });
    assert.equal((await model.generate(user('Extract entities now'))).text, '{"entities":[]}');
    assert.equal((await model.generate(user('Summarize this'))).text, 'summary');
    assert.equal((await model.generate({ ...user('x'), purpose: 'rate' })).text, 'rated 2');
    assert.equal((await model.generate(user('anything'))).text, 'catch-all');
  });

  it('matches against the last user message only', async () => {
    const model = createScriptedLanguageModel({ responses: [{ match: 'needle', reply: 'found' }], fallback: 'fallback' });
    const request = { messages: [{ role: 'user' as const, content: 'needle' }, { role: 'assistant' as const, content: 'needle' }, { role: 'user' as const, content: 'hay' }] };
    assert.equal((await model.generate(request)).text, 'fallback');
  });

  it('uses an entry up to `times`, then moves on', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'first', times: 2 }, { reply: 'then' }] });
    const texts = [];
    for (let call = 0; call < 4; call += 1) texts.push((await model.generate(user('q'))).text);
    assert.deepEqual(texts, ['first', 'first', 'then', 'then']);
  });

  it('records every call and estimates usage', async () => {
    const model = createScriptedLanguageModel({ modelId: 'fake-4', responses: [{ reply: 'twelve chars' }] });
    const result = await model.generate({ ...user('hello'), purpose: 'test' });
    assert.equal(model.calls.length, 1);
    assert.equal(model.calls[0]?.purpose, 'test');
    assert.equal(result.modelId, 'fake-4');
    assert.equal(model.provider, 'scripted');
    assert.deepEqual(result.usage, { inputTokens: 3 + 4 + 1 + 4 + 2, outputTokens: 3, estimated: true });
  });

  it('throws a clear error listing the last user message when nothing matches', async () => {
    const model = createScriptedLanguageModel({ responses: [{ match: 'other', reply: 'x' }] });
    const error = await model.generate(user('What is a knowledge graph?')).catch((caught: unknown) => caught);
    assert.ok(KgragError.isInstance(error));
    assert.equal(error.code, 'SCRIPTED_LLM_NO_MATCH');
    assert.match(error.message, /What is a knowledge graph\?/);
    assert.equal(model.calls.length, 1);
  });

  it('throws scripted Error replies', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: new RangeError('scripted failure') }] });
    await assert.rejects(model.generate(user('q')), RangeError);
  });

  it('streams the reply as a few deltas and a finish part', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'a reply long enough to split' }] });
    const parts: ChatStreamPart[] = [];
    for await (const part of model.stream(user('q'))) parts.push(part);
    const deltas = parts.filter((part) => part.type === 'text-delta');
    assert.equal(deltas.length, 3);
    assert.equal(deltas.map((part) => (part.type === 'text-delta' ? part.text : '')).join(''), 'a reply long enough to split');
    const finish = parts.at(-1);
    assert.ok(finish?.type === 'finish' && finish.result.text === 'a reply long enough to split');
  });
});
