import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import { buildTripleIndex } from '../src/extract/triples/triple-index.js';
import type { CsrMatrix } from '../src/math/csr-matrix.js';
import { transposeCsr } from '../src/math/csr-operations.js';
import { sparseMatrixPower, sparseMatrixProduct } from '../src/math/sparse-matrix-product.js';
import { expandRelations } from '../src/methods/relations/expand-relations.js';
import { orderCandidates } from '../src/methods/relations/order-candidates.js';
import { parseRerankReply } from '../src/methods/relations/parse-rerank-reply.js';
import { incidenceMatrix } from '../src/methods/relations/relations-graph.js';
import { relationsRerankPrompt, renderRelationsRerankMessages } from '../src/methods/relations/relations-rerank-prompt.js';
import { rerankByPathSupport } from '../src/methods/relations/rerank-by-path-support.js';
import { createSimilarityIndex } from '../src/math/similarity-index.js';
import type { ChatRequest } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel } from '../src/testing/scripted-language-model.js';

/*
 * The nano example of Graph RAG with Milvus (milvus-io/bootcamp, bootcamp/tutorials/quickstart/graph_rag_with_milvus.ipynb), in our own words: four
 * passages about the Bernoulli family and Euler with hand-written triples, plus one unrelated passage. The
 * demo question needs two hops (Euler → his teacher Johann → Johann's son Daniel), which naive RAG misses.
 */
const passages: Array<{ title: string; text: string; triples: Array<[string, string, string]> }> = [
  {
    title: 'Jakob Bernoulli',
    text: 'Jakob Bernoulli (1654–1705) was one of the first members of the Bernoulli family to become known in mathematics. He contributed to calculus and to the theory of probability, and the Bernoulli numbers are named after him. He was the older brother of Johann Bernoulli.',
    triples: [
      ['Jakob Bernoulli', 'contributed to', 'calculus'],
      ['Jakob Bernoulli', 'contributed to', 'theory of probability'],
      ['Bernoulli numbers', 'named after', 'Jakob Bernoulli'],
      ['Jakob Bernoulli', 'was the older brother of', 'Johann Bernoulli'],
    ],
  },
  {
    title: 'Johann Bernoulli',
    text: 'Johann Bernoulli (1667–1748), the younger brother of Jakob, was a major figure in the development of calculus. He spread the ideas of Leibniz across Europe and worked on the brachistochrone problem.',
    triples: [
      ['Johann Bernoulli', 'was a major figure in', 'development of calculus'],
      ['Johann Bernoulli', 'was the younger brother of', 'Jakob Bernoulli'],
      ['Johann Bernoulli', 'spread the ideas of', 'Leibniz'],
      ['Johann Bernoulli', 'worked on', 'brachistochrone problem'],
    ],
  },
  {
    title: 'Daniel Bernoulli',
    text: "Daniel Bernoulli (1700–1782), the son of Johann Bernoulli, made major contributions to fluid dynamics, probability and statistics. He is best known for Bernoulli's principle, which underlies aerodynamics.",
    triples: [
      ['Daniel Bernoulli', 'was the son of', 'Johann Bernoulli'],
      ['Daniel Bernoulli', 'made major contributions to', 'fluid dynamics'],
      ['Daniel Bernoulli', 'made major contributions to', 'probability'],
      ['Daniel Bernoulli', 'made major contributions to', 'statistics'],
      ['Daniel Bernoulli', 'is best known for', "Bernoulli's principle"],
      ["Bernoulli's principle", 'underlies', 'aerodynamics'],
    ],
  },
  {
    title: 'Leonhard Euler',
    text: "Leonhard Euler (1707–1783), one of the greatest mathematicians of all time, was born in Basel. He was a student of Johann Bernoulli, who saw his talent and taught him mathematics; Johann Bernoulli's influence on Euler was profound.",
    triples: [
      ['Leonhard Euler', 'was born in', 'Basel'],
      ['Leonhard Euler', 'was a student of', 'Johann Bernoulli'],
      ['Johann Bernoulli', 'taught mathematics to', 'Leonhard Euler'],
      ['Johann Bernoulli', 'had a profound influence on', 'Euler'],
    ],
  },
  {
    title: 'Basel Minster',
    text: 'Basel Minster is a church in Basel. Its red sandstone towers overlook the Rhine.',
    triples: [
      ['Basel Minster', 'is a church in', 'Basel'],
      ['Basel Minster', 'overlooks', 'Rhine'],
    ],
  },
];

