import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import { buildTripleIndex } from '../src/extract/triples/triple-index.js';
import { buildPprGraph, loadSynonymEdges, pprGraphKeys, type PprGraphMeta } from '../src/methods/ppr/build/ppr-graph-step.js';
import { computeSynonymEdges } from '../src/methods/ppr/build/synonym-edges.js';
import type { PprGraph } from '../src/methods/ppr/build/ppr-graph.js';
import { phraseSeedWeights } from '../src/methods/ppr/phrase-seed-weights.js';
import { extractQueryEntities } from '../src/methods/shared/query-entities.js';
import type { MethodContext, TraceStep } from '../src/methods/query-method.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel, type ScriptedResponse } from '../src/testing/scripted-language-model.js';

/*
 * A tiny film "Wikipedia" with hand-written OpenIE triples (imported as HippoRAG's OpenIE file): two films,
 * their directors, the directors' birthplaces, and a passage about festivals that shares the question's words.
 */
const documents = [
  { title: 'Alpha Film', text: 'Alpha Film is a 1990 drama film directed by Bruno Keller. It premiered at a festival.' },
  { title: 'Bruno Keller', text: 'Bruno Keller is a Swiss director. Keller was born in Lucerne and studied painting.' },
  { title: 'Lucerne', text: 'Lucerne is a city in central Switzerland on the shore of Lake Lucerne.' },
  { title: 'Gamma Film', text: 'Gamma Film is a 1992 drama film directed by Carla Rossi about a festival.' },
  { title: 'Carla Rossi', text: 'Carla Rossi is an Italian director. Rossi was born in Milan.' },
  { title: 'Milan', text: 'Milan is a city in northern Italy, capital of Lombardy.' },
  { title: 'Film festival', text: 'A film festival shows many films; the director of each film is often present.' },
];
const triples: Record<string, Array<[string, string, string]>> = {
  'Alpha Film': [
    ['Alpha Film', 'is', 'drama film'],
    ['Alpha Film', 'directed by', 'Bruno Keller'],
    ['Alpha Film', 'premiered at', 'festival'],
  ],
  'Bruno Keller': [
    ['Bruno Keller', 'is', 'Swiss director'],
    ['Bruno Keller', 'born in', 'Lucerne'],
    ['Bruno Keller', 'studied', 'painting'],
  ],
  Lucerne: [
    ['Lucerne', 'is city in', 'Switzerland'],
    ['Lucerne', 'on shore of', 'Lake Lucerne'],
  ],
  'Gamma Film': [
    ['Gamma Film', 'is', 'drama film'],
    ['Gamma Film', 'directed by', 'Carla Rossi'],
  ],
  'Carla Rossi': [
    ['Carla Rossi', 'is', 'Italian director'],
    ['Carla Rossi', 'born in', 'Milan'],
  ],
  Milan: [
    ['Milan', 'is city in', 'Italy'],
    ['Milan', 'capital of', 'Lombardy'],
  ],
  'Film festival': [['film festival', 'shows', 'films']],
};
const question = 'Where was the director of Alpha Film born?';

const root = mkdtempSync(join(tmpdir(), 'kgrag-ppr-'));
const workspace = join(root, 'films');
const open = (options: Parameters<typeof createKgrag>[0] = {}): Promise<Kgrag> => createKgrag({ workspace, env: {}, ...options });

/** The trace step called `name`, or a failure. */
function step(trace: readonly TraceStep[], name: string): TraceStep {
  const found = trace.find((entry) => entry.name === name);
  assert.ok(found, `trace has a "${name}" step: ${trace.map((entry) => entry.name).join(', ')}`);
  return found;
}

/** The graph of the workspace as the method builds it. */
async function graphOf(kgrag: Kgrag): Promise<PprGraph> {
  return buildPprGraph(kgrag.store, buildTripleIndex(await kgrag.store.table('triples').all()));
}

