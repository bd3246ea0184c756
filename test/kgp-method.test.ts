import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { decodePassageGraphIndex } from '../src/methods/kgp/build/passage-graph-codec.js';
import { passageEdgeBit } from '../src/methods/kgp/build/passage-graph.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { passageGraphBlobKey } from '../src/methods/kgp/build/passage-graph-step.js';
import { kgpMethod } from '../src/methods/kgp/kgp-method.js';
import { kgpConfig } from '../src/methods/kgp/config.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel } from '../src/testing/scripted-language-model.js';

/*
 * A small film corpus. The three "Redwater" documents share a title, so the structural graph links them
 * (KGP's title keyword) and nothing else: tests that need exact neighbours traverse only that kind.
 */
const redwaterDirector = 'Redwater is a 1961 Norwegian drama film directed by Maria Olsen, about a ferry captain on the Kester river.';
const redwaterShooting = 'Redwater was shot in the winter of 1960 near the old harbour of Bergen, where the crew stayed for four months.';
const redwaterMusic = 'The music of Redwater was composed by Erik Lund and recorded with the Bergen Philharmonic Orchestra.';
const documents: InputDocument[] = [
  { title: 'Redwater', text: redwaterDirector, source: 'redwater-1' },
  { title: 'Redwater', text: redwaterShooting, source: 'redwater-2' },
  { title: 'Redwater', text: redwaterMusic, source: 'redwater-3' },
  { title: 'Maria Olsen', text: 'Maria Olsen was a Norwegian film director born in Bergen in 1920. Her mother, Ingrid Olsen, was a painter of harbour scenes.' },
  { title: 'Ingrid Olsen', text: 'Ingrid Olsen was a Norwegian painter. Ingrid Olsen exhibited her harbour scenes in Oslo and Bergen.' },
  { title: 'Erik Lund', text: 'Erik Lund was a Danish composer who wrote the scores of more than forty films, among them Redwater.' },
  { title: 'Kester river', text: 'The Kester river flows past the market town of Kestermouth into the Saltmarsh Reach estuary.' },
  { title: 'Bergen', text: 'Bergen is a city on the west coast of Norway with a busy harbour and a philharmonic orchestra founded in 1765.' },
  { title: 'Oslo', text: 'Oslo is the capital of Norway. Its National Gallery holds paintings by Norwegian painters.' },
  { title: 'Ferry', text: 'A ferry is a boat that carries passengers across a river or a strait, often on a fixed timetable.' },
  { title: 'Philharmonic orchestra', text: 'A philharmonic orchestra is a large orchestra of string, wind and percussion players.' },
  { title: 'Drama film', text: 'A drama film is a film genre that relies on the emotional development of realistic characters.' },
];

const root = mkdtempSync(join(tmpdir(), 'kgrag-kgp-'));
const workspace = join(root, 'films');
const open = (options: Parameters<typeof createKgrag>[0] = {}): Promise<Kgrag> => createKgrag({ workspace, env: {}, ...options });

/** Chunk id → document title and text, for readable assertions. */
let chunkTexts: Map<string, string>;

before(async () => {
  // Every kind of link, so that the tests can traverse each (an index builds only those its configuration reads).
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'kgrag.yaml'), 'methods:\n  kgp:\n    indexGraphs: [knn, entity, keyword, structural]\n');
  const kgrag = await open();
  await kgrag.index(documents, { mode: 'fast' });
  chunkTexts = new Map((await kgrag.store.table('chunks').all()).map((chunk) => [chunk.id, chunk.text]));
  await kgrag.close();
});

after(() => rmSync(root, { recursive: true, force: true }));

/** The chunk id whose text is `text`. */
function chunkOf(text: string): string {
  const found = [...chunkTexts].find(([, chunkText]) => chunkText === text);
  assert.ok(found, `no chunk with text ${text}`);
  return found[0];
}

/** The user message of a request. */
const promptOf = (request: ChatRequest): string => request.messages.find((message) => message.role === 'user')?.content ?? '';

