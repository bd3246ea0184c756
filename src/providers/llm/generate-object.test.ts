import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { generateObject } from './generate-object.js';
import { LlmCallError } from './llm-call-error.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';

const schema = z.object({
  entities: z.array(z.object({ name: z.string(), type: z.enum(['person', 'place']) })),
});
const messages = [{ role: 'user' as const, content: 'Extract entities: Ada lived in London.' }];
const good = { entities: [{ name: 'Ada', type: 'person' }, { name: 'London', type: 'place' }] };

describe('generateObject', () => {
  it('sends the JSON Schema and returns the validated object', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: `Here it is:\n\`\`\`json\n${JSON.stringify(good)}\n\`\`\`` }] });
    const outcome = await generateObject({ model, messages, schema, schemaName: 'entities', temperature: 0, purpose: 'extract' });
    assert.deepEqual(outcome.object, good);
    assert.equal(outcome.repaired, false);
    assert.equal(outcome.attempts, 1);
    const sent = model.calls[0];
    assert.equal(sent?.purpose, 'extract');
    assert.equal(sent?.temperature, 0);
    assert.equal(sent?.responseFormat?.name, 'entities');
    assert.equal(sent?.responseFormat?.schema?.['$schema'], undefined);
    assert.deepEqual(sent?.responseFormat?.schema?.['required'], ['entities']);
  });

  it('repairs once with the bad reply and the validation problems', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { reply: { entities: [{ name: 'Ada', type: 'human' }] }, times: 1 },
        { reply: good },
      ],
    });
    const outcome = await generateObject({ model, messages, schema });
    assert.deepEqual(outcome.object, good);
    assert.equal(outcome.repaired, true);
    assert.equal(outcome.attempts, 2);
    const repair = model.calls[1]?.messages ?? [];
    assert.equal(repair.length, 3);
    assert.deepEqual(repair[1], { role: 'assistant', content: '{"entities":[{"name":"Ada","type":"human"}]}' });
    assert.match(repair[2]?.content ?? '', /^Your previous reply could not be used:\n- entities\.0\.type: /);
    assert.match(repair[2]?.content ?? '', /Reply again with only the corrected JSON/);
  });

  it('throws a non-retryable LLM_INVALID_OUTPUT with the raw text after a failed repair', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'I am not able to do that.' }] });
    const error = await generateObject({ model, messages, schema }).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_INVALID_OUTPUT');
    assert.equal(error.retryable, false);
    assert.equal(error.rawText, 'I am not able to do that.');
    assert.equal(model.calls.length, 2, 'exactly one repair');
  });

  it('mentions the output limit when a cut reply cannot be parsed', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: '{"entities": [' }], finishReason: 'length' });
    const error = await generateObject({ model, messages, schema }).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(error));
    assert.match(model.calls[1]?.messages[2]?.content ?? '', /output token limit/);
  });
});