before(async () => {
  const kgrag = await open();
  await kgrag.index(
    documents.map((document) => ({ title: document.title, text: `${document.title}\n${document.text}` })),
    { mode: 'fast' },
  );
  const file = join(root, 'openie.json');
  writeFileSync(
    file,
    JSON.stringify({
      docs: documents.map((document, idx) => ({
        idx,
        passage: `${document.title}\n${document.text}`,
        extracted_entities: [],
        extracted_triples: triples[document.title] ?? [],
      })),
    }),
  );
  const imported = await kgrag.importOpenie(file);
  assert.equal(imported.matched, documents.length);
  await kgrag.close();
});

after(() => rmSync(root, { recursive: true, force: true }));

describe('ppr-graph: synonym edges', () => {
  const unit = (...values: number[]): Float32Array => Float32Array.from(values);
  // Cosines with the first vector: 0.8 (0.8000000119 in float32), 0.79, 0, and 1 for a two-letter phrase.
  const vectors = [unit(1, 0, 0), unit(0.8, 0.6, 0), unit(0.79, -Math.sqrt(1 - 0.79 ** 2), 0), unit(0, 0, 1), unit(1, 0, 0)];

  for (const search of ['exact', 'shared-word'] as const) {
    test(`${search}: links pairs at cosine ≥ 0.8 only, never phrases of fewer than three letters or digits`, async () => {
      const texts = ['grand hotel', 'grand hotel paris', 'grand hotels', 'lake', 'gh'];
      const edges = await computeSynonymEdges(texts, vectors, { topK: 100, threshold: 0.8, search });
      assert.deepEqual([...edges.sources], [0]);
      assert.deepEqual([...edges.targets], [1]);
      assert.ok((edges.weights[0] as number) >= 0.8 && (edges.weights[0] as number) < 0.8001);
    });
  }

  test('shared-word search only scores phrases with a common content word', async () => {
    const edges = await computeSynonymEdges(['grand hotel', 'le grand hotel', 'the palace'], [unit(1, 0), unit(1, 0), unit(1, 0)], { topK: 100, threshold: 0.8, search: 'shared-word' });
    assert.deepEqual([...edges.sources], [0]);
    assert.deepEqual([...edges.targets], [1]);
    const exact = await computeSynonymEdges(['grand hotel', 'le grand hotel', 'the palace'], [unit(1, 0), unit(1, 0), unit(1, 0)], { topK: 100, threshold: 0.8, search: 'exact' });
    assert.equal(exact.sources.length, 3, 'the exact search finds every pair');
  });

  test('keeps at most topK synonyms of each phrase, best first', async () => {
    const texts = ['red house', 'red houses', 'red housing', 'red home'];
    const vectors4 = [unit(1, 0), unit(0.99, Math.sqrt(1 - 0.99 ** 2)), unit(0.95, Math.sqrt(1 - 0.95 ** 2)), unit(0.9, Math.sqrt(1 - 0.9 ** 2))];
    const pairs = async (topK: number): Promise<string[]> => {
      const edges = await computeSynonymEdges(texts, vectors4, { topK, threshold: 0.8, search: 'exact' });
      return [...edges.sources].map((source, index) => `${source}-${edges.targets[index]}`);
    };
    // Cosines: 0–1 0.990, 1–2 0.985, 2–3 0.991, 1–3 0.953, 0–2 0.950, 0–3 0.900. With one synonym each,
    // 0 and 1 pick each other, and 2 and 3.
    assert.deepEqual(await pairs(1), ['0-1', '2-3']);
    assert.deepEqual(await pairs(2), ['0-1', '0-2', '1-2', '1-3', '2-3']);
  });

  test('the stored edges are refused when the triples changed since the step ran', async () => {
    const kgrag = await open();
    const index = buildTripleIndex(await kgrag.store.table('triples').all());
    const meta = await kgrag.store.getMeta<PprGraphMeta>(pprGraphKeys.meta);
    assert.equal(meta?.phrases, index.phraseIds.length);
    await loadSynonymEdges(kgrag.store, index.phraseIds);
    await assert.rejects(loadSynonymEdges(kgrag.store, index.phraseIds.slice(1)), (error) => KgragError.isInstance(error) && error.code === 'PPR_GRAPH_STALE');
    await kgrag.close();
  });
});