describe('passage-graph step', () => {
  test('builds every kind over the chunks: kNN with k = min(10, n − 1) per passage, the title clique, term links; stored in one blob', async () => {
    const kgrag = await open();
    const [run] = await kgrag.store.table('runs').get(['passage-graph']);
    assert.equal(run?.status, 'done');
    const passages = chunkTexts.size;
    assert.equal(passages, documents.length, 'each short document is one chunk');
    assert.equal(run?.counts.passages, passages);
    assert.equal(run?.counts.knnLinks, passages * Math.min(kgpConfig.parse({}).knnK, passages - 1));
    assert.equal(run?.counts.structuralLinks, 6, 'the three Redwater passages: 3 pairs, both directions');
    const bytes = await kgrag.store.getBlob(passageGraphBlobKey);
    assert.ok(bytes);
    const index = decodePassageGraphIndex(bytes);
    assert.equal(index.chunkIds.length, passages);
    const director = index.chunkIds.indexOf(chunkOf(redwaterDirector));
    const structural: number[] = [];
    for (let entry = index.graph.rowPointers[director] as number; entry < (index.graph.rowPointers[director + 1] as number); entry++) {
      if (((index.graph.kinds[entry] as number) & passageEdgeBit.structural) !== 0) structural.push(index.graph.neighbours[entry] as number);
    }
    assert.deepEqual(
      structural.map((passage) => index.chunkIds[passage]).sort(),
      [chunkOf(redwaterShooting), chunkOf(redwaterMusic)].sort(),
    );
    assert.ok((run?.counts.terms ?? 0) > 50, 'term counts of every passage are stored for TF-IDF');
    await kgrag.close();
  });

  test('links passages through a concept both mention once, as TAGME annotates concepts, though the entity graph leaves it out', async () => {
    const kgrag = await open();
    const bergen = chunkOf(documents.find((document) => document.title === 'Bergen')?.text ?? '');
    const orchestra = chunkOf(documents.find((document) => document.title === 'Philharmonic orchestra')?.text ?? '');
    const entities = await kgrag.store.table('entities').all();
    assert.ok(!entities.some((entity) => entity.chunkIds.includes(bergen) && entity.chunkIds.includes(orchestra)), 'no entity of the graph holds both');
    assert.ok(!entities.some((entity) => entity.title.toLowerCase() === 'philharmonic orchestra'), 'a phrase each passage uses once is no entity (minPhraseRepeats)');
    const index = decodePassageGraphIndex((await kgrag.store.getBlob(passageGraphBlobKey)) as Uint8Array);
    const from = index.chunkIds.indexOf(bergen);
    const to = index.chunkIds.indexOf(orchestra);
    let kinds = 0;
    for (let entry = index.graph.rowPointers[from] as number; entry < (index.graph.rowPointers[from + 1] as number); entry++) {
      if (index.graph.neighbours[entry] === to) kinds = index.graph.kinds[entry] as number;
    }
    assert.notEqual(kinds & passageEdgeBit.entity, 0, '"philharmonic orchestra" links them');
    await kgrag.close();
  });
});

