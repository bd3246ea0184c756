import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { z } from 'zod';
import { builtInMethods } from '../src/api/built-in-methods.js';
import { createKgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import type { AnyQueryMethod } from '../src/methods/query-method.js';
import type { PipelineStep } from '../src/pipeline/pipeline-step.js';

/*
 * A method given to createKgrag in code is served like a built-in: its index step runs in the composed pipeline and
 * writes what its retrieval reads back, its configuration section is validated with the rest, and a plugin whose
 * steps read a step nobody provides is refused when the pipeline is composed, before anything runs.
 */

const documents = [
  { title: 'Ada', text: 'Ada Lovelace wrote the first program for the Analytical Engine.' },
  { title: 'Alan', text: 'Alan Turing described a universal machine and broke the Enigma cipher.' },
];

/** Ranks passages by length, longest first, from the lengths its own index step stored. */
function longestFirst(reads: readonly string[] = ['chunk']): AnyQueryMethod {
  const step: PipelineStep = {
    name: 'longest-first-lengths',
    version: 1,
    reads,
    settings: () => ({}),
    async run(context) {
      const chunks = await context.store.table('chunks').pick(['id', 'text']);
      const lengths = Object.fromEntries(chunks.map((chunk) => [chunk.id, chunk.text.length]));
      return { counts: { chunks: chunks.length }, outputVersion: JSON.stringify(lengths), write: (tx) => tx.setMeta('longest-first:lengths', lengths) };
    },
  };
  return {
    specificationVersion: 'kgrag-method-v1',
    name: 'longest-first',
    description: 'the longest passages first',
    variants: [],
    config: z.object({ k: z.number().int().positive().default(1) }).strict(),
    ranking: { kind: 'native' },
    requires: ['longest-first-lengths'],
    provides: ['longest-first-lengths'],
    indexSteps: async () => [step],
    async retrieve(context, _question, config: { k: number }) {
      const lengths = (await context.store.getMeta<Record<string, number>>('longest-first:lengths')) ?? {};
      const ranked = Object.entries(lengths).sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]));
      return { chunks: await context.chunks(ranked.slice(0, config.k).map(([id, length]) => ({ id, score: length }))), state: undefined };
    },
  };
}

/** A plugin row: one chunk's length, in the plugin's own table. */
interface ChunkLengthRow {
  chunkId: string;
  length: number;
}

declare module '../src/store/schema.js' {
  interface TableRows {
    chunkLengths: ChunkLengthRow;
  }
}

/** Like {@link longestFirst}, but keeping the lengths in a table of its own, which the workspace's storage creates. */
function longestFromTable(): AnyQueryMethod {
  const step: PipelineStep = {
    name: 'longest-table-lengths',
    version: 1,
    reads: ['chunk'],
    settings: () => ({}),
    async run(context) {
      const rows = (await context.store.table('chunks').pick(['id', 'text'])).map((chunk) => ({ chunkId: chunk.id, length: chunk.text.length }));
      return {
        counts: { rows: rows.length },
        outputVersion: JSON.stringify(rows),
        async write(tx) {
          await tx.table('chunkLengths').clear();
          await tx.table('chunkLengths').upsert(rows);
        },
      };
    },
  };
  return {
    ...longestFirst(),
    name: 'longest-table',
    requires: ['longest-table-lengths'],
    provides: ['longest-table-lengths'],
    tables: { chunkLengths: { sqlName: 'longest_table_chunk_lengths', key: ['chunkId'], columns: { chunkId: { type: 'text' }, length: { type: 'integer' } }, hid: false } },
    indexSteps: async () => [step],
    async retrieve(context, _question, config: { k: number }) {
      const rows = await context.store.table('chunkLengths').all();
      const ranked = [...rows].sort((left, right) => right.length - left.length || left.chunkId.localeCompare(right.chunkId));
      return { chunks: await context.chunks(ranked.slice(0, config.k).map((row) => ({ id: row.chunkId, score: row.length }))), state: undefined };
    },
  };
}

const opened: Array<{ close(): Promise<void> }> = [];
after(async () => {
  for (const kgrag of opened) await kgrag.close();
});

describe('a method plugin given in code', () => {
  test('is indexed for, queried and listed like a built-in', async () => {
    const kgrag = await createKgrag({ env: {}, methods: [...builtInMethods, longestFirst()], config: { store: { path: ':memory:' }, index: { mode: 'fast' }, methods: { 'longest-first': { k: 2 } } } });
    opened.push(kgrag);
    const summary = await kgrag.index(documents, { methods: ['longest-first'] });
    assert.deepEqual(summary.ran, ['load', 'chunk', 'longest-first-lengths']);
    assert.ok(kgrag.engine.methods.some((method) => method.name === 'longest-first'));
    const result = await kgrag.retrieve('who?', { method: 'longest-first' });
    assert.deepEqual(result.retrieval.chunks.map((chunk) => chunk.documentTitle), ['Alan', 'Ada']);
  });

  test('has its own table created in the workspace\'s storage, written by its step and read by its queries', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'kgrag-plugin-table-'));
    try {
      const kgrag = await createKgrag({ workspace, env: {}, methods: [...builtInMethods, longestFromTable()], config: { index: { mode: 'fast' } } });
      try {
        await kgrag.index(documents, { methods: ['longest-table'] });
        assert.equal(await kgrag.store.table('chunkLengths').count(), 2);
        const result = await kgrag.retrieve('who?', { method: 'longest-table', params: { k: 2 } });
        assert.deepEqual(result.retrieval.chunks.map((chunk) => chunk.documentTitle), ['Alan', 'Ada']);
      } finally {
        await kgrag.close();
      }
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  test('has its configuration section validated when the workspace opens', async () => {
    await assert.rejects(
      createKgrag({ env: {}, methods: [...builtInMethods, longestFirst()], config: { store: { path: ':memory:' }, methods: { 'longest-first': { k: 0 } } } }),
      (error: unknown) => KgragError.isInstance(error) && /methods\.longest-first\.k/.test(error.message),
    );
  });

  test('is refused when its step reads a step nobody provides, before anything runs', async () => {
    const kgrag = await createKgrag({ env: {}, methods: [...builtInMethods, longestFirst(['chunk', 'no-such-step'])], config: { store: { path: ':memory:' }, index: { mode: 'fast' } } });
    opened.push(kgrag);
    await assert.rejects(kgrag.index(documents, { methods: ['longest-first'] }), (error: unknown) => {
      assert.ok(KgragError.isInstance(error));
      assert.equal(error.code, 'PLUGIN_INVALID');
      assert.match(error.message, /method plugin "longest-first" reads the step "no-such-step", which no shared step or method provides/);
      return true;
    });
    assert.equal((await kgrag.stats()).documents, 0);
  });
});

