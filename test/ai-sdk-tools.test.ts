// Issue 41: kgrag as Vercel AI SDK tools, driven by the real `ai` package's generateText with a model that calls them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { kgragTools } from '../src/adapters/ai-sdk.js';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { Kgrag } from '../src/api/kgrag.js';
import { sampleWorkspace } from './helpers/test-server.js';

let kgrag: Kgrag;
before(async () => {
  kgrag = await createKgrag({ workspace: await sampleWorkspace(), env: {} });
});
after(async () => kgrag?.close());

test('generateText calls the query and search_entities tools and reads their results', async () => {
  const usage = { inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: undefined, reasoning: undefined } };
  let turn = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () => {
      turn++;
      if (turn === 1) {
        return {
          content: [
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'query', input: JSON.stringify({ question: 'On what date was the Kester Weir Bridge opened?', method: 'basic:hybrid' }) },
            { type: 'tool-call', toolCallId: 'call-2', toolName: 'search_entities', input: JSON.stringify({ query: 'clara ives', limit: 3 }) },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: 'text', text: 'It opened on 14 May 1938.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
  const result = await generateText({ model, tools: kgragTools(kgrag), stopWhen: stepCountIs(3), prompt: 'When did the Kester Weir Bridge open?' });
  assert.equal(result.text, 'It opened on 14 May 1938.');
  const outputs = result.steps.flatMap((step) => step.toolResults);
  const query = outputs.find((output) => output.toolName === 'query')?.output as { answer: string; method: string; citations: Array<{ dataset: string; title: string; quote: string | null }> };
  assert.equal(query.method, 'basic:hybrid');
  assert.match(query.answer, /14 May 1938/);
  assert.ok(query.citations.some((citation) => citation.dataset === 'Sources' && citation.title === 'Kester Weir Bridge' && /1938/.test(citation.quote ?? '')));
  const entities = outputs.find((output) => output.toolName === 'search_entities')?.output as { entities: Array<{ title: string }> };
  assert.match(entities.entities[0]?.title ?? '', /Clara Ivesley/);
  // The second call to the model carried both results back.
  assert.equal(model.doGenerateCalls.length, 2);
  assert.equal(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).exports['./ai-sdk'].default, './dist/adapters/ai-sdk.js');
});

test('an unknown method is refused by the tool input schema before kgrag runs', async () => {
  const tools = kgragTools(kgrag);
  const schema = tools.query.inputSchema as { safeParse: (value: unknown) => { success: boolean } };
  assert.equal(schema.safeParse({ question: 'x', method: 'naive' }).success, false);
  assert.equal(schema.safeParse({ question: 'x', method: 'ppr:v1' }).success, true);
});