describe('kgp without an LLM', () => {
  test('declares its variants (lexical-agent first, the default), K = 30 and the release schedule', () => {
    assert.deepEqual(kgpMethod.variants, ['lexical-agent', 'kg-tfidf', 'tfidf', 'bm25', 'agent', 'agent-iterative']);
    const defaults = kgpConfig.parse({});
    assert.equal(defaults.budget, 30);
    assert.deepEqual(defaults.schedule, [10, 5, 5, 5, 3, 2, 2, 2, 2, 2, 2]);
    assert.deepEqual(defaults.graph, ['entity', 'structural']);
    assert.equal(defaults.seeds, 10);
    assert.equal(defaults.neighboursPerSeed, 3);
    assert.throws(() => kgpConfig.parse({ graph: ['tagme'] }));
    assert.throws(() => kgpConfig.parse({ k: 5 }));
  });

  test('lexical-agent: the seed, then the neighbour holding the words the seed lacks; distinct passages, subgraph and trace', async () => {
    const kgrag = await open();
    // BM25's best passage names the film's director; its residual is "shot", which of its two structural
    // neighbours only the shooting passage contains.
    const { retrieval, trace } = await kgrag.retrieve('Where was the film directed by Maria Olsen shot?', { method: 'kgp', params: { graph: ['structural'], seeds: 1, budget: 3 } });
    const ids = retrieval.chunks.map((chunk) => chunk.id);
    assert.deepEqual(ids.slice(0, 2), [chunkOf(redwaterDirector), chunkOf(redwaterShooting)]);
    assert.equal(ids.length, 3, 'filled up to K with the next BM25 hit');
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(retrieval.chunks[1]?.scores.neighbourRank, 1);
    const edges = retrieval.subgraph?.edges ?? [];
    assert.deepEqual(
      edges.filter((edge) => edge.kind === 'seed').map((edge) => edge.target),
      [ids[0]],
    );
    assert.deepEqual(
      edges.filter((edge) => edge.kind !== 'seed').map((edge) => [edge.source, edge.target, edge.kind]),
      [[ids[0], ids[1], 'structural']],
    );
    assert.ok(retrieval.subgraph?.nodes.some((node) => node.kind === 'query'));
    const paths = trace.find((step) => step.name === 'kgp-traversal')?.detail?.paths as Array<{ evidence: string }>;
    assert.equal(paths[0]?.evidence, 'shot');
    assert.ok(trace.some((step) => step.name === 'kgp-seeds'));
    await kgrag.close();
  });

  test('lexical-agent: a seed that already holds every word of the question follows no link', async () => {
    const kgrag = await open();
    const { retrieval } = await kgrag.retrieve('Who composed the music of Redwater?', { method: 'kgp', params: { graph: ['structural'], seeds: 1 } });
    assert.equal(retrieval.chunks[0]?.id, chunkOf(redwaterMusic));
    assert.deepEqual(
      retrieval.subgraph?.edges.filter((edge) => edge.kind !== 'seed'),
      [],
    );
    await kgrag.close();
  });

  test('kg-tfidf: rounds follow the schedule, at most K distinct passages; the seeds are the TF-IDF top', async () => {
    const kgrag = await open();
    const { retrieval, trace } = await kgrag.retrieve('Who composed the music of Redwater?', { method: 'kgp:kg-tfidf', params: { graph: ['knn', 'entity', 'structural', 'keyword'], schedule: [2, 1, 1] } });
    const rounds = trace.find((step) => step.name === 'kgp-traversal')?.detail?.rounds as Array<{ candidates: number; picks: string[] }>;
    assert.ok(Array.isArray(rounds));
    assert.equal(rounds[0]?.picks.length, 2);
    assert.ok(rounds.slice(1).every((round) => round.picks.length <= 1));
    const { retrieval: flat } = await kgrag.retrieve('Who composed the music of Redwater?', { method: 'kgp:tfidf' });
    assert.deepEqual(
      retrieval.chunks.slice(0, 2).map((chunk) => chunk.id),
      flat.chunks.slice(0, 2).map((chunk) => chunk.id),
    );
    assert.equal(retrieval.chunks.length, rounds.reduce((sum, round) => sum + round.picks.length, 0));
    const budget = await kgrag.retrieve('Who composed the music of Redwater?', { method: 'kgp:kg-tfidf', topK: 3 });
    assert.equal(budget.retrieval.chunks.length, 3, 'topK sets the budget K');
    await kgrag.close();
  });

  test('tfidf and bm25 rank the whole index; only passages sharing a word with the question', async () => {
    const kgrag = await open();
    for (const method of ['kgp:tfidf', 'kgp:bm25']) {
      const { retrieval } = await kgrag.retrieve('Erik Lund composer', { method });
      assert.equal(retrieval.chunks[0]?.documentTitle, 'Erik Lund', method);
      assert.ok(retrieval.chunks.length < documents.length, `${method} leaves out passages without a question word`);
    }
    await kgrag.close();
  });

  test('without an LLM the agent variants run kg-tfidf (KGP w/o LLM) and the trace says so', async () => {
    const kgrag = await open();
    const question = 'Who composed the music of Redwater?';
    const plain = await kgrag.retrieve(question, { method: 'kgp:kg-tfidf' });
    for (const variant of ['agent', 'agent-iterative']) {
      const { retrieval, trace } = await kgrag.retrieve(question, { method: `kgp:${variant}` });
      assert.deepEqual(
        retrieval.chunks.map((chunk) => chunk.id),
        plain.retrieval.chunks.map((chunk) => chunk.id),
      );
      assert.deepEqual(trace.find((step) => step.name === 'kgp-fallback')?.detail, { requested: `kgp:${variant}`, ran: 'kgp:kg-tfidf', reason: 'no LLM is configured' });
    }
    await kgrag.close();
  });
});

