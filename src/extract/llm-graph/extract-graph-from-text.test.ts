import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PromptLibrary } from '../../core/prompt-library.js';
import type { ChatRequest } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { createScriptedLanguageModel, type ScriptedResponse } from '../../testing/scripted-language-model.js';
import { extractGraphFromText } from './extract-graph-from-text.js';
import { extractGraphPrompts } from './extract-graph-prompt.js';

const text = 'Dr. Imani Osei ran the flood program in Bellmar and redesigned the Kessel Dam spillway.';
const entityTypes = ['person', 'geo'];
const lastUser = (request: ChatRequest | undefined): string => request?.messages.at(-1)?.content ?? '';

describe('extractGraphFromText, json', () => {
  it('sends the first turn and one gleaning as structured output, carries the first reply, and merges both', async () => {
    const first = {
      entities: [
        { name: 'Imani Osei', type: 'PERSON', description: 'Chief engineer' },
        { name: 'Bellmar', type: 'geo', description: 'A port town' },
        { name: '  ', type: 'geo', description: 'nameless' },
      ],
      relationships: [{ source: 'Imani Osei', target: 'Bellmar', description: 'Osei ran the program in Bellmar', strength: 7 }],
    };
    const second = {
      entities: [
        { name: 'Kessel Dam', type: 'geo', description: 'A dam' },
        { name: 'imani osei', type: 'person', description: 'Redesigned the spillway' },
      ],
      relationships: [{ source: 'Imani Osei', target: 'Kessel Dam', description: 'Osei redesigned its spillway', strength: '8' }],
    };
    const model = createScriptedLanguageModel({
      responses: [
        { reply: `\`\`\`json\n${JSON.stringify(first)}\n\`\`\``, times: 1 },
        { reply: second, times: 1 },
      ],
    });
    const result = await extractGraphFromText(model, { text, entityTypes, maxGleanings: 1, format: 'json' });

    assert.equal(result.calls, 2);
    assert.equal(model.calls.length, 2);
    assert.equal(result.turns.length, 2);
    const [extract, glean] = model.calls;
    assert.equal(extract?.purpose, 'extract-graph');
    assert.equal(extract?.priority, 'batch');
    assert.equal(extract?.responseFormat?.name, 'extracted_graph');
    assert.equal(glean?.responseFormat?.name, 'extracted_graph');
    assert.ok(extract?.messages[0]?.content.includes(text));
    assert.ok(extract?.messages[0]?.content.includes('Entity types: person, geo'));
    assert.deepEqual(
      glean?.messages.map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    // The conversation carries the accepted reply as clean JSON, not the fenced text.
    const carried = JSON.parse(glean?.messages[1]?.content ?? '') as typeof first;
    assert.deepEqual(carried.relationships, first.relationships);
    assert.equal(glean?.messages[1]?.content.includes('```'), false);
    assert.match(lastUser(glean), /^MANY entities and relationships were missed/);
    assert.ok(lastUser(glean).includes('person, geo'));

    assert.deepEqual(result.graph.entities, [
      { name: 'Imani Osei', type: 'person', description: 'Chief engineer\nRedesigned the spillway' },
      { name: 'Bellmar', type: 'geo', description: 'A port town' },
      { name: 'Kessel Dam', type: 'geo', description: 'A dam' },
    ]);
    assert.deepEqual(result.graph.relations, [
      { source: 'Imani Osei', target: 'Bellmar', description: 'Osei ran the program in Bellmar', strength: 7 },
      { source: 'Imani Osei', target: 'Kessel Dam', description: 'Osei redesigned its spillway', strength: 8 },
    ]);
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0] ?? '', /^extraction: entity with an empty name skipped/);
  });

  it('repairs one malformed reply and records it', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { reply: '{"entities": [{"name": "Bellmar", "type": "geo"', times: 1 },
        { reply: { entities: [{ name: 'Bellmar', type: 'geo', description: 'A town' }], relationships: [] } },
      ],
    });
    const result = await extractGraphFromText(model, { text, entityTypes, maxGleanings: 0, format: 'json' });
    assert.equal(result.calls, 2);
    assert.equal(result.turns.length, 2, 'the rejected reply is kept among the raw turns');
    assert.deepEqual(result.graph.entities, [{ name: 'Bellmar', type: 'geo', description: 'A town' }]);
    assert.deepEqual(result.problems, ['extraction: the first reply was not valid; the repair turn fixed it']);
  });

  it('surfaces a first reply that stays invalid as LLM_INVALID_OUTPUT', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: 'Sorry, I cannot help with that.' }] });
    const error = await extractGraphFromText(model, { text, entityTypes, maxGleanings: 1, format: 'json' }).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_INVALID_OUTPUT');
    assert.equal(model.calls.length, 2, 'one repair turn, no gleaning');
  });

  it('keeps the earlier turns when a gleaning stays invalid after its repair', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { reply: { entities: [{ name: 'Bellmar', type: 'geo', description: 'A town' }], relationships: [] }, times: 1 },
        { reply: 'Nothing else, I think.' },
      ],
    });
    const result = await extractGraphFromText(model, { text, entityTypes, maxGleanings: 2, format: 'json' });
    assert.equal(result.calls, 3);
    assert.deepEqual(result.graph.entities, [{ name: 'Bellmar', type: 'geo', description: 'A town' }]);
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0] ?? '', /^gleaning 1: the reply stayed unusable after its repair turn/);
  });
});

