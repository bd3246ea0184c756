import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import { startMockOpenAiServer } from '../src/testing/index.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { sampleWorkspaceAt } from './helpers/test-server.js';

/*
 * A model or embedding server that is not running must fail in one short retry with the URL and the fix,
 * not after half a minute of silent backoff; and calls that are retried say so on stderr.
 */

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-unreachable-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A loopback URL nothing listens on: a port the system handed out and that was closed again. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${address.port}/v1`;
}

/** `fetch` that counts the requests it sends. */
function countingFetch(): { fetch: typeof fetch; count: () => number } {
  let count = 0;
  return {
    fetch: (input, init) => {
      count += 1;
      return globalThis.fetch(input, init);
    },
    count: () => count,
  };
}

describe('a model server that is not running', () => {
  let baseURL: string;
  before(async () => {
    baseURL = await closedPortUrl();
  });

  test('an LLM call fails after at most one retry, naming the URL and how to fix it', async () => {
    const counter = countingFetch();
    const kgrag = await createKgrag({
      workspace: join(root, 'llm'),
      env: {},
      fetch: counter.fetch,
      config: { store: { path: ':memory:' }, llm: { provider: 'openai-compatible', baseURL, apiKey: 'key', model: 'some-model', retryBaseDelayMs: 1 } },
    });
    try {
      await kgrag.index([{ title: 'Kester', text: 'The Kester Weir Bridge was opened on 14 May 1938 by the town council.' }], { mode: 'fast' });
      const error = await kgrag.query('When was the Kester Weir Bridge opened?', { method: 'basic' }).then(
        () => assert.fail('the query should fail'),
        (caught: unknown) => caught,
      );
      assert.ok(KgragError.isInstance(error));
      assert.equal(error.code, 'LLM_SERVER_UNREACHABLE');
      assert.ok(counter.count() <= 2, `${counter.count()} connection attempts`);
      assert.ok(error.message.includes(baseURL), error.message);
      assert.match(error.message, /connection refused/);
      assert.match(error.hint ?? '', /Start the LLM server/);
      assert.match(error.hint ?? '', /llm\.baseURL/);
      assert.match(error.hint ?? '', /KGRAG_LLM_BASE_URL/);
    } finally {
      await kgrag.close();
    }
  });

  test('an embedding server likewise: at most one retry, and the hint names embeddings.baseURL', async () => {
    const counter = countingFetch();
    const kgrag = await createKgrag({
      workspace: join(root, 'embeddings'),
      env: {},
      fetch: counter.fetch,
      config: { store: { path: ':memory:' }, llm: { provider: 'none' }, embeddings: { provider: 'openai-compatible', baseURL, model: 'some-embedder' } },
    });
    try {
      const error = await kgrag.index([{ title: 'Kester', text: 'The Kester Weir Bridge was opened in 1938.' }], { mode: 'fast' }).then(
        () => assert.fail('indexing should fail'),
        (caught: unknown) => caught,
      );
      assert.ok(KgragError.isInstance(error));
      assert.equal(error.code, 'LLM_SERVER_UNREACHABLE');
      assert.ok(counter.count() <= 2, `${counter.count()} connection attempts`);
      assert.ok(error.message.includes(baseURL), error.message);
      assert.match(error.hint ?? '', /Start the embedding server/);
      assert.match(error.hint ?? '', /embeddings\.baseURL/);
    } finally {
      await kgrag.close();
    }
  });

  test('kgrag query says it retries once, then fails with the URL and the fix', async () => {
    const workspace = await sampleWorkspaceAt(join(root, 'cli'));
    const result = await runCliCaptured(['query', 'When was the Kester Weir Bridge opened?', '-w', workspace, '-m', 'basic'], {
      cwd: root,
      env: { KGRAG_LLM_BASE_URL: baseURL, KGRAG_LLM_API_KEY: 'key', KGRAG_LLM_RETRY_BASE_DELAY_MS: '1' },
    });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^LLM call \(answer\) attempt 1 of 2 failed: cannot connect \(ECONNREFUSED\); retrying in \d+\.\d s$/m);
    const errorLine = result.stderr.split('\n').find((line) => line.startsWith('kgrag: error:')) ?? '';
    assert.ok(errorLine.includes(baseURL), result.stderr);
    assert.match(errorLine, /Start the LLM server, or point llm\.baseURL \(or KGRAG_LLM_BASE_URL\)/);
  });
});

test('kgrag index shows each wave of retries with the step, the call kind, the attempt and the wait', async () => {
  const workspace = join(root, 'retries');
  const documents = join(root, 'retries-corpus');
  mkdirSync(documents, { recursive: true });
  cpSync(join(corpus, '03-kester-weir-bridge.md'), join(documents, '03-kester-weir-bridge.md'));
  const server = await startMockOpenAiServer({ reply: (request) => sampleLlmReply(request), faults: { sequence: ['429', '500'], retryAfterSeconds: 0 } });
  try {
    const result = await runCliCaptured(['index', documents, '-w', workspace, '--mode', 'standard'], {
      cwd: root,
      env: {
        KGRAG_LLM_BASE_URL: server.url,
        KGRAG_LLM_API_KEY: 'key',
        KGRAG_LLM_MODEL: 'mock-model',
        KGRAG_LLM_CONCURRENCY: '1',
        KGRAG_LLM_RETRY_BASE_DELAY_MS: '1',
      },
    });
    assert.equal(result.code, 0, result.stderr);
    // Each line: the step, the call kind, the attempt of how many, why, and the wait. Both faults come early,
    // a few ms apart, so they are one wave or two depending on the machine.
    const retryLines = result.stderr.split('\n').filter((line) => line.includes('retrying'));
    assert.ok(retryLines.length >= 1 && retryLines.length <= 2, retryLines.join('\n'));
    for (const line of retryLines) assert.match(line, /^llm-extract: .*LLM call.* \(extract-graph\).* of 7.*: .*; retrying in \d+\.\d s$/);
    assert.match(retryLines.join('\n'), /rate-limited \(HTTP 429\)/);
    assert.match(retryLines.join('\n'), /server error \(HTTP 500\)/);
  } finally {
    await server.close();
  }
});