const question = "What contribution did the son of Euler's teacher make?";
const root = mkdtempSync(join(tmpdir(), 'kgrag-relations-'));
const workspace = join(root, 'nano');

const open = (options: Parameters<typeof createKgrag>[0] = {}): Promise<Kgrag> => createKgrag({ workspace, env: {}, ...options });

/** The rerank request of a scripted model's calls. */
function rerankCall(calls: readonly ChatRequest[]): ChatRequest {
  const call = calls.find((request) => request.purpose === 'relations-rerank');
  assert.ok(call, 'a rerank call was made');
  return call;
}

/** The `[i] sentence` lines of a rerank request's last user turn. */
function promptLines(request: ChatRequest): string[] {
  const last = request.messages.at(-1)?.content ?? '';
  return last.split('\n').filter((line) => /^\[\d+\] /.test(line));
}

before(async () => {
  const kgrag = await open();
  await kgrag.index(passages.map((passage) => ({ title: passage.title, text: passage.text, source: `nano#${passage.title}` })), { mode: 'fast' });
  const file = join(root, 'openie.json');
  writeFileSync(
    file,
    JSON.stringify({
      docs: passages.map((passage) => ({ title: passage.title, text: passage.text, extracted_entities: [], extracted_triples: passage.triples })),
    }),
  );
  const summary = await kgrag.importOpenie(file);
  assert.equal(summary.matched, passages.length);
  await kgrag.close();
});

after(() => rmSync(root, { recursive: true, force: true }));

describe('relations: the nano example', () => {
  test("without an LLM, the son of Euler's teacher surfaces Daniel Bernoulli's passage among the finalTopK passages", async () => {
    const kgrag = await open();
    const result = await kgrag.query(question, { method: 'relations', contextOnly: true });
    const titles = result.context.chunks.map((chunk) => chunk.documentTitle);
    assert.ok(titles.slice(0, 2).includes('Daniel Bernoulli'), `Daniel in the first 2 of ${titles.join(', ')}`);
    assert.match(result.context.text, /fluid dynamics/, 'the answer context holds his contributions');
    const rerank = result.trace.steps.find((step) => step.name === 'rerank');
    assert.equal(rerank?.detail?.kind, 'similarity');
    assert.equal(result.usage.llmCalls, 0);
    const kinds = new Set(result.context.subgraph?.nodes.map((node) => node.kind));
    for (const kind of ['query', 'query-entity', 'phrase', 'seed-fact', 'chunk']) assert.ok(kinds.has(kind), `subgraph has ${kind} nodes`);
    const seeds = result.trace.steps.find((step) => step.name === 'seeds')?.detail as { entities: Array<{ mention: string; phrases: string[] }> };
    assert.ok(seeds.entities.some((entity) => entity.phrases.includes('euler')), 'the mention "Euler" seeds the phrase "euler"');
    await kgrag.close();
  });

  test('k ranked passages for evaluation, finalTopK of them for the answer; -k sets both', async () => {
    const kgrag = await open();
    const retrieved = await kgrag.retrieve(question, { method: 'relations', params: { k: 5 } });
    assert.equal(retrieved.retrieval.chunks.length, 5, 'k passages, filled by dense search when the facts reach fewer');
    assert.equal(new Set(retrieved.retrieval.chunks.map((chunk) => chunk.id)).size, 5, 'distinct');
    const answered = await kgrag.query(question, { method: 'relations', contextOnly: true, params: { k: 4, finalTopK: 1 } });
    assert.equal(answered.context.chunks.length, 4);
    assert.equal(answered.context.text.split('\n').filter((line) => /^\d+\|/.test(line)).length, 1, 'one Sources row');
    for (const topK of [1, 4]) {
      const result = await kgrag.query(question, { method: 'relations', contextOnly: true, topK });
      assert.equal(result.context.chunks.length, topK, `-k ${topK}: the passages returned`);
      assert.equal(result.context.text.split('\n').filter((line) => /^\d+\|/.test(line)).length, topK, `-k ${topK}: the passages the answer reads`);
      assert.deepEqual(result.warnings, []);
    }
    const byTopK = await kgrag.query(question, { method: 'relations', contextOnly: true, topK: 3, params: { k: 2 } });
    assert.equal(byTopK.trace.params.finalTopK, 3);
    assert.equal(byTopK.context.chunks.length, 3, 'retrieval returns at least finalTopK passages');
    assert.equal(byTopK.context.text.split('\n').filter((line) => /^\d+\|/.test(line)).length, 3);
    await kgrag.close();
  });

  test('the same question gives the same passages, subgraph and trace details twice', async () => {
    const kgrag = await open();
    const first = await kgrag.retrieve(question, { method: 'relations' });
    const second = await kgrag.retrieve(question, { method: 'relations' });
    assert.deepEqual(second.retrieval.chunks.map((chunk) => chunk.id), first.retrieval.chunks.map((chunk) => chunk.id));
    assert.deepEqual(second.retrieval.subgraph, first.retrieval.subgraph);
    const details = (steps: typeof first.trace) => steps.filter((step) => step.name !== 'relations-graph').map((step) => [step.name, step.detail]);
    assert.deepEqual(details(second.trace), details(first.trace));
    await kgrag.close();
  });
});

