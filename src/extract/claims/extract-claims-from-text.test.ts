import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PromptLibrary } from '../../core/prompt-library.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { extractClaimsFromText } from './extract-claims-from-text.js';

const text = 'On 2030-03-04 the Orvane Port Authority fined Brightline Freight for falsifying cargo records.';
const base = { text, entitySpecs: ['organization', 'person'], claimDescription: 'Red flags' };
const fraud = {
  subject: 'Brightline Freight',
  object: 'Orvane Port Authority',
  type: 'FRAUD',
  status: 'TRUE',
  start_date: '2030-03-04',
  end_date: '2030-03-04',
  description: 'Falsified cargo records',
  source_text: 'fined Brightline Freight for falsifying cargo records',
};

describe('extractClaimsFromText', () => {
  it('uses the claims of every gleaning (unlike GraphRAG), once each', async () => {
    const enforcement = { ...fraud, subject: 'Orvane Port Authority', object: 'Brightline Freight', type: 'ENFORCEMENT', description: 'Fined the company' };
    const model = createScriptedLanguageModel({
      responses: [
        { match: '---Real Data---', reply: { claims: [fraud] } },
        { match: 'MANY claims', reply: { claims: [fraud, { ...enforcement, status: 'true', object: 'NONE', source_text: ['fined', 'Brightline'] }] } },
        { match: 'single letter Y or N', reply: 'N' },
      ],
    });
    const result = await extractClaimsFromText(model, { ...base, maxGleanings: 2, format: 'json' });
    assert.equal(result.calls, 3);
    assert.equal(result.turns.length, 3);
    assert.ok(model.calls.every((request) => request.purpose === 'extract-claims'));
    assert.deepEqual(
      model.calls.map((request) => request.priority),
      ['batch', 'batch-continuation', 'batch-continuation'],
    );
    assert.equal(model.calls[0]?.responseFormat?.name, 'extracted_claims');
    const prompt = model.calls[0]?.messages[0]?.content ?? '';
    assert.ok(prompt.includes('Entity specification: organization, person\nClaim description: Red flags'));
    assert.deepEqual(JSON.parse(model.calls[1]?.messages[1]?.content ?? ''), { claims: [fraud] });
    assert.deepEqual(result.claims, [
      {
        subject: 'Brightline Freight',
        object: 'Orvane Port Authority',
        type: 'FRAUD',
        status: 'TRUE',
        startDate: '2030-03-04',
        endDate: '2030-03-04',
        description: 'Falsified cargo records',
        sourceText: 'fined Brightline Freight for falsifying cargo records',
      },
      {
        subject: 'Orvane Port Authority',
        object: null,
        type: 'ENFORCEMENT',
        status: 'TRUE',
        startDate: '2030-03-04',
        endDate: '2030-03-04',
        description: 'Fined the company',
        sourceText: 'fined Brightline',
      },
    ]);
    assert.deepEqual(result.problems, []);
  });

  it('parses tuple replies across gleanings and honours prompt overrides', async () => {
    const prompts: PromptLibrary = {
      text: (template) => (template.name === 'extract-claims-tuples-continue' ? 'More claims about {entity_specs}?' : template.text),
    };
    const model = createScriptedLanguageModel({
      responses: [
        { reply: '```\n(Brightline Freight<|>NONE<|>FRAUD<|>TRUE<|>NONE<|>NONE<|>Falsified records<|>falsifying)\n<|COMPLETE|>\n```', times: 1 },
        { reply: '(Orvane Port Authority<|>Brightline Freight<|>ENFORCEMENT<|>TRUE<|>2030-03-04<|>2030-03-04<|>Fined it<|>fined)##(broken<|>record)', times: 1 },
      ],
    });
    const result = await extractClaimsFromText(model, { ...base, maxGleanings: 1, format: 'tuples', prompts });
    assert.equal(result.calls, 2);
    assert.equal(model.calls[1]?.messages.at(-1)?.content, 'More claims about organization, person?');
    assert.deepEqual(result.claims.map((claim) => claim.subject), ['Brightline Freight', 'Orvane Port Authority']);
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0] ?? '', /^gleaning 1: claim record has 2 fields/);
  });

  it('surfaces a first reply that stays invalid as LLM_INVALID_OUTPUT', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: '{"claims": "none"}' }] });
    const error = await extractClaimsFromText(model, { ...base, maxGleanings: 1, format: 'json' }).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_INVALID_OUTPUT');
    assert.equal(model.calls.length, 2);
  });
});
