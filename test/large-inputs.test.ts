import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { builtInPrompts } from '../src/core/prompt-library.js';
import type { StepContext } from '../src/pipeline/pipeline-step.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import { chunkStep } from '../src/pipeline/steps/chunk-step.js';
import { loadStep } from '../src/pipeline/steps/load-step.js';
import { createEmbedder } from '../src/providers/embed/create-embedder.js';
import { createTokenizer } from '../src/text/tokenizer.js';

/*
 * Issue 16: past ~125,000 items the steps crashed with "Maximum call stack size exceeded", because their
 * lists were spread into call arguments (contentId(kind, ...ids), created.push(...chunks)). 150,000 items is
 * the smallest round size of the reports (a 150,000-record JSONL) and well past the limit.
 */

const items = 150_000;
const root = mkdtempSync(join(tmpdir(), 'kgrag-large-inputs-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('the load step reads a 150,000-record JSONL file', async () => {
  const file = join(root, 'records.jsonl');
  writeFileSync(file, Array.from({ length: items }, (_, index) => JSON.stringify({ id: `r${index}`, title: `Record ${index}`, text: `Record ${index} is number ${index}.` })).join('\n'));
  const kgrag = await createKgrag({ workspace: join(root, 'jsonl'), env: {}, config: { store: { path: ':memory:' } } });
  try {
    const tokenizer = await createTokenizer(kgrag.config.tokenizer.encoding);
    const summary = await runPipeline({ store: kgrag.store, config: kgrag.config, tokenizer, embedder: createEmbedder(kgrag.config), steps: [loadStep], inputs: { paths: [file], documents: [] } });
    assert.equal(summary.counts.load?.documents, items);
    assert.equal(await kgrag.store.table('documents').count(), items);
  } finally {
    await kgrag.close();
  }
});

test('the chunk step splits one document into 150,000 chunks', async () => {
  // One token per chunk: a document of 150,000 words gives 150,000 chunks.
  const text = Array.from({ length: items }, (_, index) => ` w${index % 10}`).join('');
  const kgrag = await createKgrag({ workspace: join(root, 'chunks'), env: {}, config: { store: { path: ':memory:' }, chunking: { size: 1, overlap: 0 } } });
  try {
    const tokenizer = await createTokenizer(kgrag.config.tokenizer.encoding);
    const embedder = createEmbedder(kgrag.config);
    const inputs = { paths: [], documents: [{ title: 'Many words', text }] };
    await runPipeline({ store: kgrag.store, config: kgrag.config, tokenizer, embedder, steps: [loadStep], inputs });
    const context: StepContext = {
      store: kgrag.store,
      config: kgrag.config,
      tokenizer,
      embedder,
      llm: undefined,
      prompts: builtInPrompts,
      inputs,
      signal: undefined,
      progress: () => undefined,
      warn: () => undefined,
    };
    // The step's computation only: writing 150,000 chunks and their full-text index takes longer than all the rest.
    const output = await chunkStep.run(context);
    assert.equal(output.counts.added, tokenizer.count(text));
    assert.ok((output.counts.added ?? 0) >= items);
    assert.match(output.outputVersion, /^[0-9a-f]{32}$/);
  } finally {
    await kgrag.close();
  }
});
