// Issue 41: the Ollama-compatible endpoints driven by the `ollama` npm client, as Open WebUI would use them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ollama } from 'ollama';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { sampleWorkspace, startTestServer } from './helpers/test-server.js';

const key = 'ollama-key-0123456789abcdef';

describe('Ollama-compatible API: each method is a model', () => {
  const llm = createScriptedLanguageModel({
    responses: [{ match: (request) => request.purpose === 'condense-question', reply: () => 'Who designed the Kester Weir Bridge?' }],
    fallback: (request) => `Clara Ivesley designed the Kester Weir Bridge. [Data: Sources (${/^(\d+)\|/m.exec(request.messages[0]?.content ?? '')?.[1] ?? '0'})]`,
  });
  let server: ServedWorkspaces;
  let ollama: Ollama;

  before(async () => {
    server = await startTestServer({ directory: await sampleWorkspace(), server: { apiKeys: [key] }, kgrag: { llm } });
    ollama = new Ollama({ host: server.url, headers: { authorization: `Bearer ${key}` } });
  });
  after(async () => server.close());

  test('tags, show and version describe the methods as models', async () => {
    const { models } = await ollama.list();
    const names = models.map((model) => model.name);
    for (const name of ['kgrag-local:latest', 'kgrag-basic:latest', 'kgrag-basic:bm25', 'kgrag-ppr:v1', 'kgrag-kgp:lexical-agent']) assert.ok(names.includes(name), name);
    const shown = await ollama.show({ model: 'kgrag-ppr:latest' });
    assert.match(shown.system, /PageRank/i);
    assert.deepEqual(shown.capabilities, ['completion']);
    const { version } = await ollama.version();
    assert.match(version, /^\d+\.\d+\.\d+$/);
  });

  test('chat answers whole and streamed, with the sources at the end', async () => {
    const reply = await ollama.chat({ model: 'kgrag-basic', messages: [{ role: 'user', content: 'Who designed the Kester Weir Bridge?' }] });
    assert.equal(reply.done, true);
    assert.equal(reply.message.role, 'assistant');
    assert.match(reply.message.content, /^Clara Ivesley designed the Kester Weir Bridge\. \[Data: Sources \(\d+\)\]\n\nSources:\n\[\d+\] /);
    assert.ok(reply.eval_count > 0 && reply.total_duration > 0);

    const parts: string[] = [];
    let last: { done: boolean; done_reason: string } | undefined;
    const streamed = await ollama.chat({
      model: 'kgrag-basic:bm25',
      stream: true,
      messages: [
        { role: 'user', content: 'Tell me about the bridge in Kestermouth.' },
        { role: 'assistant', content: 'The Kester Weir Bridge carries Ferry Street over the river.' },
        { role: 'user', content: 'Who designed it?' },
      ],
    });
    for await (const part of streamed) {
      parts.push(part.message.content);
      last = part;
    }
    assert.ok(parts.length >= 2, 'a partial line, then the final one');
    assert.equal(last?.done, true);
    assert.equal(last?.done_reason, 'stop');
    assert.match(parts.join(''), /^Clara Ivesley designed[^]*\n\nSources:\n\[\d+\] /);
  });

  test('generate answers the prompt; an unknown model and an empty conversation are Ollama errors with the message', async () => {
    const generated = await ollama.generate({ model: 'kgrag-local:latest', prompt: 'Who designed the Kester Weir Bridge?' });
    assert.equal(generated.done, true);
    assert.match(generated.response ?? '', /Clara Ivesley/);
    const streamed = await ollama.generate({ model: 'kgrag-basic', prompt: 'Who designed the Kester Weir Bridge?', stream: true });
    let text = '';
    for await (const part of streamed) text += part.response ?? '';
    assert.match(text, /Clara Ivesley[^]*Sources:/);

    await assert.rejects(ollama.chat({ model: 'llama3:8b', messages: [{ role: 'user', content: 'hi' }] }), (error: Error & { status_code?: number }) => {
      assert.equal(error.status_code, 404);
      assert.match(error.message, /model "llama3:8b" not found.*kgrag-/);
      return true;
    });
    await assert.rejects(ollama.chat({ model: 'kgrag-basic', messages: [{ role: 'system', content: 'hi' }] }), /no user message/);
    const stranger = new Ollama({ host: server.url, headers: { authorization: 'Bearer wrong-key-0123456789abcdef' } });
    await assert.rejects(stranger.list(), /API key is not valid/);
  });
});