describe('the configuration of a workspace', () => {
  test('is typed by its methods: methods.<name> by each one\'s schema', async () => {
    const kgrag = await createKgrag({ env: {}, config: { store: { path: ':memory:' }, methods: { basic: { variant: 'bm25', k: 3 }, kgp: { budget: 5 } } } });
    opened.push(kgrag);
    const k: number | undefined = kgrag.config.methods.basic?.k;
    const variant: string | undefined = kgrag.config.methods.basic?.variant;
    assert.deepEqual([k, variant], [3, 'bm25']);
    // @ts-expect-error basic has no parameter "budget"
    assert.equal(kgrag.config.methods.basic?.budget, undefined);
    await assert.rejects(
      createKgrag({ env: {}, config: { store: { path: ':memory:' }, methods: { basic: { variant: 'sparse' } } } }),
      /methods\.basic\.variant/,
    );
  });
});

describe('plugins: in kgrag.yaml', () => {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-plugins-'));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const fields = "description: 'x', variants: [], config: { safeParse: () => ({ success: true, data: {} }), shape: {} }, ranking: { kind: 'native' }, requires: ['chunk'], retrieve: async () => ({ chunks: [], state: undefined })";

  /** Opens a workspace whose kgrag.yaml lists `plugin`, with the modules `files` beside it; resolves to the error. */
  async function openingError(plugin: string, files: Record<string, string>): Promise<KgragError> {
    const workspace = mkdtempSync(join(folder, 'ws-'));
    writeFileSync(join(workspace, 'kgrag.yaml'), `plugins: [${JSON.stringify(plugin)}]\n`);
    for (const [file, text] of Object.entries(files)) writeFileSync(join(workspace, file), text);
    const error = await createKgrag({ workspace, env: {} }).then(
      async (kgrag) => {
        await kgrag.close();
        return undefined;
      },
      (caught: unknown) => caught,
    );
    assert.ok(KgragError.isInstance(error), `opening fails with a KgragError, not ${String(error)}`);
    assert.equal(error.category, 'config');
    assert.ok((error.hint ?? '').length > 0, 'the error says how to fix it');
    return error;
  }

  test('a missing module names the path it looked for, relative to the workspace', async () => {
    const error = await openingError('./missing.js', {});
    assert.equal(error.code, 'PLUGIN_NOT_FOUND');
    assert.match(error.message, /plugin \.\/missing\.js .* is not found: .*missing\.js does not exist/);
    assert.equal((await openingError('no-such-kgrag-plugin-package', {})).code, 'PLUGIN_NOT_FOUND');
  });

  test('a module that exports no method, or one that fails to load, says so', async () => {
    const none = await openingError('./none.mjs', { 'none.mjs': 'export const helper = 1;\n' });
    assert.equal(none.code, 'PLUGIN_NO_EXPORT');
    assert.match(none.message, /exports no method \(its exports: helper\)/);
    const broken = await openingError('./broken.mjs', { 'broken.mjs': 'throw new Error("boom");\n' });
    assert.equal(broken.code, 'PLUGIN_LOAD_FAILED');
    assert.match(broken.message, /could not be loaded: boom/);
  });

  test('a method of another specification version, or missing fields, is refused with every problem', async () => {
    const error = await openingError('./old.mjs', { 'old.mjs': `export const method = { specificationVersion: 'kgrag-method-v0', name: 'old', ${fields} };\n` });
    assert.equal(error.code, 'PLUGIN_INVALID');
    assert.match(error.message, /method "old" that is not a kgrag-method-v1 method: specificationVersion is "kgrag-method-v0", and this kgrag implements "kgrag-method-v1"/);
    const partial = await openingError('./partial.mjs', { 'partial.mjs': "export default { specificationVersion: 'kgrag-method-v1', name: 'partial' };\n" });
    assert.match(partial.message, /retrieve must be a function/);
    assert.match(partial.message, /config must be a zod object schema/);
  });

  test('a method named like a built-in is refused, naming the module', async () => {
    const error = await openingError('./clash.mjs', { 'clash.mjs': `export const methods = [{ specificationVersion: 'kgrag-method-v1', name: 'basic', ${fields} }];\n` });
    assert.equal(error.code, 'PLUGIN_INVALID');
    assert.match(error.message, /method plugin "basic" \(\.\/clash\.mjs\) has the name of a built-in method/);
  });
});
