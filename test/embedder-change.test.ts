import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import { startMockOpenAiServer, type MockOpenAiServer } from '../src/testing/mock-openai-server.js';

/*
 * Vectors of two embedding models of the same dimension compare without any arithmetic error and rank nonsense.
 * The index records which embedder made its vectors; a query with another one must stop and name both.
 */
describe('changing the embedding model after indexing', () => {
  let server: MockOpenAiServer;
  let workspace: string;
  const embeddings = (model: string) => ({ provider: 'openai-compatible' as const, model, dimensions: 16, baseURL: server.url });

  before(async () => {
    server = await startMockOpenAiServer();
    workspace = mkdtempSync(join(tmpdir(), 'kgrag-embedder-change-'));
    const docs = join(workspace, 'docs');
    writeFileSync(join(workspace, 'kgrag.yaml'), '');
    mkdirSync(docs);
    writeFileSync(join(docs, 'weir.md'), '# Kester Weir\n\nThe Kester Weir was rebuilt in 1952 after the flood.\n');
    writeFileSync(join(docs, 'ferry.md'), '# Ferry\n\nAgnes Wray ran the Kestermouth ferry for thirty years.\n');
    const kgrag = await createKgrag({ workspace, env: {}, config: { embeddings: embeddings('embed-small'), pipeline: { methods: ['basic'] } } });
    try {
      await kgrag.index([docs]);
    } finally {
      await kgrag.close();
    }
  });
  after(async () => {
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  test('a query that embeds fails naming the indexed and the configured embedder, and the fix', async () => {
    const kgrag = await createKgrag({ workspace, env: {}, config: { embeddings: embeddings('embed-large') } });
    try {
      await assert.rejects(kgrag.query('When was the weir rebuilt?', { method: 'basic:dense' }), (error: unknown) => {
        assert.ok(KgragError.isInstance(error));
        assert.equal(error.code, 'QUERY_EMBEDDER_MISMATCH');
        assert.match(error.message, /"openai-compatible:embed-small:16"/);
        assert.match(error.message, /"openai-compatible:embed-large:16"/);
        assert.match(error.hint ?? '', /kgrag index/);
        return true;
      });
      const keywordOnly = await kgrag.query('When was the weir rebuilt?', { method: 'basic:bm25' });
      assert.equal(keywordOnly.context.chunks[0]?.documentTitle, 'Kester Weir', 'a method that reads no vectors still answers');
    } finally {
      await kgrag.close();
    }
  });

  test('the same embedder queries normally', async () => {
    const kgrag = await createKgrag({ workspace, env: {}, config: { embeddings: embeddings('embed-small') } });
    try {
      const result = await kgrag.query('When was the weir rebuilt?', { method: 'basic:dense' });
      assert.ok(result.context.chunks.length > 0);
    } finally {
      await kgrag.close();
    }
  });
});
