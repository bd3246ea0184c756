import assert from 'node:assert/strict';
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

const opened: Array<{ close(): Promise<void> }> = [];
after(async () => {
  for (const kgrag of opened) await kgrag.close();
});

describe('a method plugin given in code', () => {
  test('is indexed for, queried and listed like a built-in', async () => {
    const kgrag = await createKgrag({ env: {}, methods: [...builtInMethods, longestFirst()], config: { store: { path: ':memory:' }, index: { mode: 'fast' }, methods: { 'longest-first': { k: 2 } } as never } });
    opened.push(kgrag);
    const summary = await kgrag.index(documents, { methods: ['longest-first'] });
    assert.deepEqual(summary.ran, ['load', 'chunk', 'longest-first-lengths']);
    assert.ok(kgrag.engine.methods.some((method) => method.name === 'longest-first'));
    const result = await kgrag.retrieve('who?', { method: 'longest-first' });
    assert.deepEqual(result.retrieval.chunks.map((chunk) => chunk.documentTitle), ['Alan', 'Ada']);
  });

  test('has its configuration section validated when the workspace opens', async () => {
    await assert.rejects(
      createKgrag({ env: {}, methods: [...builtInMethods, longestFirst()], config: { store: { path: ':memory:' }, methods: { 'longest-first': { k: 0 } } as never } }),
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