describe('ppr: seeds', () => {
  test('fact seeds: each phrase gets the mean of its facts’ scores over its passage count (node specificity), top linkingTopK kept', async () => {
    const kgrag = await open();
    const graph = await graphOf(kgrag);
    const { triples: index } = graph;
    const phrase = (text: string): number => index.phraseIndex.get(text) as number;
    const fact = (subject: string, object: string): number =>
      index.factSubject.findIndex((value, position) => value === phrase(subject) && index.factObject[position] === phrase(object));
    assert.equal(graph.phrasePassageCounts[phrase('drama film')], 2);
    assert.equal(graph.phrasePassageCounts[phrase('bruno keller')], 2);
    assert.equal(graph.phrasePassageCounts[phrase('alpha film')], 1);

    const facts = [
      { fact: fact('alpha film', 'drama film'), score: 1, cosine: 0.9 },
      { fact: fact('alpha film', 'bruno keller'), score: 0.5, cosine: 0.7 },
    ];
    const seeds = phraseSeedWeights(graph, facts, [], { linkingTopK: 2, entitySeedWeight: 1, nodeSpecificity: true });
    assert.deepEqual(
      [...seeds.fromFacts].sort((left, right) => left[0] - right[0]),
      [
        [phrase('alpha film'), 0.75],
        [phrase('drama film'), 0.5],
      ].sort((left, right) => (left[0] as number) - (right[0] as number)),
      'alpha film: (1 + 0.5) / 2; drama film: 1 / 2 passages; bruno keller (0.5 / 2) falls outside the top 2',
    );
    const plain = phraseSeedWeights(graph, facts, [], { linkingTopK: 5, entitySeedWeight: 1, nodeSpecificity: false });
    assert.equal(plain.weights[phrase('drama film')], 1);
    assert.equal(plain.weights[phrase('bruno keller')], 0.5);

    const links = [{ entity: 'Keller', phrase: phrase('bruno keller'), score: 0.8, cosine: 0.6, name: 1 }];
    const withEntities = phraseSeedWeights(graph, facts, links, { linkingTopK: 2, entitySeedWeight: 1, nodeSpecificity: true });
    assert.equal(withEntities.fromEntities.get(phrase('bruno keller')), 0.4, 'entity seeds: link score over the passage count');
    assert.equal(withEntities.weights[phrase('alpha film')], 0.75, 'fact and entity seeds add up per phrase');
    await kgrag.close();
  });

  test('query entities without an LLM are the noun phrases of the question, linked to phrases by text, embedding and name', async () => {
    const kgrag = await open();
    const result = await kgrag.retrieve(question, { method: 'ppr' });
    assert.deepEqual(step(result.trace, 'query-entities').detail, { source: 'noun-phrases', entities: ['Alpha Film'] });
    assert.deepEqual(step(result.trace, 'link-entities').detail, { links: [{ entity: 'Alpha Film', phrase: 'alpha film', score: 1 }] });
    const seedEdges = result.retrieval.subgraph?.edges.filter((edge) => edge.kind === 'seed') ?? [];
    const seedNodes = new Map(result.retrieval.subgraph?.nodes.map((node) => [node.id, node.label]));
    assert.ok(seedEdges.some((edge) => seedNodes.get(edge.target) === 'Alpha Film'));
    assert.ok(seedEdges.every((edge) => (edge.weight ?? 0) > 0));
    await kgrag.close();
  });
});

