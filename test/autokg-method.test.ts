import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { contentId } from '../src/core/ids.js';
import type { ChunkRecord, KeywordChunkRecord, KeywordEdgeRecord } from '../src/core/types.js';
import { nearDuplicateRows } from '../src/math/near-duplicate-rows.js';
import { autokgMethod } from '../src/methods/autokg/autokg-method.js';
import { autokgConfig, searchNumbersOf } from '../src/methods/autokg/config.js';
import { hybridSearch, type HybridSearchInput } from '../src/methods/autokg/hybrid-search.js';
import { packKeywordTexts } from '../src/methods/autokg/pack-keyword-texts.js';
import { createScriptedLanguageModel } from '../src/providers/llm/scripted-language-model.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));

/** A search over hand-set scores: texts 0–9, keywords 0–5. */
function input(overrides: Partial<HybridSearchInput> = {}): HybridSearchInput {
  const keywordTexts: Record<number, number[]> = { 0: [1, 5, 6], 1: [7, 8, 0], 2: [9, 2], 3: [3, 4], 4: [4, 3], 5: [5] };
  const neighbours: Record<number, Array<{ keyword: number; weight: number }>> = {
    0: [
      { keyword: 1, weight: 5 },
      { keyword: 3, weight: 4 },
      { keyword: 2, weight: 2 },
    ],
    1: [
      { keyword: 3, weight: 3 },
      { keyword: 4, weight: 1 },
    ],
  };
  return {
    textScores: [0.9, 0.8, 0.1, 0.2, 0.3, 0.1, 0.1, 0.1, 0.1, 0.1],
    keywordScores: [0.7, 0.6, 0.1, 0.2, 0.1, 0.1],
    keywordTexts: (keyword, count) => (keywordTexts[keyword] ?? []).slice(0, count),
    neighbours: (keyword) => neighbours[keyword] ?? [],
    numbers: { s0t: 2, s1k: 2, s1t: 2, s2k: 2, s2t: 1 },
    ...overrides,
  };
}

describe('hybridSearch', () => {
  test('orders query texts, then similar keywords’ texts, then adjacent keywords’ texts, deduplicated with every reason', () => {
    const found = hybridSearch(input());
    assert.deepEqual(found.similarKeywords, [0, 1]);
    // Keyword 0's neighbours: 1 (similar itself, dropped) and 3; keyword 1's: 3 (merged) and 4.
    assert.deepEqual(found.adjacentKeywords, [
      {
        keyword: 3,
        from: [
          { keyword: 0, weight: 4 },
          { keyword: 1, weight: 3 },
        ],
      },
      { keyword: 4, from: [{ keyword: 1, weight: 1 }] },
    ]);
    assert.deepEqual(found.texts, [
      { text: 0, reasons: [{ kind: 'query' }] },
      { text: 1, reasons: [{ kind: 'query' }, { kind: 'keyword', keyword: 0 }] },
      { text: 5, reasons: [{ kind: 'keyword', keyword: 0 }] },
      { text: 7, reasons: [{ kind: 'keyword', keyword: 1 }] },
      { text: 8, reasons: [{ kind: 'keyword', keyword: 1 }] },
      { text: 3, reasons: [{ kind: 'adjacent-keyword', keyword: 3, from: [0, 1] }] },
      { text: 4, reasons: [{ kind: 'adjacent-keyword', keyword: 4, from: [1] }] },
    ]);
  });

  test('breaks equal scores by lower index, and zero counts retrieve nothing of that kind', () => {
    const tied = hybridSearch(input({ textScores: [0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0], keywordScores: [0.3, 0.3, 0.3, 0, 0, 0] }));
    assert.deepEqual(tied.texts.slice(0, 2).map((item) => item.text), [0, 1]);
    assert.deepEqual(tied.similarKeywords, [0, 1]);
    const onlyQuery = hybridSearch(input({ numbers: { s0t: 3, s1k: 0, s1t: 2, s2k: 2, s2t: 2 } }));
    assert.deepEqual(onlyQuery.texts.map((item) => item.text), [0, 1, 4]);
    assert.deepEqual(onlyQuery.adjacentKeywords, []);
  });
});

