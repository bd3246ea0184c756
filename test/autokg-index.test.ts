import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { decodeChunkKnnGraph } from '../src/pipeline/steps/chunk-knn-graph-codec.js';
import { builtInPrompts } from '../src/core/prompt-library.js';
import { extractLlmKeywords, paperTokenBound } from '../src/methods/autokg/build/extract-llm-keywords.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { createScriptedLanguageModel, startMockOpenAiServer } from '../src/testing/index.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';

/*
 * AutoKG's index side on the sample corpus: the knn-graph and keywords steps in fast mode (LLM-free
 * c-TF-IDF keywords) and standard mode (scripted LLM keywords), the tables they write and their
 * invariants, and resumability of the LLM keyword extraction.
 */

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const directory = mkdtempSync(join(tmpdir(), 'kgrag-autokg-'));
after(() => rmSync(directory, { recursive: true, force: true }));

/** Checks the keyword tables against each other: cap, u ≥ 0.5, W = PᵀP − diag stored both ways, vectors. */
async function checkKeywordTables(kgrag: Kgrag): Promise<{ keywords: number; memberships: number; edges: number }> {
  const { store } = kgrag;
  const keywords = await store.table('keywords').all();
  const members = await store.table('keywordChunks').all();
  const edges = await store.table('keywordEdges').all();
  const chunks = await store.table('chunks').count();
  assert.ok(keywords.length > 0, 'no keywords');
  const chunksOf = new Map<string, Set<string>>(keywords.map((keyword) => [keyword.id, new Set()]));
  for (const member of members) {
    assert.ok(member.score >= 0.5 - 1e-9 && member.score <= 1 + 1e-9, `score ${member.score}`);
    chunksOf.get(member.keywordId)?.add(member.chunkId);
  }
  for (const [id, set] of chunksOf) assert.ok(set.size <= Math.max(1, Math.floor(0.2 * chunks)) + 2, `keyword ${id} has ${set.size} of ${chunks} chunks`);
  const expected = new Map<string, number>();
  const ids = [...chunksOf.keys()];
  for (const a of ids) {
    for (const b of ids) {
      if (a === b) continue;
      let shared = 0;
      for (const chunk of chunksOf.get(a) as Set<string>) if ((chunksOf.get(b) as Set<string>).has(chunk)) shared++;
      if (shared > 0) expected.set(`${a}|${b}`, shared);
    }
  }
  assert.deepEqual(new Map(edges.map((edge) => [`${edge.a}|${edge.b}`, edge.weight])), expected, 'keyword_edges = PᵀP − diag in both directions');
  assert.equal(await store.vectors('keywords').count(), keywords.length);
  return { keywords: keywords.length, memberships: members.length, edges: edges.length };
}

