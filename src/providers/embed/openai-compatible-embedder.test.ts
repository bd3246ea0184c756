import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { KgragError } from '../../core/errors.js';
import { LlmCallError } from '../llm/llm-call-error.js';
import { startMockOpenAiServer } from '../../testing/mock-openai-server.js';
import type { MockOpenAiServer, MockOpenAiServerOptions } from '../../testing/mock-openai-server.js';
import { createOpenAiCompatibleEmbedder } from './openai-compatible-embedder.js';
import type { OpenAiCompatibleEmbedderOptions } from './openai-compatible-embedder.js';

const servers: MockOpenAiServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** A distinct, non-normalized vector per text: [length, first char code, 1, 2]. */
const embed = (text: string): number[] => [text.length, text.charCodeAt(0), 1, 2];

async function setup(serverOptions: MockOpenAiServerOptions = {}, embedderOptions: Partial<OpenAiCompatibleEmbedderOptions> = {}) {
  const bodies: Array<Record<string, unknown>> = [];
  const server = await startMockOpenAiServer({
    embed,
    ...serverOptions,
    onRequest: (request) => {
      if (request.path.endsWith('/embeddings')) bodies.push(request.body as Record<string, unknown>);
    },
  });
  servers.push(server);
  const embedder = createOpenAiCompatibleEmbedder({
    baseURL: server.url,
    modelId: 'text-embedding-3-small',
    batchSize: 4,
    retry: { sleep: async () => undefined, rng: () => 0 },
    ...embedderOptions,
  });
  return { server, bodies, embedder };
}

const norm = (vector: Float32Array) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