describe('extractGraphFromText, tuples', () => {
  it('parses a noisy reply, carries it as written, and accepts "nothing more" from a gleaning', async () => {
    const noisy = [
      '<think>Let me list them.</think>Here are the entities:',
      '```',
      '(ENTITY<|>Imani Osei<|>Person<|>Engineer.',
      '## Career',
      'Ran the flood program.)',
      '##',
      '("relationship"<|>Imani Osei<|>Bellmar<|>ran the program in Bellmar<|>7)',
      '##',
      '("entity"<|>Bellmar<|>geo<|>A port town',
      '```',
    ].join('\n');
    const model = createScriptedLanguageModel({
      responses: [
        { reply: noisy, times: 1 },
        { reply: 'No more entities.', times: 1 },
      ],
    });
    const result = await extractGraphFromText(model, { text, entityTypes, maxGleanings: 1, format: 'tuples' });
    assert.equal(result.calls, 2);
    assert.equal(model.calls[0]?.responseFormat, undefined);
    assert.ok(model.calls[0]?.messages[0]?.content.includes('("entity"<|>'));
    assert.equal(model.calls[1]?.messages[1]?.content, noisy.replace('<think>Let me list them.</think>', ''));
    assert.match(lastUser(model.calls[1]), /^MANY entities and relationships were missed/);
    assert.deepEqual(result.graph.entities, [
      { name: 'Imani Osei', type: 'person', description: 'Engineer. ## Career Ran the flood program.' },
      { name: 'Bellmar', type: 'geo', description: 'A port town' },
    ]);
    assert.deepEqual(result.graph.relations, [{ source: 'Imani Osei', target: 'Bellmar', description: 'ran the program in Bellmar', strength: 7 }]);
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0] ?? '', /^extraction: the last record was cut off/);
  });

  it('reads a JSON reply to the tuple prompt rather than losing the chunk', async () => {
    const model = createScriptedLanguageModel({
      responses: [{ reply: '```json\n{"entities": [{"name": "Bellmar", "type": "GEO", "description": "A town"}], "relationships": []}\n```' }],
    });
    const result = await extractGraphFromText(model, { text, entityTypes, maxGleanings: 0, format: 'tuples' });
    assert.deepEqual(result.graph.entities, [{ name: 'Bellmar', type: 'geo', description: 'A town' }]);
    assert.deepEqual(result.problems, ['extraction: the reply was JSON instead of tuple records; read as JSON']);
  });

  it('runs the loop check only between gleanings, with exact call counts', async () => {
    const cases: Array<{ gleanings: number; answers: string[]; calls: number }> = [
      { gleanings: 0, answers: [], calls: 1 },
      { gleanings: 1, answers: [], calls: 2 },
      { gleanings: 2, answers: ['Y'], calls: 4 },
      { gleanings: 2, answers: ['N'], calls: 3 },
      { gleanings: 3, answers: ['Yes.', 'YES'], calls: 6 },
      { gleanings: 3, answers: ['Y', 'n'], calls: 5 },
      { gleanings: 3, answers: ['There might be a few more.'], calls: 3 },
    ];
    for (const { gleanings, answers, calls } of cases) {
      const responses: ScriptedResponse[] = [
        { match: '---Real Data---', reply: '("entity"<|>Bellmar<|>geo<|>A port town)\n<|COMPLETE|>' },
        { match: 'MANY entities', reply: (request) => `("entity"<|>Place ${request.messages.length}<|>geo<|>found late)\n<|COMPLETE|>` },
        ...answers.map((answer): ScriptedResponse => ({ match: 'single letter Y or N', reply: answer, times: 1 })),
      ];
      const model = createScriptedLanguageModel({ responses });
      const result = await extractGraphFromText(model, { text, entityTypes, maxGleanings: gleanings, format: 'tuples' });
      const label = `${gleanings} gleanings, answers ${JSON.stringify(answers)}`;
      assert.equal(result.calls, calls, label);
      assert.equal(model.calls.length, calls, label);
      assert.equal(result.turns.length, calls, label);
      const loopChecks = model.calls.filter((request) => lastUser(request).includes('single letter Y or N')).length;
      assert.equal(loopChecks, Math.min(answers.length, Math.max(0, gleanings - 1)), label);
      const gleaned = model.calls.filter((request) => lastUser(request).startsWith('MANY entities')).length;
      assert.equal(result.graph.entities.length, 1 + gleaned, label);
      assert.ok(model.calls.every((request) => request.purpose === 'extract-graph'), label);
      assert.deepEqual(
        model.calls.map((request) => request.priority),
        model.calls.map((_, index) => (index === 0 ? 'batch' : 'batch-continuation')),
        `${label}: later turns yield to conversations not yet started`,
      );
    }
  });

  it('keeps the whole conversation in order across gleanings and loop checks', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { match: '---Real Data---', reply: '("entity"<|>Bellmar<|>geo<|>A port town)' },
        { match: 'MANY entities', reply: '<|COMPLETE|>' },
        { match: 'single letter Y or N', reply: 'Y' },
      ],
    });
    await extractGraphFromText(model, { text, entityTypes, maxGleanings: 3, format: 'tuples' });
    const last = model.calls.at(-1);
    assert.deepEqual(
      last?.messages.map((message) => message.role),
      ['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.equal(last?.messages[5]?.content, 'Y');
    assert.equal(model.calls[1]?.messages.length, 3, 'earlier requests keep their own copy of the conversation');
  });

  it('merges an entity repeated across turns and keeps distinct descriptions', async () => {
    const model = createScriptedLanguageModel({
      responses: [
        { reply: '("entity"<|>Imani Osei<|>person<|>Chief engineer)##("relationship"<|>Imani Osei<|>Bellmar<|>worked in Bellmar<|>6)', times: 1 },
        {
          reply: '("entity"<|>IMANI OSEI<|>person<|>Redesigned the Kessel Dam spillway)##("entity"<|>imani osei<|>person<|>chief  engineer)##("entity"<|>Bellmar<|>geo<|>A town)##("relationship"<|>Bellmar<|>Imani Osei<|>Osei ran its flood program<|>8)',
          times: 1,
        },
      ],
    });
    const result = await extractGraphFromText(model, { text, entityTypes, maxGleanings: 1, format: 'tuples' });
    assert.deepEqual(result.graph.entities, [
      { name: 'Imani Osei', type: 'person', description: 'Chief engineer\nRedesigned the Kessel Dam spillway' },
      { name: 'Bellmar', type: 'geo', description: 'A town' },
    ]);
    assert.deepEqual(result.graph.relations, [
      { source: 'Imani Osei', target: 'Bellmar', description: 'worked in Bellmar\nOsei ran its flood program', strength: 8 },
    ]);
    assert.deepEqual(result.problems, [], 'Bellmar, extracted by the gleaning, satisfies the first turn\'s relationship');
  });

  it('keeps a relationship to an entity never extracted, and lists it in problems', async () => {
    const model = createScriptedLanguageModel({
      responses: [{ reply: '("entity"<|>Imani Osei<|>person<|>Engineer)##("relationship"<|>Imani Osei<|>Harwick Board<|>appointed her<|>9)' }],
    });
    const result = await extractGraphFromText(model, { text, entityTypes, maxGleanings: 0, format: 'tuples' });
    assert.deepEqual(result.graph.relations, [{ source: 'Imani Osei', target: 'Harwick Board', description: 'appointed her', strength: 9 }]);
    assert.deepEqual(result.problems, ['relationship "Imani Osei" → "Harwick Board" names "Harwick Board", never extracted as an entity (kept)']);
  });

  it('uses prompts from the library, so a workspace can override them', async () => {
    const prompts: PromptLibrary = {
      text: (template) => (template.name === 'extract-graph-tuples' ? 'Custom [{entity_types}] {input_text}' : template.text),
    };
    const model = createScriptedLanguageModel({ responses: [{ reply: '<|COMPLETE|>' }] });
    await extractGraphFromText(model, { text: 'Bellmar {input_text}', entityTypes, maxGleanings: 1, format: 'tuples', prompts });
    assert.equal(model.calls[0]?.messages[0]?.content, 'Custom [person, geo] Bellmar {input_text}');
    assert.equal(lastUser(model.calls[1]), extractGraphPrompts.tuples.continue.text.replace('{entity_types}', 'person, geo'));
  });

  it('passes the abort signal to every call', async () => {
    const model = createScriptedLanguageModel({ responses: [{ reply: '<|COMPLETE|>' }] });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(extractGraphFromText(model, { text, entityTypes, maxGleanings: 1, format: 'tuples', abortSignal: controller.signal }));
    assert.equal(model.calls[0]?.abortSignal, controller.signal);
  });
});
