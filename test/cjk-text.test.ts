import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { PipelineWarning } from '../src/pipeline/pipeline-step.js';
import { generateCjkCorpus } from './helpers/cjk-corpus.js';

/*
 * Chinese, Japanese and Korean documents: BM25 and the local embedder tokenized a run of CJK letters as one
 * word, so every method found no passage (BM25) or a near-random one (dense), and the English-only NLP steps
 * found 0 entities without a word. Both searches now find the passage a question is about, and the index run
 * says once which steps cannot read the text.
 */

const corpus = generateCjkCorpus(10);

describe('an index of Chinese, Japanese and Korean text (fast mode, no LLM)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-cjk-'));
  let kgrag: Kgrag;
  const warnings: PipelineWarning[] = [];
  let summaryWarnings = 0;
  before(async () => {
    kgrag = await createKgrag({ workspace: directory, env: {}, config: { index: { mode: 'fast' } } });
    const summary = await kgrag.index(
      corpus.map((passage) => ({ title: passage.title, text: passage.text })),
      { onEvent: (event) => event.type === 'warning' && warnings.push(event.warning) },
    );
    summaryWarnings = summary.warnings;
  });
  after(async () => {
    await kgrag.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Rank of the question's own passage in a method's context (-1: absent). */
  const rankOf = async (method: string, passage: (typeof corpus)[number]): Promise<number> => {
    const result = await kgrag.query(passage.question, { method, contextOnly: true, topK: 5 });
    return result.context.chunks.findIndex((chunk) => chunk.text === passage.text);
  };

  it('basic:bm25 ranks the passage a question names first, in all three languages', async () => {
    for (const passage of corpus) assert.equal(await rankOf('basic:bm25', passage), 0, `${passage.language}: ${passage.question}`);
  });

  it('basic:dense (the local embedder) ranks it first for nearly every question, and in the top five for all', async () => {
    const ranks = await Promise.all(corpus.map((passage) => rankOf('basic:dense', passage)));
    assert.ok(ranks.every((rank) => rank >= 0), `ranks ${ranks.join(' ')}`);
    // Before, 6 of the 30 were first.
    assert.ok(ranks.filter((rank) => rank === 0).length >= 28, `ranks ${ranks.join(' ')}`);
  });

  it('the extractive answer quotes first a sentence of the passage a question asks about, in all three languages', async () => {
    for (const passage of corpus) {
      const result = await kgrag.query(passage.question, { method: 'basic:bm25', topK: 5 });
      const quote = result.citations[0]?.quote;
      assert.ok(quote !== undefined && passage.text.includes(quote), `${passage.language}: ${passage.question} → ${result.answer.text}`);
    }
  });

  it('warns once, naming the English-only steps that found nothing', () => {
    const language = warnings.filter((warning) => warning.code === 'text-language-unsupported');
    assert.equal(language.length, 1, JSON.stringify(warnings));
    assert.equal(summaryWarnings, warnings.length);
    const [warning] = language as [PipelineWarning];
    assert.match(warning.message, /^30 of 30 chunks are Chinese, Japanese or Korean text/);
    assert.match(warning.message, /steps "nlp-extract", "triples", "keywords" cannot read/);
    assert.match(warning.message, /--mode standard/);
  });

  it('English text gets no such warning', async () => {
    const english = await createKgrag({ workspace: join(directory, 'english'), env: {}, config: { index: { mode: 'fast' } } });
    const seen: PipelineWarning[] = [];
    try {
      await english.index([{ title: 'Weir', text: 'The Kester Weir was rebuilt in 1990 after the flood. A café (Tōkyō style) sold 日本 tea nearby.' }], {
        onEvent: (event) => event.type === 'warning' && seen.push(event.warning),
      });
    } finally {
      await english.close();
    }
    assert.deepEqual(seen, []);
  });
});