describe('packKeywordTexts', () => {
  test('skips a text over the budget and keeps trying the smaller ones after it', async () => {
    const tokenizer = await createTokenizer('cl100k_base');
    const small = 'The square was full of people.';
    const long = 'word '.repeat(400);
    const bullet = tokenizer.count('\n* ');
    const budget = 100 + 2 * (tokenizer.count(small) + bullet);
    const packed = packKeywordTexts([small, long, small, small], tokenizer, budget, 100);
    assert.deepEqual(packed.included, [0, 2]);
    assert.deepEqual(packed.skipped, [1, 3]);
    assert.equal(packed.tokens, budget);
    assert.ok(packed.tokens <= budget);
  });
});

describe('autokg parameters', () => {
  test('the paper preset is the default, the notebook preset a variant, and explicit counts win', () => {
    assert.deepEqual(autokgMethod.variants, ['paper', 'notebook']);
    const defaults = autokgConfig.parse({});
    assert.equal(defaults.useU, false);
    assert.equal(defaults.maxContextTokens, 10_000);
    assert.deepEqual(searchNumbersOf(defaults, undefined), { s0t: 15, s1k: 5, s1t: 3, s2k: 3, s2t: 2 });
    assert.deepEqual(searchNumbersOf(defaults, 'notebook'), { s0t: 15, s1k: 7, s1t: 3, s2k: 4, s2t: 2 });
    assert.deepEqual(searchNumbersOf(autokgConfig.parse({ s1k: 5 }), 'notebook'), { s0t: 15, s1k: 5, s1t: 3, s2k: 4, s2t: 2 });
    assert.throws(() => autokgConfig.parse({ s0t: -1 }));
    assert.throws(() => autokgConfig.parse({ s1k: 1.5 }));
    assert.throws(() => autokgConfig.parse({ maxContextTokens: 0 }));
    assert.throws(() => autokgConfig.parse({ unknown: 1 }));
  });
});

describe('nearDuplicateRows', () => {
  test('drops a row within the cosine distance of a kept one, keeping the shorter (ties: lower row)', () => {
    const s = Math.SQRT1_2;
    // Rows 0, 2 and 3 are the same direction; row 1 is orthogonal.
    const matrix = new Float32Array([s, s, 0, 1, s, s, s, s]);
    assert.deepEqual([...nearDuplicateRows(matrix, 4, 2, [10, 5, 7, 7], 1e-6)], [2, -1, -1, 2]);
    assert.deepEqual([...nearDuplicateRows(matrix, 4, 2, [1, 1, 1, 1], 1e-6)], [-1, -1, 0, 0]);
  });
});

/*
 * The implicit-clue story of the sample corpus: Sam Marle's notebook of 14 June 2011 never says it was hot;
 * the café's day book (ice sold out, record iced coffees) and the Courier's car-wash record say so. The
 * keyword graph links the notebook's keyword to one whose chunks are those clues.
 */