describe('AutoKG index steps on the sample corpus', () => {
  it('fast mode: LLM-free keywords, Laplace memberships and the keyword graph', async () => {
    const kgrag = await createKgrag({ workspace: join(directory, 'fast'), env: {} });
    try {
      const summary = await kgrag.index([corpus]);
      assert.ok(summary.ran.includes('chunk-graph') && summary.ran.includes('keywords'));
      const counts = summary.counts.keywords as Record<string, number>;
      assert.equal(counts.clusters, 30);
      const tables = await checkKeywordTables(kgrag);
      assert.equal(counts.keywords, tables.keywords);
      assert.ok(tables.edges > 0);
      assert.ok((await kgrag.store.getBlob('autokg-knn-graph')) !== undefined);
      // A kernel change re-runs only the keywords step.
      await kgrag.close();
      const again = await createKgrag({ workspace: join(directory, 'fast'), env: {}, config: { methods: { autokg: { kernel: 'angular' } } } });
      try {
        const rerun = await again.index([corpus]);
        assert.deepEqual(rerun.ran.filter((step) => step !== 'load'), ['keywords']);
        await checkKeywordTables(again);
      } finally {
        await again.close();
      }
    } finally {
      await kgrag.close().catch(() => undefined);
    }
  });

  it('a near-duplicate chunk is left out of the chunk graph, the keywords and the search (remove_same_text)', async () => {
    // A bulletin that repeats its notice: with AutoKG's 200-token separator chunks, both copies are chunks of their own.
    const notice =
      'Harbour notice. The Kestermouth harbour master closes the slipway at Mill Yard from Monday for dredging. ' +
      'Boat owners should moor at the Ferry Inn pontoon until the work ends; the ferry keeps its timetable. '.repeat(4).trim();
    const news = (topic: string) => `${topic} `.repeat(12).trim();
    const bulletin = [notice, news('The lantern fair committee met on Tuesday and chose a theme for the autumn parade.'), notice, news('Sedley Mill reopens its shop on Saturday with a new exhibition about wool.')].join('\n\n');
    const kgrag = await createKgrag({ workspace: join(directory, 'duplicates'), env: {}, config: { chunking: { strategy: 'separators', size: 200, overlap: 0 } } });
    try {
      const summary = await kgrag.index({ paths: [corpus], documents: [{ title: 'Quay bulletin', text: bulletin }] });
      assert.equal((summary.counts['chunk-graph'] as Record<string, number>).duplicates, 1);
      const chunks = await kgrag.store.table('chunks').all();
      const twins = chunks.filter((chunk) => chunk.text.trim() === notice).map((chunk) => chunk.id);
      assert.equal(twins.length, 2);
      const graph = decodeChunkKnnGraph((await kgrag.store.getBlob('autokg-knn-graph')) as Uint8Array);
      assert.equal(graph.chunkIds.length, chunks.length - 1);
      const left = twins.filter((id) => !graph.chunkIds.includes(id));
      assert.equal(left.length, 1, 'exactly one twin is left out');
      assert.ok((await kgrag.store.table('keywordChunks').all()).every((member) => member.chunkId !== left[0]));

      const question = 'When does the harbour master close the Mill Yard slipway for dredging?';
      const dense = await kgrag.retrieve(question, { method: 'basic:dense', params: { k: 2 } });
      assert.deepEqual(new Set(dense.retrieval.chunks.map((chunk) => chunk.id)), new Set(twins), 'dense retrieval returns both twins');
      for (const useU of [false, true]) {
        const found = await kgrag.retrieve(question, { method: 'autokg', params: { useU } });
        const ids = found.retrieval.chunks.map((chunk) => chunk.id);
        assert.ok(!ids.includes(left[0] as string), `autokg (useU ${useU}) never retrieves the left-out twin`);
        assert.equal(ids[0], twins.find((id) => id !== left[0]));
      }
    } finally {
      await kgrag.close();
    }
  });

  it('standard mode: scripted LLM keywords; a re-run with another kernel makes no LLM call', async () => {
    const llm = createScriptedLanguageModel({ responses: [{ match: () => true, reply: (request) => sampleLlmReply(request) }] });
    const workspace = join(directory, 'standard');
    const kgrag = await createKgrag({ workspace, env: {}, llm });
    let keywordTexts: string[];
    try {
      const summary = await kgrag.index([corpus], { mode: 'standard' });
      const counts = summary.counts.keywords as Record<string, number>;
      const autokgCalls = llm.calls.filter((call) => call.purpose?.startsWith('autokg-'));
      // Per clustering: one extraction and one refinement per cluster, one global refinement; then 3 final passes.
      assert.equal(autokgCalls.length, 2 * (15 * 2 + 1) + 3);
      assert.ok(autokgCalls.every((call) => call.priority === 'batch'));
      assert.equal(counts.llmCalls, autokgCalls.length);
      assert.ok((counts.tokensUsed as number) > 0 && (counts.tokenBound as number) > (counts.tokensUsed as number), `bound ${counts.tokenBound} vs used ${counts.tokensUsed}`);
      await checkKeywordTables(kgrag);
      keywordTexts = (await kgrag.store.table('keywords').all()).map((keyword) => keyword.text);
      assert.ok(keywordTexts.some((text) => /Kestermouth|Marle|Cotterill/.test(text)), keywordTexts.join(', '));
    } finally {
      await kgrag.close();
    }
    const quiet = createScriptedLanguageModel({ responses: [] });
    const again = await createKgrag({ workspace, env: {}, llm: quiet, config: { methods: { autokg: { kernel: 'angular', cap: 0.1 } } } });
    try {
      const rerun = await again.index([corpus], { mode: 'standard' });
      assert.ok(rerun.ran.includes('keywords'));
      assert.equal(quiet.calls.length, 0, 'the stored extraction is reused');
      assert.equal((rerun.counts.keywords as Record<string, number>).reusedCalls, 2 * (15 * 2 + 1) + 3);
      assert.deepEqual((await again.store.table('keywords').all()).map((keyword) => keyword.text), keywordTexts);
    } finally {
      await again.close();
    }
  });
});