describe('relations: LLM rerank', () => {
  test('one interactive JSON call with the one-shot prompt; ids by [n] and by text, unknown ids counted and ignored', async () => {
    const reply = (request: ChatRequest) => {
      const lines = promptLines(request);
      const sonOf = lines.find((line) => line.includes('Daniel Bernoulli was the son of Johann Bernoulli')) ?? '';
      const student = lines.find((line) => line.includes('Leonhard Euler was a student of Johann Bernoulli')) ?? '';
      return {
        thought_process: "Find Euler's teacher, then his son, then the son's contributions.",
        useful_relationships: [
          student,
          '[99] Euler invented the telephone',
          // No id: matched to its candidate by text.
          sonOf.replace(/^\[\d+\] /, ''),
          student,
        ],
      };
    };
    const llm = createScriptedLanguageModel({
      responses: [
        { match: (request) => request.purpose === 'query-entities', reply: { named_entities: ['Euler'] } },
        { match: (request) => request.purpose === 'relations-rerank', reply },
      ],
      fallback: 'Daniel Bernoulli made major contributions to fluid dynamics [Data: Sources (3)].',
    });
    const kgrag = await open({ llm });
    const result = await kgrag.query(question, { method: 'relations' });
    const call = rerankCall(llm.calls);
    assert.equal(call.priority, 'interactive');
    assert.equal(call.responseFormat?.type, 'json');
    assert.equal(call.temperature, 0);
    assert.deepEqual(call.messages.map((message) => message.role), ['user', 'assistant', 'user']);
    assert.match(call.messages[0]?.content ?? '', /Third Crusade/);
    assert.match(call.messages[0]?.content ?? '', /\[11\] Richard the Lionheart led the Third Crusade/);
    assert.match(call.messages[1]?.content ?? '', /"useful_relationships": \["\[11\] Richard the Lionheart led the Third Crusade"/);
    assert.ok(call.messages[2]?.content.startsWith(`Question:\n${question}\n\nRelationship descriptions:\n[1] `));
    const lines = promptLines(call);
    assert.ok(lines.length > 0);
    lines.forEach((line, index) => assert.ok(line.startsWith(`[${index + 1}] `), 'local ids 1..N in order'));

    const rerank = result.trace.steps.find((step) => step.name === 'rerank')?.detail;
    assert.deepEqual(rerank, { kind: 'llm', chosen: 2, format: 'json', byId: 2, byText: 1, unknownIds: 1, unmatched: 1, duplicates: 1 });
    const titles = result.context.chunks.map((chunk) => chunk.documentTitle);
    assert.deepEqual(titles.slice(0, 2), ['Leonhard Euler', 'Daniel Bernoulli'], 'passages follow the chosen facts in order');
    assert.equal(result.context.chunks.length, passages.length, 'the rest filled by dense search, up to every passage there is');
    assert.equal(result.usage.llmCalls, 3, 'query NER, rerank and answer, metered into the query');
    await kgrag.close();
  });

  test('the answer reads the finalTopK passages and reports every call of the query', async () => {
    const llm = createScriptedLanguageModel({
      responses: [
        { match: (request) => request.purpose === 'query-entities', reply: { named_entities: ['Euler'] } },
        { match: (request) => request.purpose === 'relations-rerank', reply: (request) => ({ useful_relationships: promptLines(request).slice(0, 1) }) },
      ],
      fallback: 'He worked on fluid dynamics [Data: Sources (1)].',
    });
    const kgrag = await open({ llm });
    const result = await kgrag.query(question, { method: 'relations', params: { finalTopK: 1 } });
    assert.equal(result.usage.llmCalls, 3);
    const answerCall = llm.calls.find((request) => request.purpose === 'answer');
    assert.ok(answerCall);
    const sources = (answerCall.messages[0]?.content ?? '').split('\n').filter((line) => /^\d+\|/.test(line));
    assert.equal(sources.length, 1);
    await kgrag.close();
  });

  test('rerank "llm" without a model is a config error naming the fix', async () => {
    const kgrag = await open();
    await assert.rejects(kgrag.retrieve(question, { method: 'relations', params: { rerank: 'llm' } }), (error: Error & { code?: string; hint?: string }) => {
      assert.equal(error.code, 'RELATIONS_RERANK_NEEDS_LLM');
      assert.match(error.hint ?? '', /rerank to "similarity"/);
      return true;
    });
    await kgrag.close();
  });
});

describe('relations: rerank reply parsing', () => {
  const candidates = ['Leonhard Euler was a student of Johann Bernoulli', 'Daniel Bernoulli was the son of Johann Bernoulli', 'Euler was born in Basel'];

  test('ids by [n] in the order returned, then by text; unknown ids and lines naming nothing are counted', () => {
    const parsed = parseRerankReply(
      JSON.stringify({
        thought_process: 'teacher, then son',
        useful_relationships: ['[2] Daniel Bernoulli was the son of Johann Bernoulli', '[7] Leonhard Euler was a student of Johann Bernoulli', 'nothing useful here', '[2] again', 3],
      }),
      candidates,
    );
    assert.deepEqual(parsed.selected, [1, 0, 2]);
    assert.equal(parsed.format, 'json');
    assert.equal(parsed.byId, 3, '[2], [2] again and the bare number 3');
    assert.equal(parsed.byText, 1, 'the unknown [7] rescued by its text');
    assert.equal(parsed.unknownIds, 1);
    assert.equal(parsed.unmatched, 1);
    assert.equal(parsed.duplicates, 1);
    assert.equal(parsed.thoughtProcess, 'teacher, then son');
  });

  test('text matching forgives case, punctuation and small edits, never guesses below the overlap bar', () => {
    const parsed = parseRerankReply('{"useful_relationships": ["daniel bernoulli was son of johann bernoulli.", "Basel is in Switzerland"]}', candidates);
    assert.deepEqual(parsed.selected, [1]);
    assert.equal(parsed.byText, 1);
    assert.equal(parsed.unmatched, 1);
  });

  test("a reply that is not JSON is read line by line for [n]; the successor's useful_relations key is accepted", () => {
    const lines = parseRerankReply('Sure! The useful ones:\n[3] Euler was born in Basel\n[1] Leonhard Euler was a student', candidates);
    assert.equal(lines.format, 'lines');
    assert.deepEqual(lines.selected, [2, 0]);
    const successor = parseRerankReply('```json\n{"useful_relations": ["[1] x"]}\n```', candidates);
    assert.deepEqual(successor.selected, [0]);
    const empty = parseRerankReply('I cannot help with that.', candidates);
    assert.deepEqual(empty.selected, []);
  });

  test('the prompt turns split at their markers and braces in the question stay verbatim', () => {
    const messages = renderRelationsRerankMessages(relationsRerankPrompt.text, 'Is {question} a {placeholder}?', ['[1] a b c']);
    assert.deepEqual(messages.map((message) => message.role), ['user', 'assistant', 'user']);
    assert.match(messages[2]?.content ?? '', /Question:\nIs \{question\} a \{placeholder\}\?\n\nRelationship descriptions:\n\[1\] a b c/);
    assert.deepEqual(renderRelationsRerankMessages('Pick from {relationships}', 'q', ['[1] x']), [{ role: 'user', content: 'Pick from [1] x' }]);
  });
});

/** A random 0/1 phrase × fact incidence of a small graph, as built from fact endpoints. */
function randomGraph(seed: number, phrases: number, facts: number): { incidence: CsrMatrix; incidenceTransposed: CsrMatrix; factSubject: Int32Array; factObject: Int32Array } {
  const random = createRandom(seed);
  const factSubject = new Int32Array(facts);
  const factObject = new Int32Array(facts);
  for (let fact = 0; fact < facts; fact++) {
    factSubject[fact] = Math.floor(random() * phrases);
    // A few self-loops (subject = object) test the single incidence entry.
    factObject[fact] = random() < 0.1 ? (factSubject[fact] as number) : Math.floor(random() * phrases);
  }
  const incidence = incidenceMatrix(phrases, factSubject, factObject);
  return { incidence, incidenceTransposed: transposeCsr(incidence), factSubject, factObject };
}

/** Row `row` of a CSR matrix as column → value. */
function rowOf(matrix: CsrMatrix, row: number): Map<number, number> {
  const entries = new Map<number, number>();
  for (let entry = matrix.rowPointers[row] as number; entry < (matrix.rowPointers[row + 1] as number); entry++) entries.set(matrix.columnIndices[entry] as number, matrix.values[entry] as number);
  return entries;
}

describe('relations: expansion by incidence products', () => {
  test('the incidence matrix has one entry per fact end, one for a fact joining a phrase to itself', () => {
    const incidence = incidenceMatrix(3, Int32Array.from([0, 1, 2]), Int32Array.from([1, 1, 0]));
    assert.deepEqual(
      Array.from({ length: 3 }, (_, row) => [...rowOf(incidence, row)]),
      [
        [[0, 1], [2, 1]],
        [[0, 1], [1, 1]],
        [[2, 1]],
      ],
    );
  });

  for (const degree of [1, 2]) {
    test(`degree ${degree}: rows equal those of RRd = (MᵀM)^d and ERd = (MMᵀ)^d·M, path counts included`, () => {
      const graph = randomGraph(7 + degree, 40, 60);
      const { incidence, incidenceTransposed } = graph;
      const relationRelation = sparseMatrixPower(sparseMatrixProduct(incidenceTransposed, incidence), degree);
      const entityRelation = sparseMatrixProduct(sparseMatrixPower(sparseMatrixProduct(incidence, incidenceTransposed), degree), incidence);
      const seedPhrases = [3, 17, 29];
      const seedFacts = [0, 42];
      const expansion = expandRelations(graph, seedPhrases, seedFacts, degree);
      seedFacts.forEach((fact, row) => assert.deepEqual(rowOf(expansion.fromRelation, row), rowOf(relationRelation, fact)));
      seedPhrases.forEach((phrase, row) => assert.deepEqual(rowOf(expansion.fromEntity, row), rowOf(entityRelation, phrase)));
      const union = new Set<number>();
      for (const fact of seedFacts) for (const column of rowOf(relationRelation, fact).keys()) union.add(column);
      for (const phrase of seedPhrases) for (const column of rowOf(entityRelation, phrase).keys()) union.add(column);
      assert.deepEqual(Array.from(expansion.candidates), [...union].sort((left, right) => left - right));
    });
  }

  test('degree 1 on the nano triples: a seed phrase reaches its facts and its neighbours\' facts; a seed fact those sharing an end', () => {
    const rows = passages.flatMap((passage, index) => passage.triples.map(([subject, predicate, object], position) => ({ id: `t${index}-${position}`, subject, predicate, object, chunkId: `c${index}` })));
    const index = buildTripleIndex(rows);
    const incidence = incidenceMatrix(index.phraseTexts.length, index.factSubject, index.factObject);
    const graph = { incidence, incidenceTransposed: transposeCsr(incidence) };
    const euler = index.phraseIndex.get('euler') as number;
    const fromEuler = expandRelations(graph, [euler], [], 1);
    const texts = Array.from(fromEuler.candidates, (fact) => index.factTexts[fact]);
    assert.ok(texts.includes('Johann Bernoulli had a profound influence on Euler'), 'its own fact');
    assert.ok(texts.includes('Daniel Bernoulli was the son of Johann Bernoulli'), "a fact of its neighbour Johann");
    assert.ok(!texts.includes("Bernoulli's principle underlies aerodynamics"), 'three phrase hops away');
    const basel = index.factTexts.indexOf('Leonhard Euler was born in Basel');
    const fromFact = Array.from(expandRelations(graph, [], [basel], 1).candidates, (fact) => index.factTexts[fact]);
    assert.deepEqual(new Set(fromFact), new Set(index.factTexts.filter((text) => text.startsWith('Leonhard Euler') || text.endsWith('Leonhard Euler') || text.endsWith('Basel'))));
    assert.deepEqual(Array.from(expandRelations(graph, [euler], [], 0).candidates, (fact) => index.factTexts[fact]), ['Johann Bernoulli had a profound influence on Euler']);
  });
});

describe('relations: candidate order and the LLM-free rerank', () => {
  test('candidates by question similarity, ties by fact index; above the cap the least similar are evicted', () => {
    const similarity = Float32Array.from([0.2, 0.9, 0.5, 0.9, 0.1, 0.5]);
    assert.deepEqual(Array.from(orderCandidates(Int32Array.from([0, 1, 2, 3, 4, 5]), similarity, 10).facts), [1, 3, 2, 5, 0, 4]);
    const capped = orderCandidates(Int32Array.from([5, 4, 3, 2, 1, 0]), similarity, 3);
    assert.deepEqual(Array.from(capped.facts), [1, 3, 2]);
    assert.equal(capped.evicted, 3);
  });

  test('a fact on a path between two seeds outranks an equally similar fact touching one; the formula is exact', () => {
    // Phrases: 0 = seed A, 1 = seed B, 2 = bridge, 3 = elsewhere, 4 = next to B. Facts: 0 = A–B, 1 = A–3, 2 = A–2, 3 = 2–B, 4 = 3–4, 5 = 4–B.
    const factSubject = Int32Array.from([0, 0, 0, 2, 3, 4]);
    const factObject = Int32Array.from([1, 3, 2, 1, 4, 1]);
    const incidence = incidenceMatrix(5, factSubject, factObject);
    const graph = { incidence, incidenceTransposed: transposeCsr(incidence), factSubject, factObject };
    const similarity = new Float32Array(6).fill(0.5);
    const ranked = rerankByPathSupport(graph, { groups: [[0], [1]] }, Int32Array.from([1, 4, 2, 0, 3, 5]), similarity, 0.1);
    const support = new Map(ranked.map((item) => [item.fact, item.support]));
    assert.equal(support.get(0), 1, 'joins A and B directly');
    assert.equal(support.get(2), 0.5, 'touches A, its other end (the bridge) is next to B');
    assert.equal(support.get(3), 0.5, 'touches B, its other end is next to A');
    assert.equal(support.get(1), 0, 'touches A only; phrase 3 is next to nothing seeded but A');
    assert.equal(support.get(4), 0, 'touches no seed; both ends are next to one group each: 0 + ½·2 − 1');
    assert.equal(support.get(5), 0, 'touches B; its other end 4 is next to B only');
    assert.deepEqual(ranked.map((item) => item.fact), [0, 2, 3, 1, 4, 5], 'ties keep the candidate order');
    for (const item of ranked) assert.ok(Math.abs(item.score - (0.5 + 0.1 * item.support)) < 1e-6);
  });

  test('sparse and dense similarity indexes score alike', () => {
    const random = createRandom(3);
    const rows = 50;
    const dimensions = 64;
    const sparse = new Float32Array(rows * dimensions);
    for (let position = 0; position < sparse.length; position++) if (random() < 0.05) sparse[position] = random() - 0.5;
    const dense = Float32Array.from(sparse, (value) => value + 0.01);
    const queries = Float32Array.from({ length: 2 * dimensions }, () => random() - 0.5);
    for (const data of [sparse, dense]) {
      const index = createSimilarityIndex(rows, dimensions, data);
      assert.equal(index.layout, data === sparse ? 'sparse' : 'dense');
      const scores = index.scoreMany(queries, 2);
      for (let query = 0; query < 2; query++) {
        for (let row = 0; row < rows; row++) {
          let expected = 0;
          for (let dimension = 0; dimension < dimensions; dimension++) expected += (data[row * dimensions + dimension] as number) * (queries[query * dimensions + dimension] as number);
          assert.ok(Math.abs((scores[query * rows + row] as number) - expected) < 1e-4);
        }
      }
    }
  });
});