describe('ppr: ranking', () => {
  test('PPR ranks the bridge passage of a 2-hop question right after the passage the question names, above every distractor; BM25 does not', async () => {
    const kgrag = await open();
    for (const method of ['ppr', 'ppr:v1']) {
      const titles = (await kgrag.retrieve(question, { method })).retrieval.chunks.map((chunk) => chunk.documentTitle);
      assert.deepEqual(titles.slice(0, 2), ['Alpha Film', 'Bruno Keller'], method);
    }
    const bm25 = (await kgrag.retrieve(question, { method: 'basic:bm25' })).retrieval.chunks.map((chunk) => chunk.documentTitle);
    assert.ok(bm25.indexOf('Bruno Keller') > 1, `BM25 ranks a distractor above the bridge passage: ${bm25.join(', ')}`);
    await kgrag.close();
  });

  test('passages come hydrated with their PPR mass and seed scores; the subgraph has the query, seeds, phrases and passages', async () => {
    const kgrag = await open();
    const result = await kgrag.retrieve(question, { method: 'ppr', params: { k: 3 } });
    const { chunks, subgraph } = result.retrieval;
    assert.equal(chunks.length, 3);
    for (const chunk of chunks) {
      assert.equal(chunk.score, chunk.scores?.ppr);
      assert.equal(typeof chunk.scores?.dense, 'number');
    }
    assert.ok(chunks.every((chunk, index) => index === 0 || (chunks[index - 1] as { score: number }).score >= chunk.score));
    const kinds = new Set(subgraph?.nodes.map((node) => node.kind));
    assert.ok(kinds.has('query') && kinds.has('chunk') && kinds.has('seed-phrase'));
    assert.ok([...kinds].every((kind) => ['query', 'seed-phrase', 'phrase', 'chunk'].includes(kind)));
    const edgeKinds = new Set(subgraph?.edges.map((edge) => edge.kind));
    assert.ok(edgeKinds.has('seed') && edgeKinds.has('context') && edgeKinds.has('relation'));
    const pagerank = step(result.trace, 'pagerank').detail as { iterations: number; nodes: number };
    assert.ok(pagerank.iterations > 0);
    assert.equal(pagerank.nodes, (await graphOf(kgrag)).graph.n);
    await kgrag.close();
  });

  test('without seed phrases, passages are ranked by the passage seed scores (BM25 here: the same order as basic:bm25)', async () => {
    const kgrag = await open();
    const params = { linkingTopK: 0, queryEntities: false, passageSeeds: 'bm25' };
    const result = await kgrag.retrieve('Which festival shows many films?', { method: 'ppr', params });
    assert.equal((step(result.trace, 'fallback').detail as { reason: string }).reason, 'no phrase seed');
    assert.equal(result.trace.some((entry) => entry.name === 'pagerank'), false);
    const bm25 = await kgrag.retrieve('Which festival shows many films?', { method: 'basic:bm25' });
    assert.deepEqual(
      result.retrieval.chunks.map((chunk) => chunk.id),
      bm25.retrieval.chunks.map((chunk) => chunk.id),
    );
    const v1 = await kgrag.retrieve('which one is it?', { method: 'ppr:v1', params: { passageSeeds: 'bm25' } });
    assert.match((step(v1.trace, 'fallback').detail as { reason: string }).reason, /no query entity/);
    await kgrag.close();
  });

  test('is deterministic: the same passages and scores from a new engine', async () => {
    const first = await open();
    const a = await first.retrieve(question, { method: 'ppr' });
    const again = await first.retrieve(question, { method: 'ppr' });
    await first.close();
    const second = await open();
    const b = await second.retrieve(question, { method: 'ppr' });
    await second.close();
    const shape = (result: typeof a) => result.retrieval.chunks.map((chunk) => [chunk.id, chunk.score]);
    assert.deepEqual(shape(again), shape(a));
    assert.deepEqual(shape(b), shape(a));
    assert.deepEqual(b.retrieval.subgraph, a.retrieval.subgraph);
  });
});