/** Keyword prompts (extraction, refinements, final passes) of the sample responder. */
const isKeywordPrompt = (text: string): boolean => text.includes('already appeared theme terms') || text.startsWith('You will be given a list of keywords');

describe('AutoKG keywords are deterministic whichever clustering answers first', () => {
  it('two standard-mode runs through the mock, with the two chains\' replies delayed differently, send the same prompts and store the same keywords', async () => {
    const runs: Array<{ prompts: string[]; keywords: string[]; extraction: unknown; counts: Record<string, number> }> = [];
    for (const slowParity of [0, 1]) {
      const prompts: string[] = [];
      // Every other keyword request waits 25 ms, the other half in the second run, so the two clusterings'
      // chains interleave differently; a prompt that depended on that order would differ between the runs.
      const server = await startMockOpenAiServer({
        reply: async (request) => {
          const first = request.messages[0]?.content ?? '';
          if (isKeywordPrompt(first)) {
            prompts.push(first);
            if (prompts.length % 2 === slowParity) await new Promise((resolve) => setTimeout(resolve, 25));
          }
          return sampleLlmReply(request);
        },
      });
      const kgrag = await createKgrag({ workspace: join(directory, `deterministic-${slowParity}`), env: {}, config: { index: { mode: 'standard' }, llm: standardTestLlmConfig(server.url) } });
      try {
        const summary = await kgrag.index([corpus]);
        const [extraction] = await kgrag.store.table('extractions').where('extractor', ['autokg-keywords']);
        runs.push({
          prompts,
          keywords: (await kgrag.store.table('keywords').all()).map((keyword) => keyword.text),
          extraction: { raw: extraction?.raw, parsed: extraction?.parsed },
          counts: summary.counts.keywords as Record<string, number>,
        });
      } finally {
        await kgrag.close();
        await server.close();
      }
    }
    const [first, second] = runs as [(typeof runs)[number], (typeof runs)[number]];
    // Whether the replies really arrived in another order depends on the machine's speed, so it is not asserted.
    // The same prompts, so the same LLM cache keys, and the same replies stored in the same order.
    assert.deepEqual([...first.prompts].sort(), [...second.prompts].sort());
    assert.ok(first.keywords.length > 0);
    assert.deepEqual(second.keywords, first.keywords);
    assert.deepEqual(second.extraction, first.extraction);
    // Per clustering 15 extractions and 15 refinements in sequence, then its global refinement; then 3 final passes.
    assert.equal(first.counts.llmCriticalPath, 15 * 2 + 1 + 3);
  });
});

