// The OpenAI-compatible endpoint driven by the `openai` npm client, with and without streaming.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { sampleWorkspace, startTestServer } from './helpers/test-server.js';

const key = 'chat-key-0123456789abcdef';

describe('OpenAI-compatible chat: each method is a model', () => {
  const llm = createScriptedLanguageModel({
    // The question condensed before retrieval names what "it" was.
    responses: [{ match: (request) => request.purpose === 'condense-question', reply: () => 'Who designed the Kester Weir Bridge in Kestermouth?' }],
    // Cites the first passage of the context the method gave it.
    fallback: (request) => `The Kester Weir Bridge was designed by Clara Ivesley of Ivesley and Thorne. [Data: Sources (${/^(\d+)\|/m.exec(request.messages[0]?.content ?? '')?.[1] ?? '0'})]`,
  });
  let server: ServedWorkspaces;
  let client: OpenAI;

  before(async () => {
    server = await startTestServer({ directory: await sampleWorkspace(), server: { apiKeys: [key] }, kgrag: { llm } });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: 0 });
  });
  after(async () => {
    await server.close();
  });

  test('models lists every method and variant', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    for (const name of ['kgrag-basic', 'kgrag-basic:bm25', 'kgrag-local', 'kgrag-global', 'kgrag-drift', 'kgrag-ppr', 'kgrag-kgp', 'kgrag-autokg', 'kgrag-relations', 'kgrag-tot']) {
      assert.ok(models.includes(name), name);
    }
  });

  test('a completion answers the last user message, with earlier turns as history and citations in text and field', async () => {
    const before = llm.calls.length;
    const completion = await client.chat.completions.create({
      model: 'kgrag-basic',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Tell me about the bridge in Kestermouth.' },
        { role: 'assistant', content: 'The Kester Weir Bridge carries Ferry Street over the river.' },
        { role: 'user', content: 'Who designed it?' },
      ],
    });
    const text = completion.choices[0]?.message.content ?? '';
    assert.match(text, /^The Kester Weir Bridge was designed by Clara Ivesley/);
    assert.match(text, /\n\nSources:\n\[\d+\] \S/, "the same lines as the CLI's Sources");
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    const extra = (completion as unknown as { kgrag: { method: string; citations: Array<{ dataset: string; id: string }>; warnings: string[] } }).kgrag;
    assert.equal(extra.method, 'basic');
    assert.ok(!extra.warnings.some((warning) => /last question alone/.test(warning)));
    assert.equal(extra.citations[0]?.dataset, 'Sources');
    // First the question condensed with the conversation, retrieval searched with it; then the answer, which reads the
    // conversation itself and answers the question as asked.
    const [condense, call] = llm.calls.slice(before);
    assert.equal(condense?.purpose, 'condense-question');
    assert.match(condense?.messages[0]?.content ?? '', /User: Tell me about the bridge in Kestermouth\.\nAssistant: The Kester Weir Bridge carries Ferry Street over the river\.[^]*Last question: Who designed it\?/);
    assert.ok(call);
    assert.match(call.messages[0]?.content ?? '', /Kester Weir Bridge/, 'the standalone question retrieved passages about the bridge');
    const roles = call.messages.map((message) => message.role);
    assert.deepEqual(roles, ['system', 'user', 'assistant', 'user']);
    assert.equal(call.messages.at(-1)?.content, 'Who designed it?');
    assert.equal(call.messages[1]?.content, 'Tell me about the bridge in Kestermouth.');
    assert.doesNotMatch(call.messages[0]?.content ?? '', /You are terse/);
  });

  test('a streamed completion arrives in chunks, ends with finish_reason stop, the citations and the usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'kgrag-ppr',
      messages: [{ role: 'user', content: 'Who designed the Kester Weir Bridge?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let finish: string | null | undefined;
    let extra: { citations: unknown[] } | undefined;
    let usage: unknown;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      extra = (chunk as unknown as { kgrag?: { citations: unknown[] } }).kgrag ?? extra;
      usage = chunk.usage ?? usage;
    }
    assert.ok(chunks >= 4, `${chunks} chunks`);
    assert.match(text, /^The Kester Weir Bridge was designed by Clara Ivesley/);
    assert.match(text, /Sources:/);
    assert.equal(finish, 'stop');
    assert.ok(extra && extra.citations.length > 0);
    assert.ok(usage);
  });

  test('an unknown model, a conversation without a user message, and a wrong key are OpenAI client errors', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 404);
    await assert.rejects(client.chat.completions.create({ model: 'kgrag-basic', messages: [{ role: 'system', content: 'hi' }] }), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 400);
    const stranger = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong-key-0123456789abcdef', maxRetries: 0 });
    await assert.rejects(stranger.models.list(), (error: InstanceType<typeof OpenAI.APIError>) => error.status === 403);
  });

  test("errors reach the client with the server's message in OpenAI's shape, and models.retrieve finds a method", async () => {
    // The openai SDK reads `error.message` of the body: a problem document alone read "404 status code (no body)".
    const unknown = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).then(
      () => assert.fail('an unknown model is refused'),
      (error: InstanceType<typeof OpenAI.APIError>) => error,
    );
    assert.match(unknown.message, /^404 .*gpt-4o.*kgrag-/);
    assert.doesNotMatch(unknown.message, /no body/);
    assert.equal(unknown.type, 'not_found_error');
    assert.equal(unknown.param, 'model');
    assert.equal(unknown.code, 'SERVER_UNKNOWN_MODEL');
    const empty = await client.chat.completions.create({ model: 'kgrag-basic', messages: [{ role: 'system', content: 'hi' }] }).catch((error: InstanceType<typeof OpenAI.APIError>) => error);
    assert.ok(empty instanceof OpenAI.BadRequestError);
    assert.match(empty.message, /^400 .*user message/);
    assert.equal(empty.type, 'invalid_request_error');
    const stranger = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong-key-0123456789abcdef', maxRetries: 0 });
    const forbidden = await stranger.models.list().catch((error: InstanceType<typeof OpenAI.APIError>) => error);
    assert.ok(forbidden instanceof OpenAI.PermissionDeniedError && !/no body/.test(forbidden.message), String(forbidden));

    const model = await client.models.retrieve('kgrag-ppr');
    assert.deepEqual({ id: model.id, object: model.object, owned_by: model.owned_by }, { id: 'kgrag-ppr', object: 'model', owned_by: 'kgrag' });
    const missing = await client.models.retrieve('kgrag-nosuch').catch((error: InstanceType<typeof OpenAI.APIError>) => error);
    assert.ok(missing instanceof OpenAI.NotFoundError);
    assert.match(missing.message, /kgrag-nosuch/);
    // Other clients keep reading the problem document: its members are still there.
    const raw = await fetch(`${server.url}/v1/models/kgrag-nosuch`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await raw.json()) as { status: number; code: string; detail: string; error: { message: string } };
    assert.equal(body.status, 404);
    assert.equal(body.error.message, body.detail);
  });
});