describe('autokg on the sample corpus', () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-autokg-'));
  const workspace = join(root, 'sample');
  const config = { chunking: { strategy: 'separators' as const, size: 200, overlap: 0 } };
  const question = 'What was the weather like in Kestermouth on the morning Sam Marle described in his notebook entry for 14 June 2011?';
  let chunks: ChunkRecord[];
  let titles: Map<string, string>;
  const open = (options: Parameters<typeof createKgrag>[0] = {}): Promise<Kgrag> => createKgrag({ workspace, env: {}, config, ...options });
  const clueTitles = ["Cotterill's on the Square: Day Book, Tuesday 14 June 2011", 'Queue Round the Block as Mill Yard Car Wash Breaks Its Record'];

  /** Scripted LLM keywords: each keyword's member chunks (as if Laplace learning had found them) and its u. */
  const keywordMembers: Record<string, (chunk: ChunkRecord, title: string) => boolean> = {
    "Sam Marle's notebook": (_chunk, title) => title.startsWith("From Sam Marle's Notebook"),
    '14 June 2011': (_chunk, title) => title.includes('14 June 2011') || title.includes('Car Wash'),
    'record-breaking trade on a hot day': (chunk) => /iced coffee|ice cream|car wash|212 cars|Out of ice/i.test(chunk.text),
    'Lantern Fair': (chunk) => chunk.text.includes('Lantern Fair'),
    'flood wall': (chunk) => chunk.text.includes('flood wall'),
  };

  before(async () => {
    const kgrag = await open();
    await kgrag.index([corpus], { mode: 'fast' });
    chunks = await kgrag.store.table('chunks').all();
    const documents = await kgrag.store.table('documents').all();
    const titleOf = new Map(documents.map((document) => [document.id, document.title]));
    titles = new Map(chunks.map((chunk) => [chunk.id, titleOf.get(chunk.documentId) ?? '']));
    // Keywords, memberships (u falls with the chunk's order), W = PᵀP − diag, and keyword vectors: the mean
    // of the member chunks' vectors, so they lie in the chunk space as embedded keywords would.
    const { ids, dimensions, matrix } = await kgrag.store.vectors('chunks').load();
    const rowOf = new Map(ids.map((id, row) => [id, row]));
    const keywords = Object.keys(keywordMembers).map((text) => ({ id: contentId('keyword', text), text }));
    const memberships: KeywordChunkRecord[] = [];
    const vectors = keywords.map((keyword) => {
      const members = chunks.filter((chunk) => keywordMembers[keyword.text]?.(chunk, titles.get(chunk.id) ?? ''));
      const vector = new Float32Array(dimensions);
      members.forEach((chunk, rank) => {
        memberships.push({ keywordId: keyword.id, chunkId: chunk.id, score: 1 - rank / (2 * members.length) });
        const row = rowOf.get(chunk.id) as number;
        for (let dim = 0; dim < dimensions; dim++) vector[dim]! += matrix[row * dimensions + dim]!;
      });
      const norm = Math.hypot(...vector) || 1;
      return { id: keyword.id, vector: vector.map((value) => value / norm) };
    });
    const edges: KeywordEdgeRecord[] = [];
    for (const [i, a] of keywords.entries()) {
      for (const b of keywords.slice(i + 1)) {
        const left = new Set(memberships.filter((m) => m.keywordId === a.id).map((m) => m.chunkId));
        const shared = memberships.filter((m) => m.keywordId === b.id && left.has(m.chunkId)).length;
        if (shared > 0) edges.push({ a: a.id, b: b.id, weight: shared });
      }
    }
    const embedderId = (await kgrag.store.vectors('chunks').info())?.embedderId ?? 'local';
    await kgrag.close();
    // The published index is read-only to queries; the fixture edits the index file directly.
    const file = openSqliteStore(join(workspace, 'kgrag.db'));
    await file.transaction(async (tx) => {
      // Replaces whatever the keywords step wrote with the scripted keywords.
      await tx.table('keywords').clear();
      await tx.table('keywordChunks').clear();
      await tx.table('keywordEdges').clear();
      await tx.vectors('keywords').clear();
      await tx.table('keywords').upsert(keywords);
      await tx.table('keywordChunks').upsert(memberships);
      await tx.table('keywordEdges').upsert(edges);
      await tx.vectors('keywords').upsert(vectors, embedderId);
      const now = new Date().toISOString();
      const usage = { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, byModel: {} };
      await tx.table('runs').upsert([{ step: 'keywords', status: 'done', fingerprint: 'test', outputVersion: 'test', startedAt: now, finishedAt: now, durationMs: 0, counts: {}, usage, error: null }]);
    });
    await file.close();
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  test('chunks of at most 200 tokens tile each document', () => {
    for (const chunk of chunks) assert.ok(chunk.nTokens <= 200, `${chunk.nTokens} tokens`);
  });

  test('retrieves the clue chunks that basic:dense with the same k misses', async () => {
    const kgrag = await open();
    try {
      const params = { s0t: 2, s1k: 1, s1t: 1, s2k: 1, s2t: 3 };
      const autokg = await kgrag.retrieve(question, { method: 'autokg', params });
      const found = autokg.retrieval.chunks.map((chunk) => chunk.documentTitle);
      for (const title of clueTitles) assert.ok(found.includes(title), `autokg finds "${title}": ${found.join(' | ')}`);
      const k = autokg.retrieval.chunks.length;
      const dense = await kgrag.retrieve(question, { method: 'basic:dense', params: { k } });
      const denseTitles = dense.retrieval.chunks.map((chunk) => chunk.documentTitle);
      assert.ok(
        clueTitles.some((title) => !denseTitles.includes(title)),
        `basic:dense at k ${k} misses a clue: ${denseTitles.join(' | ')}`,
      );
      // Keywords, reasons and the subgraph.
      assert.equal(autokg.retrieval.keywords?.[0]?.text, "Sam Marle's notebook");
      const search = autokg.trace.find((step) => step.name === 'autokg-search')?.detail as { texts: Array<{ reasons: string[] }> };
      assert.ok(search.texts.some((text) => text.reasons.some((reason) => reason.startsWith('adjacent "Sam Marle\'s notebook" → '))));
      const kinds = new Set(autokg.retrieval.subgraph?.nodes.map((node) => node.kind));
      assert.deepEqual([...kinds].sort(), ['adjacent-keyword', 'chunk', 'keyword', 'query']);
      assert.ok(autokg.retrieval.subgraph?.edges.some((edge) => edge.kind === 'adjacent' && (edge.weight ?? 0) > 0));
    } finally {
      await kgrag.close();
    }
  });

  test('useU takes a keyword’s texts by Laplace score instead of by angle', async () => {
    const kgrag = await open();
    try {
      const params = { s0t: 0, s1k: 1, s1t: 3, s2k: 0, s2t: 0 };
      const byAngle = await kgrag.retrieve(question, { method: 'autokg', params });
      const byU = await kgrag.retrieve(question, { method: 'autokg', params: { ...params, useU: true } });
      const keyword = byU.retrieval.keywords?.[0]?.text as string;
      const members = chunks.filter((chunk) => keywordMembers[keyword]?.(chunk, titles.get(chunk.id) ?? '')).map((chunk) => chunk.id);
      // u falls with the member's order, so useU returns the first members in order.
      assert.deepEqual(byU.retrieval.chunks.map((chunk) => chunk.id), members.slice(0, 3));
      assert.equal(byAngle.retrieval.chunks.length, 3);
      for (const chunk of byAngle.retrieval.chunks) assert.ok(chunk.scores.dense !== undefined);
    } finally {
      await kgrag.close();
    }
  });

  test('the answer prompt lists the keywords and packed texts; without an LLM the answer is extractive', async () => {
    const llm = createScriptedLanguageModel({ responses: [{ reply: 'It was hot and sunny [Data: Sources (1)].' }] });
    const withLlm = await open({ llm });
    try {
      const result = await withLlm.query(question, { method: 'autokg', params: { s0t: 2, s1k: 1, s1t: 1, s2k: 1, s2t: 3 } });
      const prompt = llm.calls[0]?.messages[0]?.content ?? '';
      assert.match(prompt, /^I want you to do a task, deal with a query or answer a question with some information from a knowledge graph\./);
      assert.match(prompt, /Keywords directly related to the query:\n\nSam Marle's notebook\n/);
      assert.match(prompt, /Adjacent keywords according to the knowledge graph:\n\n14 June 2011/);
      assert.match(prompt, /Texts: '''\n\* \[\d+\] /);
      assert.match(prompt, /Your task:\nWhat was the weather like/);
      assert.equal(result.answer.kind, 'generated');
      assert.ok(result.context.tokens <= 10_000);
      const tight = await withLlm.query(question, { method: 'autokg', params: { s0t: 2, s1k: 1, s1t: 1, s2k: 1, s2t: 3, maxContextTokens: 900 } });
      assert.ok(tight.context.tokens <= 900, `${tight.context.tokens} tokens`);
      const pack = tight.trace.steps.find((step) => step.name === 'autokg-pack')?.detail as { skipped: number; included: number };
      assert.ok(pack.skipped > 0 && pack.included > 0);
    } finally {
      await withLlm.close();
    }
    const offline = await open();
    try {
      const result = await offline.query(question, { method: 'autokg' });
      assert.equal(result.answer.kind, 'extractive');
      assert.ok(result.citations.length > 0);
    } finally {
      await offline.close();
    }
  });
});

/*
 * The same story through the real keywords step. LLM-free keywords (c-TF-IDF noun phrases) with the
 * balanced membership rule: with the reference's u ≥ 0.5 every keyword of this 109-chunk corpus keeps only its
 * five seeds (graph/laplace-learning.ts explains why), which links "Sam Marle" to no keyword of the car wash.
 * Scripted LLM keywords — a model that names the fragments' themes as well as their names — with the
 * reference's rule.
 */
describe('autokg on the sample corpus with keywords from the keywords step', () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-autokg-steps-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const chunking = { strategy: 'separators' as const, size: 200, overlap: 0 };
  const question = 'What was the weather like in Kestermouth on the morning Sam Marle described in his notebook entry for 14 June 2011?';
  const clueTitles = ["Cotterill's on the Square: Day Book, Tuesday 14 June 2011", 'Queue Round the Block as Mill Yard Car Wash Breaks Its Record'];

  /** Retrieves with autokg and with basic:dense at the same k; returns both title lists. */
  async function compare(kgrag: Kgrag, params: Record<string, number>): Promise<{ autokg: string[]; dense: string[]; keywords: string[] }> {
    const autokg = await kgrag.retrieve(question, { method: 'autokg', params });
    const titles = autokg.retrieval.chunks.map((chunk) => chunk.documentTitle);
    const dense = await kgrag.retrieve(question, { method: 'basic:dense', params: { k: titles.length } });
    return { autokg: titles, dense: dense.retrieval.chunks.map((chunk) => chunk.documentTitle), keywords: autokg.retrieval.keywords?.map((keyword) => keyword.text) ?? [] };
  }

  test('LLM-free keywords, balanced membership: the clue chunks through an adjacent keyword', async () => {
    const kgrag = await createKgrag({ workspace: join(root, 'fast'), env: {}, config: { chunking, methods: { autokg: { membership: 'balanced' } } } });
    try {
      await kgrag.index([corpus], { mode: 'fast' });
      const found = await compare(kgrag, { s0t: 2, s1k: 1, s1t: 1, s2k: 5, s2t: 1 });
      for (const title of clueTitles) assert.ok(found.autokg.includes(title), `autokg finds "${title}": ${found.autokg.join(' | ')} (keywords ${found.keywords.join(', ')})`);
      assert.ok(clueTitles.some((title) => !found.dense.includes(title)), `basic:dense at k ${found.dense.length} misses a clue: ${found.dense.join(' | ')}`);
      assert.equal(found.keywords[0], 'Sam Marle');
      assert.ok(found.keywords.includes('car wash'), found.keywords.join(', '));
    } finally {
      await kgrag.close();
    }
  });

  test('scripted LLM keywords, reference membership: the clue chunks through an adjacent keyword', async () => {
    // Themes a model would name for fragments that mention them, before the names the sample responder picks.
    const themes: Array<[RegExp, string]> = [
      [/car wash/i, 'busy car wash'],
      [/iced coffee|out of ice|ice cream/i, 'iced drinks sold out'],
      [/flood/i, 'river floods'],
      [/railway|train/i, 'railway'],
      [/boat/i, 'boatbuilding'],
    ];
    const llm = createScriptedLanguageModel({
      responses: [
        {
          match: 'Please avoid the following already appeared theme terms',
          reply: (request) => {
            const prompt = request.messages[0]?.content ?? '';
            const information = prompt.slice(prompt.indexOf("Information: '''"), prompt.lastIndexOf("'''"));
            const avoid = new Set((/appeared theme terms: <([^>]*)>/.exec(prompt)?.[1] ?? '').split(',').map((term) => term.trim().toLowerCase()));
            const named = themes.filter(([pattern, theme]) => pattern.test(information) && !avoid.has(theme)).map(([, theme]) => theme);
            const names = sampleLlmReply(request).replace(/\.$/, '').split(',').map((term) => term.trim()).filter((term) => term.length > 0);
            return `${[...named, ...names].slice(0, 10).join(', ')}.`;
          },
        },
        { match: () => true, reply: (request) => sampleLlmReply(request) },
      ],
    });
    const kgrag = await createKgrag({ workspace: join(root, 'standard'), env: {}, llm, config: { chunking } });
    try {
      await kgrag.index([corpus], { mode: 'standard' });
      assert.ok(llm.calls.some((call) => call.purpose === 'autokg-extract'));
      const found = await compare(kgrag, { s0t: 2, s1k: 2, s1t: 1, s2k: 3, s2t: 1 });
      for (const title of clueTitles) assert.ok(found.autokg.includes(title), `autokg finds "${title}": ${found.autokg.join(' | ')} (keywords ${found.keywords.join(', ')})`);
      assert.ok(clueTitles.some((title) => !found.dense.includes(title)), `basic:dense at k ${found.dense.length} misses a clue: ${found.dense.join(' | ')}`);
    } finally {
      await kgrag.close();
    }
  });
});