describe('ppr: with an LLM', () => {
  const nerReply = { match: /extract all named entities/i, reply: { named_entities: ['Alpha Film', 'director'] } } satisfies ScriptedResponse;
  const userText = (request: ChatRequest): string => request.messages.map((message) => message.content).join('\n');

  test('query NER is one interactive JSON call with the question; the recognition filter keeps the facts the LLM names', async () => {
    const llm = createScriptedLanguageModel({
      responses: [nerReply, { match: /Candidate facts/, reply: { fact: [['Alpha Film', 'directed by', 'Bruno Keller']] } }],
    });
    const kgrag = await open({ llm });
    const result = await kgrag.retrieve(question, { method: 'ppr' });
    const [ner, filter] = llm.calls as [ChatRequest, ChatRequest];
    assert.equal(llm.calls.length, 2);
    assert.ok(userText(ner).includes(`Question: ${question}`));
    assert.match(userText(ner), /"named_entities"/);
    assert.equal(ner.priority, 'interactive');
    assert.equal(ner.responseFormat?.type, 'json');
    assert.deepEqual(step(result.trace, 'query-entities').detail, { source: 'llm', entities: ['Alpha Film', 'director'] });
    assert.match(userText(filter), /"fact":\[\["alpha film","is","drama film"\]/);
    assert.equal(filter.priority, 'interactive');
    assert.deepEqual(step(result.trace, 'recognition-filter').detail, { kept: 1, of: 5 });
    assert.equal((step(result.trace, 'seeds').detail as { fromFacts: number }).fromFacts, 2, 'the kept fact seeds its subject and object');
    assert.deepEqual(result.retrieval.chunks.slice(0, 2).map((chunk) => chunk.documentTitle), ['Alpha Film', 'Bruno Keller']);
    await kgrag.close();
  });

  test('a filter that keeps no fact falls back to the passage scores; recognitionFilter: false makes no filter call', async () => {
    const llm = createScriptedLanguageModel({ responses: [nerReply, { match: /Candidate facts/, reply: { fact: [] } }] });
    const kgrag = await open({ llm });
    const result = await kgrag.retrieve(question, { method: 'ppr', params: { queryEntities: false } });
    assert.equal((step(result.trace, 'fallback').detail as { reason: string }).reason, 'the recognition filter kept no fact');
    assert.equal(llm.calls.length, 1);

    const unfiltered = await kgrag.retrieve(question, { method: 'ppr', params: { recognitionFilter: false } });
    assert.equal(unfiltered.trace.some((entry) => entry.name === 'recognition-filter'), false);
    assert.equal(llm.calls.length, 2, 'only the NER call');
    await kgrag.close();
  });

  test('an NER reply that stays invalid after the repair turn falls back to the noun phrases', async () => {
    const llm = createScriptedLanguageModel({ responses: [{ match: /extract all named entities|previous reply/i, reply: 'no JSON here' }] });
    const kgrag = await open({ llm });
    const trace: TraceStep[] = [];
    const context = {
      llm,
      prompts: kgrag.prompts,
      signal: undefined,
      trace: {
        steps: trace,
        async time<R>(name: string, fn: () => Promise<R>, detail?: (result: R) => Record<string, unknown>): Promise<R> {
          const result = await fn();
          trace.push({ name, ms: 0, ...(detail ? { detail: detail(result) } : {}) });
          return result;
        },
      },
    } as unknown as MethodContext;
    assert.deepEqual(await extractQueryEntities(context, question), ['Alpha Film']);
    assert.equal(llm.calls.length, 2, 'the call and its repair turn');
    assert.deepEqual(trace[0]?.detail, { source: 'noun-phrases', entities: ['Alpha Film'] });
    await kgrag.close();
  });
});

describe('ppr: parameters', () => {
  test('invalid parameters and variants are input errors naming the method', async () => {
    const kgrag = await open();
    for (const params of [{ damping: 1 }, { linkingTopK: -1 }, { passageSeeds: 'sparse' }, { passageNodeWeight: -0.1 }]) {
      await assert.rejects(
        kgrag.retrieve(question, { method: 'ppr', params }),
        (error) => KgragError.isInstance(error) && error.code === 'QUERY_INVALID_PARAMS' && error.message.includes('"ppr"'),
        JSON.stringify(params),
      );
    }
    await assert.rejects(
      kgrag.retrieve(question, { method: 'ppr', params: { synonymyEdgeTopk: 5 } }),
      (error) => KgragError.isInstance(error) && error.code === 'QUERY_INDEX_SETTING' && error.message.includes('synonymyEdgeTopk'),
      'an index setting is not a query parameter',
    );
    await assert.rejects(kgrag.retrieve(question, { method: 'ppr:v3' }), (error) => KgragError.isInstance(error) && error.code === 'QUERY_UNKNOWN_VARIANT');
    const topK = await kgrag.retrieve(question, { method: 'ppr', topK: 2 });
    assert.equal(topK.retrieval.chunks.length, 2, '-k sets k');
    await kgrag.close();
  });
});
