import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createKgrag } from '../api/create-kgrag.js';
import type { Embedder } from '../providers/embed/embedder.js';
import { createTokenizer } from '../text/tokenizer.js';
import { createQueryEngine, type IndexSource } from './query-engine.js';
import { methodSpecificationVersion, type QueryMethod } from './query-method.js';

const corpus = fileURLToPath(new URL('../../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-engine-'));
after(() => rmSync(root, { recursive: true, force: true }));

let chunked: Promise<string> | undefined;
/**
 * A workspace holding the sample corpus's chunks, indexed once for the tests whose methods read nothing else; each
 * caller opens it anew.
 */
function chunkedWorkspace(): Promise<string> {
  chunked ??= (async () => {
    const workspace = join(root, 'chunked');
    const kgrag = await createKgrag({ workspace, env: {} });
    try {
      await kgrag.index([corpus], { methods: ['basic'] });
    } finally {
      await kgrag.close();
    }
    return workspace;
  })();
  return chunked;
}

describe('query engine', () => {
  test('a workspace queried before indexing answers once indexing has run in the same process', async () => {
    const kgrag = await createKgrag({ workspace: join(root, 'late'), env: {} });
    try {
      await assert.rejects(kgrag.query('Who founded Quaymark Software?'), (error: Error & { code?: string }) => error.code === 'QUERY_NO_INDEX');
      await kgrag.index([corpus]);
      // (A question the corpus answers: an offline answer quotes only sentences that support one.)
      const result = await kgrag.query('Who founded Quaymark Software?');
      assert.ok(result.citations.length > 0);
    } finally {
      await kgrag.close();
    }
  });

  test('memo builds a value once per index and again after invalidate; a failed build is not remembered', async () => {
    const kgrag = await createKgrag({ workspace: await chunkedWorkspace(), env: {} });
    let builds = 0;
    let fail = true;
    const counting: QueryMethod = {
      specificationVersion: methodSpecificationVersion,
      name: 'counting',
      description: 'counts memo builds',
      variants: [],
      config: z.object({}).strict(),
      ranking: { kind: 'native' },
      requires: ['chunk'],
      async retrieve(context) {
        await context.memo('broken', async () => {
          if (fail) throw new Error('not yet');
          return 1;
        }).catch(() => undefined);
        const chunkCount = await context.memo('chunk-count', async () => {
          builds++;
          return context.store.table('chunks').count();
        });
        return { chunks: [], keywords: [{ id: 'chunks', text: 'chunks', score: chunkCount }], state: undefined };
      },
    };
    // The method reads nothing but the store, so the engine gets a one-dimensional stand-in embedder.
    const embedder: Embedder = { id: 'unused', dimensions: 1, maxBatchSize: 1, embed: async (texts) => texts.map(() => new Float32Array([1])) };
    const engine = createQueryEngine({ store: kgrag.store, config: kgrag.config, embedder, tokenizer: await createTokenizer(), methods: [counting] });
    try {
      const first = await engine.retrieve({ question: 'a', method: 'counting' });
      await engine.retrieve({ question: 'b', method: 'counting' });
      assert.equal(builds, 1);
      assert.equal(first.retrieval.keywords?.[0]?.score, 35);
      engine.invalidate();
      fail = false;
      await engine.retrieve({ question: 'c', method: 'counting' });
      assert.equal(builds, 2);
    } finally {
      await kgrag.close();
    }
  });

  test('a query still running on the previous index does not leave what it derived from it to queries of the new one', async () => {
    const kgrag = await createKgrag({ workspace: await chunkedWorkspace(), env: {} });
    // Two published generations over the same rows; only which one a query read is compared.
    let generation = 1;
    const source: IndexSource = {
      location: 'two generations',
      status: () => kgrag.status(),
      snapshot: async () => ({ store: kgrag.store, generation, publishedAt: null, release: () => undefined }),
    };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated: QueryMethod = {
      specificationVersion: methodSpecificationVersion,
      name: 'gated',
      description: 'memoizes the generation its first query read, after a gate',
      variants: [],
      config: z.object({ wait: z.boolean().default(false), read: z.boolean().default(true) }).strict(),
      ranking: { kind: 'native' },
      requires: ['chunk'],
      async retrieve(context, _question, params) {
        const read = generation;
        if (params.wait) await gate;
        const derived = params.read ? await context.memo('derived-from', async () => read) : 0;
        return { chunks: [], keywords: [{ id: 'generation', text: 'generation', score: derived }], state: undefined };
      },
    };
    const embedder: Embedder = { id: 'unused', dimensions: 1, maxBatchSize: 1, embed: async (texts) => texts.map(() => new Float32Array([1])) };
    const engine = createQueryEngine({ index: source, config: kgrag.config, embedder, tokenizer: await createTokenizer(), methods: [gated] });
    try {
      const slow = engine.retrieve({ question: 'a', method: 'gated', params: { wait: true } });
      await new Promise((resolve) => setTimeout(resolve, 20));
      generation = 2;
      // A query of the new generation that derives nothing: the engine now holds the new generation's values.
      await engine.retrieve({ question: 'b', method: 'gated', params: { read: false } });
      release();
      assert.equal((await slow).retrieval.keywords?.[0]?.score, 1);
      const fresh = await engine.retrieve({ question: 'c', method: 'gated' });
      assert.equal(fresh.retrieval.keywords?.[0]?.score, 2, 'the new generation derived its own value');
    } finally {
      await kgrag.close();
    }
  });

  test('topK sets every top-k parameter a method names; a method without one ignores it with a warning that names its parameters', async () => {
    const kgrag = await createKgrag({ workspace: await chunkedWorkspace(), env: {} });
    const echo = (name: string, topKParam: QueryMethod['topKParam']): QueryMethod => ({
      specificationVersion: methodSpecificationVersion,
      name,
      description: 'returns its parameters',
      variants: [],
      config: z.object({ first: z.number().default(1), second: z.number().default(2), depth: z.number().default(3) }).strict(),
      ...(topKParam === undefined ? {} : { topKParam }),
      ranking: { kind: 'native' },
      requires: ['chunk'],
      async retrieve(_context, _question, params) {
        return { chunks: [], keywords: Object.entries(params).map(([key, value]) => ({ id: key, text: key, score: Number(value) })), state: undefined };
      },
    });
    const embedder: Embedder = { id: 'unused', dimensions: 1, maxBatchSize: 1, embed: async (texts) => texts.map(() => new Float32Array([1])) };
    const engine = createQueryEngine({
      store: kgrag.store,
      config: kgrag.config,
      embedder,
      tokenizer: await createTokenizer(),
      methods: [echo('both', ['first', 'second']), echo('none', undefined)],
    });
    const scores = (result: Awaited<ReturnType<typeof engine.retrieve>>) => Object.fromEntries((result.retrieval.keywords ?? []).map((keyword) => [keyword.id, keyword.score]));
    try {
      const both = await engine.retrieve({ question: 'a', method: 'both', topK: 7 });
      assert.deepEqual(scores(both), { first: 7, second: 7, depth: 3 });
      assert.deepEqual(both.warnings, []);
      assert.deepEqual(scores(await engine.retrieve({ question: 'a', method: 'both', topK: 7, params: { second: 4 } })), { first: 7, second: 4, depth: 3 });
      const none = await engine.retrieve({ question: 'a', method: 'none', topK: 7 });
      assert.deepEqual(scores(none), { first: 1, second: 2, depth: 3 });
      assert.deepEqual(none.warnings, ['topK does not apply to method "none", which has no top-k parameter, so it was ignored; set one of its parameters instead: first, second, depth']);
    } finally {
      await kgrag.close();
    }
  });
});