describe('extractLlmKeywords', () => {
  it('sends l1, l2, the language and a sampled avoid list of at most m keywords; refines; runs the three final passes in order', async () => {
    const tokenizer = await createTokenizer('cl100k_base');
    let cluster = 0;
    const llm = createScriptedLanguageModel({
      responses: [
        // Each cluster names five new keywords, one of them containing an earlier one.
        { match: 'already appeared', reply: () => { cluster++; return `Topic ${cluster}a, Topic ${cluster}b, Topic ${cluster}c, Topic ${cluster}d, Big Topic ${cluster}a.`; } },
        { match: 'Output:', reply: (request) => request.messages[0]?.content.split('\nInput: ').pop()?.replace(/\nOutput:\s*$/, '') ?? '' },
        { match: 'Concentration and Deduplication', reply: (request) => request.messages[0]?.content.split('\nKeywords: ').pop()?.replace(/\n\nProcessed keywords:\s*$/, '') ?? '' },
        { match: 'Task: Splitting', reply: (request) => `${request.messages[0]?.content.split('\nKeywords: ').pop()?.replace(/\n\nProcessed keywords:\s*$/, '')}, Extra Term` },
        { match: 'Task: Deletion', reply: (request) => (request.messages[0]?.content.split('\nKeywords: ').pop()?.replace(/\n\nProcessed keywords:\s*$/, '') ?? '').replace('Topic 1a, ', '') },
      ],
    });
    const texts = Array.from({ length: 12 }, (_, index) => `Fragment number ${index} about topic ${index % 3}.`);
    const result = await extractLlmKeywords(llm, {
      selections: [{ method: 'k-means', clusters: [Int32Array.from([0, 1, 2, 3]), Int32Array.from([4, 5, 6, 7]), Int32Array.from([8, 9, 10, 11])] }],
      chunkTexts: texts,
      tokenizer,
      prompts: builtInPrompts,
      settings: { keywordsPerCluster: 5, maxWords: 3, avoidSample: 6, language: 'Welsh', topic: 'a test' },
      seed: 1,
    });
    const extractions = llm.calls.filter((call) => call.purpose === 'autokg-extract').map((call) => call.messages[0]?.content ?? '');
    assert.equal(extractions.length, 3);
    assert.match(extractions[0] as string, /at most 5 keywords[\s\S]*at most 3 words[\s\S]*in Welsh[\s\S]*\* Fragment number 0[\s\S]*terms: <>/);
    assert.match(extractions[1] as string, /terms: <Topic 1a,Topic 1b,Topic 1c,Topic 1d,Big Topic 1a>/);
    const avoid = (/terms: <([^>]*)>/.exec(extractions[2] as string)?.[1] ?? '').split(',');
    assert.equal(avoid.length, 6, 'm = 6 of the 10 previous keywords');
    assert.deepEqual(llm.calls.map((call) => call.purpose), ['autokg-extract', 'autokg-refine', 'autokg-extract', 'autokg-refine', 'autokg-extract', 'autokg-refine', 'autokg-refine-all', 'autokg-final', 'autokg-final', 'autokg-final']);
    assert.ok(llm.calls.every((call) => call.priority === 'batch'));
    // "Big Topic Na" goes by the substring filter, "Topic 1a" by the deletion pass, "Extra Term" came from the split pass.
    assert.deepEqual(result.keywords, ['Topic 1b', 'Topic 1c', 'Topic 1d', 'Topic 2a', 'Topic 2b', 'Topic 2c', 'Topic 2d', 'Topic 3a', 'Topic 3b', 'Topic 3c', 'Topic 3d', 'Extra Term']);
    assert.equal(result.calls.length, 10);
    assert.equal(result.criticalPath, 10, 'one chain: every call waits for the one before');
    assert.ok(result.finalPassTokens > 0 && result.inputTokens > result.finalPassTokens);
  });

  it('formula (1): 2n(2cT + (m + 2·l1)(l2 + 1)) + L_F', () => {
    assert.equal(paperTokenBound({ clusters: 15, perCluster: 15, chunkTokens: 200, avoidSample: 300, keywordsPerCluster: 10, maxWords: 3, finalPassTokens: 1000 }), 2 * 15 * (2 * 15 * 200 + 320 * 4) + 1000);
  });
});
