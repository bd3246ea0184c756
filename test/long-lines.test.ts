import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import { builtInPrompts } from '../src/core/prompt-library.js';
import { extractNounPhrases } from '../src/extract/nlp-graph/noun-phrase-extractor.js';
import type { StepContext } from '../src/pipeline/pipeline-step.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import { chunkStep } from '../src/pipeline/steps/chunk-step.js';
import { loadStep } from '../src/pipeline/steps/load-step.js';
import { createEmbedder } from '../src/providers/embed/create-embedder.js';
import { chunkBySentences } from '../src/text/chunk/chunk-by-sentences.js';
import { chunkBySeparators } from '../src/text/chunk/chunk-by-separators.js';
import { chunkByTokens } from '../src/text/chunk/chunk-by-tokens.js';
import type { TextSlice } from '../src/text/chunk/text-slice.js';
import { findMarkdownSections } from '../src/text/load/find-markdown-sections.js';
import { normalizeText } from '../src/text/normalize-text.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { seededRandom } from './fixtures/text/seeded-random.js';

/*
 * Issue 16: work quadratic in the length of a line or run hung indexing — a 2 MB line without spaces was
 * still in `chunk` after 10 minutes, a Markdown file with long `*` runs took minutes — and nothing let
 * Ctrl-C through while a large file was chunked. Each case here took minutes or never finished before.
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-long-lines-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** 2 MB of random lower-case letters: one line, no spaces, no sentence ends. */
function longLine(seed: number): string {
  const random = seededRandom(seed);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const parts: string[] = [];
  for (let length = 0; length < 2_000_000; length += 1000) parts.push(Array.from({ length: 1000 }, () => letters[random.integer(0, 25)]).join(''));
  return parts.join('');
}

function assertTiles(text: string, slices: readonly TextSlice[], size: number): void {
  assert.ok(slices.length > 100);
  assert.equal(slices[0]?.start, 0);
  assert.equal(slices.at(-1)?.end, text.length);
  let oversized = 0;
  for (const [index, slice] of slices.entries()) {
    if (slice.text !== text.slice(slice.start, slice.end)) assert.fail(`chunk ${index} is not the text at its offsets`);
    if (index > 0 && slice.start > slices[index - 1]!.end) assert.fail(`gap before chunk ${index}`);
    if (slice.nTokens > size) oversized += 1;
  }
  assert.equal(oversized, 0);
}

describe('a 2 MB line without spaces', () => {
  const text = longLine(3);

  test('is chunked by tokens', async () => {
    const tokenizer = await createTokenizer();
    assertTiles(text, chunkByTokens(text, tokenizer, { size: 1200, overlap: 100 }), 1200);
  });

  test('is chunked by sentences and by separators (its first 500 kB, to keep the test short)', async () => {
    const tokenizer = await createTokenizer();
    const part = text.slice(0, 500_000);
    assertTiles(part, chunkBySentences(part, tokenizer, { size: 200, overlap: 20 }), 200);
    const bySeparators = chunkBySeparators(part, tokenizer, { size: 200 });
    assertTiles(part, bySeparators, 200);
    for (const slice of bySeparators.slice(0, 50)) assert.equal(slice.nTokens, tokenizer.count(slice.text));
  });

  test('the chunk step stops mid-way when its signal aborts', async () => {
    const kgrag = await createKgrag({ workspace: join(root, 'abort'), env: {}, config: { store: { path: ':memory:' } } });
    try {
      const tokenizer = await createTokenizer(kgrag.config.tokenizer.encoding);
      const embedder = createEmbedder(kgrag.config);
      const inputs = { paths: [], documents: [{ title: 'One long line', text: `${text}\n${longLine(4)}` }] };
      await runPipeline({ store: kgrag.store, config: kgrag.config, tokenizer, embedder, steps: [loadStep], inputs });
      const controller = new AbortController();
      const context: StepContext = {
        store: kgrag.store,
        config: kgrag.config,
        tokenizer,
        embedder,
        llm: undefined,
        prompts: builtInPrompts,
        inputs,
        signal: controller.signal,
        progress: () => undefined,
        warn: () => undefined,
      };
      // Like Ctrl-C: the abort comes from the event loop, which runs only if chunking gives it a turn.
      setImmediate(() => controller.abort());
      await assert.rejects(chunkStep.run(context), (error: unknown) => error instanceof Error && error.name === 'AbortError');

      const pipelineController = new AbortController();
      const aborted = runPipeline({
        store: kgrag.store,
        config: kgrag.config,
        tokenizer,
        embedder,
        steps: [loadStep, chunkStep],
        signal: pipelineController.signal,
        onEvent: (event) => {
          if (event.type === 'step-start' && event.step === 'chunk') setImmediate(() => pipelineController.abort());
        },
      });
      await assert.rejects(aborted, (error: unknown) => KgragError.isInstance(error) && error.code === 'PIPELINE_ABORTED');
      const [run] = await kgrag.store.table('runs').get(['chunk']);
      assert.equal(run?.status, 'failed');
      assert.equal(await kgrag.store.table('chunks').count(), 0);
    } finally {
      await kgrag.close();
    }
  });
});

test('a 2 MB run of spaces inside a line is normalized, and a heading line with one is read', () => {
  const spaces = ' '.repeat(2_000_000);
  assert.equal(normalizeText(`a${spaces}b  \nc`), `a${spaces}b\nc`);
  assert.deepEqual(findMarkdownSections(`# a${spaces}b #`), [{ heading: `a${spaces}b`, level: 1, start: 0 }]);
});

test('noun phrases are found in a text with a 100,000-character run of `*`', () => {
  const text = `The Kester Weir Bridge was built in 1947. ${'*'.repeat(100_000)} Clara Ivesley opened the old boatworks.`;
  const { mentions } = extractNounPhrases(text);
  const surfaces = mentions.map((mention) => mention.surface);
  assert.ok(surfaces.includes('Kester Weir Bridge'), surfaces.join(', '));
  assert.ok(surfaces.includes('Clara Ivesley'), surfaces.join(', '));
  for (const mention of mentions) assert.equal(text.slice(mention.start, mention.end), mention.surface);
});
