import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { MockEmbeddingModelV3, MockLanguageModelV3 } from 'ai/test';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { Kgrag, KgragOptions } from '../src/api/create-kgrag.js';
import { startMockOpenAiServer } from '../src/testing/index.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import type { ResponderRequest } from './helpers/sample-llm-responder.js';

/*
 * Issue 37's standard model interfaces: an AI SDK model object goes straight to `createKgrag` (no kgrag.yaml LLM
 * section), indexes a few documents of the sample corpus in standard mode through kgrag's middleware, and answers a
 * query. The replies come from the model: the sample responder behind the loopback mock server, or scripted into the
 * AI SDK's own `MockLanguageModelV3`.
 */

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const documents = ['01-kestermouth.md', '02-river-kester.md', '06-marle-boatworks.md'].map((name) => join(corpus, name));
const question = 'Where does the River Kester widen into an estuary?';
const answerText = 'It widens into the Saltmarsh Reach below Kestermouth.';

/** The sample responder, and a fixed answer to the test's question. */
function reply(request: ResponderRequest): string {
  return request.messages.some((message) => message.content.includes(question)) ? answerText : sampleLlmReply(request);
}

const directories: string[] = [];
after(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** Indexes the documents in standard mode with `options`, then asks the question with the plain method. */
async function indexAndAsk(options: KgragOptions): Promise<{ kgrag: Kgrag; entities: string[]; answer: string; llmCalls: number }> {
  const workspace = mkdtempSync(join(tmpdir(), 'kgrag-ai-sdk-'));
  directories.push(workspace);
  const kgrag = await createKgrag({ workspace, env: {}, ...options, config: { pipeline: { methods: ['basic', 'local'] } } });
  const summary = await kgrag.index(documents, { mode: 'standard' });
  assert.ok(summary.ran.includes('llm-extract'), 'standard mode ran the LLM extraction');
  const entities = (await kgrag.store.table('entities').pick(['title'])).map((entity) => entity.title);
  const result = await kgrag.query(question, { method: 'basic' });
  assert.equal(result.answer.kind, 'generated');
  return { kgrag, entities, answer: result.answer.text, llmCalls: summary.usage.llmCalls };
}

/** A deterministic unit-free vector of a text: its SHA-256 bytes, centred. */
function hashVector(text: string): number[] {
  return [...createHash('sha256').update(text).digest()].slice(0, 16).map((byte) => byte - 127.5);
}

describe('AI SDK models passed straight to createKgrag', () => {
  it('indexes and answers with @ai-sdk/openai-compatible pointed at the mock server', async () => {
    const bodies: string[] = [];
    const server = await startMockOpenAiServer({ reply, onRequest: (request) => void bodies.push(JSON.stringify(request.body)) });
    try {
      const llm = createOpenAICompatible({ name: 'lab', baseURL: server.url, includeUsage: true }).chatModel('mock-model');
      const { kgrag, entities, answer, llmCalls } = await indexAndAsk({ llm });
      try {
        assert.ok(server.stats.completions > 0);
        assert.equal(llmCalls, server.stats.completions - 1, 'every index call reached the server once (the query asked once more)');
        for (const name of ['Kestermouth', 'River Kester', 'Saltmarsh Reach']) assert.ok(entities.includes(name), `${name} was extracted from the model's replies`);
        assert.equal(answer, answerText);
        // The middleware's fields never reach the provider's request body.
        assert.ok(bodies.length > 0 && bodies.every((body) => !body.includes('"kgrag"')));
      } finally {
        await kgrag.close();
      }
    } finally {
      await server.close();
    }
  });

  it('indexes and answers with MockLanguageModelV3 from ai/test, and an AI SDK embedding model', async () => {
    const text = (options: { prompt: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> }): string =>
      reply({
        messages: options.prompt.map((message) => ({
          role: message.role,
          content: typeof message.content === 'string' ? message.content : message.content.map((part) => part.text ?? '').join(''),
        })),
      });
    const usage = { inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: undefined, reasoning: undefined } };
    const llm = new MockLanguageModelV3({
      provider: 'mock',
      modelId: 'scripted-v3',
      doGenerate: async (options) => ({ content: [{ type: 'text', text: text(options) }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
      doStream: async (options) => ({
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: '1' });
            controller.enqueue({ type: 'text-delta', id: '1', delta: text(options) });
            controller.enqueue({ type: 'text-end', id: '1' });
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
            controller.close();
          },
        }),
      }),
    });
    const embedder = new MockEmbeddingModelV3({
      provider: 'mock',
      modelId: 'hash-16',
      doEmbed: async ({ values }) => ({ embeddings: values.map(hashVector), warnings: [] }),
    });
    const { kgrag, entities, answer, llmCalls } = await indexAndAsk({ llm, embedder });
    try {
      const calls = [...llm.doGenerateCalls, ...llm.doStreamCalls];
      assert.equal(llmCalls, calls.length - 1, 'every index call reached the model once (the query asked once more)');
      assert.ok(calls.every((call) => call.providerOptions?.['kgrag'] === undefined), "kgrag's per-call fields stay in the middleware");
      for (const name of ['Kestermouth', 'River Kester', 'Saltmarsh Reach']) assert.ok(entities.includes(name), `${name} was extracted from the model's replies`);
      assert.equal(answer, answerText);
      const embedded = embedder.doEmbedCalls.flatMap((call) => call.values);
      assert.ok(embedded.some((value) => value.includes('Saltmarsh Reach')), 'the chunks were embedded by the AI SDK model');
      assert.ok(embedded.includes(question), 'and so was the question');
    } finally {
      await kgrag.close();
    }
  });
});