describe('kgp with the scripted LLM as traversal agent', () => {
  test('agent: one parallel call per seed with the question and the seed passage; neighbours ranked against the generated evidence', async () => {
    const llm = createScriptedLanguageModel({
      responses: [{ match: 'Redwater was shot in the winter', reply: 'The score of the film was composed by Erik Lund and recorded by an orchestra.' }],
      fallback: 'Maria Olsen directed the drama film.',
    });
    const kgrag = await open({ llm });
    const question = 'Where was the film Redwater shot?';
    const { retrieval, trace } = await kgrag.retrieve(question, { method: 'kgp:agent', params: { graph: ['structural'], seeds: 2, neighboursPerSeed: 1 } });
    assert.equal(llm.calls.length, 2, 'one call per seed');
    const prompts = llm.calls.map(promptOf);
    for (const prompt of prompts) {
      assert.match(prompt, /What evidence do we need to answer the question given the current evidence\?/);
      assert.ok(prompt.includes(question));
    }
    assert.ok(llm.calls.every((call) => call.priority === 'interactive' && call.purpose === 'kgp-next-evidence'));
    const ids = retrieval.chunks.map((chunk) => chunk.id);
    // TF-IDF seeds: the shooting passage first. Its evidence talks about the score, so of its neighbours the
    // music passage (not the director one, which the question's "film" would favour) follows it.
    assert.equal(ids[0], chunkOf(redwaterShooting));
    assert.ok(prompts.some((prompt) => prompt.includes(redwaterShooting)));
    assert.equal(ids[1], chunkOf(redwaterMusic));
    const seeds = retrieval.subgraph?.nodes.filter((node) => node.kind === 'seed').map((node) => node.id) ?? [];
    assert.equal(seeds.length, 2);
    seeds.forEach((seed, index) => assert.ok((prompts[index] ?? '').includes(chunkTexts.get(seed) ?? '?'), 'each prompt holds its seed passage'));
    const evidence = trace.find((step) => step.name === 'kgp-next-evidence')?.detail;
    assert.equal(evidence?.calls, 2);
    assert.ok(JSON.stringify(evidence?.evidence).includes('Erik Lund'));
    const traversed = retrieval.subgraph?.edges.find((edge) => edge.source === ids[0] && edge.target === ids[1]);
    assert.equal(traversed?.kind, 'structural');
    assert.ok(ids.length <= 30 && new Set(ids).size === ids.length);
    await kgrag.close();
  });

  test('agent-iterative: paths grow from the queue until exactly K passages; later prompts carry the whole path', async () => {
    const llm = createScriptedLanguageModel({
      responses: [{ match: 'Erik Lund', reply: 'Redwater was directed by Maria Olsen.' }],
      fallback: 'The music was composed by Erik Lund.',
    });
    const kgrag = await open({ llm });
    const { retrieval, trace } = await kgrag.retrieve('Where was the film Redwater shot?', {
      method: 'kgp:agent-iterative',
      params: { graph: ['structural'], seeds: 1, neighboursPerSeed: 1, budget: 3 },
    });
    const ids = retrieval.chunks.map((chunk) => chunk.id);
    assert.deepEqual(ids, [chunkOf(redwaterShooting), chunkOf(redwaterMusic), chunkOf(redwaterDirector)]);
    assert.equal(llm.calls.length, 2, 'the seed, then its one new neighbour; K is reached');
    const second = promptOf(llm.calls[1] as ChatRequest);
    assert.ok(second.includes(redwaterShooting) && second.includes(redwaterMusic), 'the current evidence is the path so far');
    const expansions = trace.find((step) => step.name === 'kgp-traversal')?.detail?.expansions as Array<{ depth: number }>;
    assert.deepEqual(
      expansions.map((expansion) => expansion.depth),
      [0, 1],
    );
    await kgrag.close();
  });

  test('agent-iterative never returns more than K, even with more seeds than K', async () => {
    const llm = createScriptedLanguageModel({ responses: [], fallback: 'harbour orchestra painter' });
    const kgrag = await open({ llm });
    const { retrieval } = await kgrag.retrieve('Bergen harbour orchestra painter Norway', { method: 'kgp:agent-iterative', params: { budget: 2, seeds: 5 } });
    assert.equal(retrieval.chunks.length, 2);
    assert.equal(llm.calls.length, 0);
    await kgrag.close();
  });
});
