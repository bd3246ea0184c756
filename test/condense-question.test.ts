import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { sampleWorkspace } from './helpers/test-server.js';

// Issue 41: with an LLM, a follow-up question is rewritten to stand alone before retrieval; without one, nothing is
// called and the result says that the last question was answered alone.
test('a follow-up question is condensed with the conversation before retrieval, and counted', async () => {
  const workspace = await sampleWorkspace();
  const history = [
    { role: 'user' as const, content: 'Tell me about the bridge in Kestermouth.' },
    { role: 'assistant' as const, content: 'The Kester Weir Bridge carries Ferry Street over the river.' },
  ];
  const llm = createScriptedLanguageModel({
    responses: [{ match: (request) => request.purpose === 'condense-question', reply: () => 'Who designed the Kester Weir Bridge?' }],
    fallback: () => 'Clara Ivesley designed it. [Data: Sources (1)]',
  });
  const kgrag = await createKgrag({ workspace, env: {}, llm });
  try {
    const result = await kgrag.query('Who designed it?', { method: 'basic:bm25', history });
    const step = result.trace.steps.find((candidate) => candidate.name === 'condense-question');
    assert.equal(step?.detail?.['question'], 'Who designed the Kester Weir Bridge?');
    const titles = result.context.chunks.slice(0, 3).map((chunk) => chunk.documentTitle);
    assert.ok(titles.includes('Kester Weir Bridge'), `retrieval searched with the standalone question: ${titles.join(', ')}`);
    assert.equal(result.usage.llmCalls, 2);
    assert.equal(result.question, 'Who designed it?', 'the answer is to the question as asked');
  } finally {
    await kgrag.close();
  }
  const offline = await createKgrag({ workspace, env: {} });
  try {
    const result = await offline.query('Who designed it?', { method: 'basic:bm25', history });
    assert.ok(!result.trace.steps.some((candidate) => candidate.name === 'condense-question'));
    assert.ok(!result.context.chunks.slice(0, 3).some((chunk) => chunk.documentTitle === 'Kester Weir Bridge'), '"Who designed it?" alone finds other passages');
    assert.ok(result.warnings.some((warning) => /answered the last question alone/.test(warning)));
  } finally {
    await offline.close();
  }
});