describe('createOpenAiCompatibleEmbedder against the mock server', () => {
  it('asks for float vectors and returns them L2-normalized, in order', async () => {
    const { embedder, bodies } = await setup();
    const vectors = await embedder.embed(['alpha', 'be']);
    assert.equal(bodies[0]?.['encoding_format'], 'float');
    assert.deepEqual(bodies[0]?.['input'], ['alpha', 'be']);
    assert.equal(vectors.length, 2);
    for (const [index, text] of ['alpha', 'be'].entries()) {
      const raw = embed(text);
      const length = Math.hypot(...raw);
      const vector = vectors[index];
      assert.ok(vector);
      assert.ok(Math.abs(norm(vector) - 1) < 1e-6);
      raw.forEach((value, component) => assert.ok(Math.abs((vector[component] ?? 0) - value / length) < 1e-6));
    }
    assert.equal(embedder.dimensions, 4);
    assert.equal(embedder.id, 'openai-compatible:text-embedding-3-small:auto');
  });

  it('splits inputs into batches of batchSize', async () => {
    const { embedder, server } = await setup({}, { batchSize: 4, concurrency: 2 });
    const texts = Array.from({ length: 10 }, (_, index) => `text ${index}`);
    const vectors = await embedder.embed(texts);
    assert.equal(server.stats.embeddings, 3);
    assert.equal(embedder.maxBatchSize, 4);
    const again = await embedder.embed([texts[7] ?? '']);
    assert.deepEqual([...(vectors[7] ?? [])], [...(again[0] ?? [])], 'batch position does not change a vector');
  });

  it('returns nothing for no input and zero vectors for empty texts, without sending them', async () => {
    const { embedder, server, bodies } = await setup();
    assert.deepEqual(await embedder.embed([]), []);
    assert.equal(server.stats.embeddings, 0);
    const vectors = await embedder.embed(['', 'word', '']);
    assert.deepEqual(bodies[0]?.['input'], ['word']);
    assert.deepEqual([...(vectors[0] ?? [])], [0, 0, 0, 0]);
    assert.deepEqual([...(vectors[2] ?? [])], [0, 0, 0, 0]);
  });

  it('adds the query or document prefix and sends the requested dimensions', async () => {
    const { embedder, bodies } = await setup({ embed: () => [1, 0, 0] }, { queryPrefix: 'query: ', documentPrefix: 'passage: ', dimensions: 3 });
    await embedder.embed(['q'], { inputType: 'query' });
    await embedder.embed(['d']);
    assert.deepEqual(bodies[0]?.['input'], ['query: q']);
    assert.deepEqual(bodies[1]?.['input'], ['passage: d']);
    assert.equal(bodies[0]?.['dimensions'], 3);
    assert.equal(embedder.id, 'openai-compatible:text-embedding-3-small:3');
  });

  it('refuses vectors whose length differs from the known dimensions', async () => {
    let length = 4;
    const { embedder } = await setup({ embed: () => Array.from({ length }, () => 1) });
    await embedder.embed(['first']);
    length = 8;
    const error = await embedder.embed(['second']).catch((caught: unknown) => caught);
    assert.ok(KgragError.isInstance(error));
    assert.equal(error.code, 'EMBEDDING_DIMENSION_MISMATCH');
    assert.match(error.hint ?? '', /index was built with another embedding model/);
  });

  it('refuses a batch of vectors of mixed lengths', async () => {
    const { embedder } = await setup({ embed: (text) => Array.from({ length: text.length }, () => 1) });
    await assert.rejects(embedder.embed(['ab', 'abc']), (error) => KgragError.isInstance(error) && error.code === 'EMBEDDING_DIMENSION_MISMATCH');
  });

  it('retries 429 and 500 like the LLM, and maps auth errors with a hint', async () => {
    const { embedder, server } = await setup({ faults: { sequence: ['429', '500', 'malformed-body'] } });
    const vectors = await embedder.embed(['retry me']);
    assert.equal(vectors.length, 1);
    assert.equal(server.stats.embeddings, 4);

    const guarded = await setup({ apiKey: 'right' }, { apiKey: 'wrong' });
    const error = await guarded.embedder.embed(['x']).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_AUTHENTICATION_FAILED');
    assert.match(error.hint ?? '', /embeddings\.apiKey/);
  });

  it('gives up after maxRetries with LLM_RETRIES_EXHAUSTED', async () => {
    const { embedder } = await setup({ faults: { sequence: ['500', '500', '500'] } }, { retry: { maxRetries: 2, sleep: async () => undefined } });
    await assert.rejects(embedder.embed(['x']), (error) => LlmCallError.isInstance(error) && error.code === 'LLM_RETRIES_EXHAUSTED');
  });

  it('reads vectors a server answered in base64 or out of order', async () => {
    const { embedder } = await setup(
      {},
      {
        fetch: async (input, init) => {
          const inputs = (JSON.parse(String(init?.body)) as { input: string[] }).input;
          const data = inputs.map((text, index) => ({ index, embedding: Buffer.from(new Float32Array(embed(text)).buffer).toString('base64') })).reverse();
          return new Response(JSON.stringify({ data, model: 'text-embedding-3-small' }), { status: 200, headers: { 'content-type': 'application/json' } });
        },
      },
    );
    const vectors = await embedder.embed(['alpha', 'be']);
    for (const [index, text] of ['alpha', 'be'].entries()) {
      const raw = embed(text);
      const length = Math.hypot(...raw);
      raw.forEach((value, component) => assert.ok(Math.abs((vectors[index]?.[component] ?? 0) - value / length) < 1e-6));
    }
  });

  it("reports each retry with its call's purpose, which the server never sees", async () => {
    const purposes: Array<string | undefined> = [];
    const { embedder, bodies } = await setup(
      { faults: { sequence: ['429', '429'] } },
      { retry: { sleep: async () => undefined, rng: () => 0, onRetry: (event) => void purposes.push(event.purpose) } },
    );
    await Promise.all([embedder.embed(['a question'], { inputType: 'query' }), embedder.embed(['a passage'])]);
    assert.deepEqual(purposes.sort(), ['embed-documents', 'embed-query']);
    assert.ok(bodies.every((body) => !('kgrag' in body)));
  });
});

