import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createScriptedLanguageModel } from '../testing/scripted-language-model.js';
import type { CitableRecord, GenerateAnswerOptions } from './generate-answer.js';
import { generateAnswer } from './generate-answer.js';

const record = (hid: number): CitableRecord => ({ id: `chunk-${hid}`, title: `Document ${hid}`, source: `docs/${hid}.md` });
const sources = new Map([2, 5, 7].map((hid) => [hid, record(hid)]));

function options(reply: string, extra: Partial<GenerateAnswerOptions> = {}): GenerateAnswerOptions {
  const model = createScriptedLanguageModel({ responses: [{ match: 'When was the weir rebuilt?', reply }] });
  return { model, systemPrompt: 'Answer from the Sources table.', question: 'When was the weir rebuilt?', citable: { Sources: sources }, ...extra };
}

describe('generateAnswer', () => {
  test('maps [Data: Sources (2, 5)] to the cited records', async () => {
    const result = await generateAnswer(options('The weir was rebuilt in 1954 [Data: Sources (2, 5)].'));
    assert.deepEqual(result.answer, { text: 'The weir was rebuilt in 1954 [Data: Sources (2, 5)].', kind: 'generated' });
    assert.deepEqual(result.citations, [
      { dataset: 'Sources', hid: 2, id: 'chunk-2', title: 'Document 2', source: 'docs/2.md' },
      { dataset: 'Sources', hid: 5, id: 'chunk-5', title: 'Document 5', source: 'docs/5.md' },
    ]);
    assert.equal(result.unknownReferences, 0);
    assert.equal(result.cached, false);
    assert.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0);
  });

  test('sends the system prompt and the question as an interactive answer call', async () => {
    const settings = options('No data [Data: Sources (7)].', { maxOutputTokens: 300, temperature: 0.2 });
    await generateAnswer(settings);
    const model = settings.model as ReturnType<typeof createScriptedLanguageModel>;
    assert.equal(model.calls.length, 1);
    const call = model.calls[0];
    assert.deepEqual(call?.messages, [
      { role: 'system', content: 'Answer from the Sources table.' },
      { role: 'user', content: 'When was the weir rebuilt?' },
    ]);
    assert.equal(call?.purpose, 'answer');
    assert.equal(call?.priority, 'interactive');
    assert.equal(call?.maxOutputTokens, 300);
    assert.equal(call?.temperature, 0.2);
  });

  test('counts references to ids the context did not contain, without citing them', async () => {
    // 9 and 11 are not sources; Entities were not given at all, so Entities (1) is unknown too.
    const result = await generateAnswer(options('Rebuilt [Data: Sources (2, 9, 11); Entities (1)].'));
    assert.deepEqual(
      result.citations.map((citation) => citation.hid),
      [2],
    );
    assert.equal(result.unknownReferences, 3);
  });

  test('dedupes repeated references, keeping first-cited order', async () => {
    const result = await generateAnswer(options('A [Data: Sources (5, 2)]. B [Data: Sources (2, 7, +more)]. C [Data: Sources (5)].'));
    assert.deepEqual(
      result.citations.map((citation) => citation.hid),
      [5, 2, 7],
    );
    assert.equal(result.unknownReferences, 0);
  });

  test('the same hid in two datasets is two citations', async () => {
    const entities = new Map([[2, { id: 'entity-2', title: 'Weir Bridge' }]]);
    const result = await generateAnswer(options('X [Data: Sources (2); Entities (2)].', { citable: { Sources: sources, Entities: entities } }));
    assert.deepEqual(result.citations, [
      { dataset: 'Sources', hid: 2, id: 'chunk-2', title: 'Document 2', source: 'docs/2.md' },
      { dataset: 'Entities', hid: 2, id: 'entity-2', title: 'Weir Bridge' },
    ]);
  });

  test('an answer without references has no citations', async () => {
    const result = await generateAnswer(options('  I do not know.  '));
    assert.equal(result.answer.text, 'I do not know.');
    assert.deepEqual(result.citations, []);
    assert.equal(result.unknownReferences, 0);
  });

  test('streams deltas to onText when given; they add up to the answer', async () => {
    const reply = 'The weir was rebuilt in 1954 by the town engineers [Data: Sources (7)].';
    const deltas: string[] = [];
    const result = await generateAnswer(options(reply, { onText: (delta) => deltas.push(delta) }));
    assert.ok(deltas.length > 1, `got ${deltas.length} deltas`);
    assert.equal(deltas.join(''), reply);
    assert.equal(result.answer.text, reply);
    assert.deepEqual(
      result.citations.map((citation) => citation.hid),
      [7],
    );
    assert.ok(result.usage.outputTokens > 0);
  });

  test('without onText the model is not streamed', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'ok [Data: Sources (2)]' }] });
    let streamed = false;
    const wrapped = { ...model, stream: (request: Parameters<typeof model.stream>[0]) => ((streamed = true), model.stream(request)) };
    const result = await generateAnswer({ model: wrapped, systemPrompt: 's', question: 'q', citable: { Sources: sources } });
    assert.equal(streamed, false);
    assert.equal(result.citations.length, 1);
  });

  test('an aborted signal stops the call', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(generateAnswer(options('x', { abortSignal: controller.signal })));
  });
});
