import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createKgrag, type Kgrag, type KgragOptions } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import type { EvalDataset } from '../src/eval/eval-dataset.js';
import { runEvaluation } from '../src/eval/run-evaluation.js';
import type { SearchTrace } from '../src/methods/tot/tree-search.js';
import type { QueryResult } from '../src/methods/query-engine.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { startMockOpenAiServer } from '../src/testing/index.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';
import { startOxigraphSparqlEndpoint, type OxigraphSparqlEndpoint } from './helpers/oxigraph-sparql-endpoint.js';
import { backtrackingPolicy, collegePolicy, lanternKeeperGraph, collegeQuestion, filmPolicy, httpPolicyReply, purposeOfPrompt, scriptedPolicy, twoHopPolicy, twoHopTrajectory, twoHopQuestion, type PolicyRequest } from './helpers/lantern-keeper-graph.js';

/*
 * `tot` end to end: createKgrag → query engine → Tree-of-Traversals, walking a real SPARQL engine (oxigraph
 * behind a loopback SPARQL 1.1 endpoint, loaded with test/fixtures/wikidata-mini.ttl) configured as a
 * `methods.tot.knowledgeGraphs` entry, with the scripted fake LLM playing the model.
 */

const turtle = readFileSync(new URL('./fixtures/wikidata-mini.ttl', import.meta.url), 'utf8');
const root = mkdtempSync(join(tmpdir(), 'kgrag-tot-'));
let endpoint: OxigraphSparqlEndpoint;
let workspaces = 0;

before(async () => {
  endpoint = await startOxigraphSparqlEndpoint({ turtle });
});

after(async () => {
  await endpoint?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh workspace whose `wikidata` graph is the fixture endpoint; `tot` walks only that graph. */
async function open(policy: (request: PolicyRequest) => string, options: { maxRetries?: number } & Partial<KgragOptions> = {}): Promise<Kgrag> {
  const { maxRetries, ...rest } = options;
  workspaces += 1;
  return createKgrag({
    workspace: join(root, `w${workspaces}`),
    env: {},
    llm: scriptedPolicy(policy),
    config: {
      methods: { tot: { graphs: ['wikidata'], knowledgeGraphs: { wikidata: { type: 'sparql', endpoint: endpoint.url, ...(maxRetries === undefined ? {} : { maxRetries }) } } } },
    },
    ...rest,
  });
}

async function ask(policy: (request: PolicyRequest) => string, question: string, params: Record<string, unknown> = {}, options: { maxRetries?: number } & Partial<KgragOptions> = {}): Promise<QueryResult> {
  const kgrag = await open(policy, options);
  try {
    return await kgrag.query(question, { method: 'tot', params });
  } finally {
    await kgrag.close();
  }
}

const searchOf = (result: QueryResult): SearchTrace => {
  const step = result.trace.steps.find((candidate) => candidate.name === 'tot-search');
  assert.ok(step?.detail, 'the tot-search trace step');
  return step.detail as unknown as SearchTrace;
};

/** `policy`, and every request it was asked, in order: what the model was shown. */
function recorded(policy: (request: PolicyRequest) => string): { policy: (request: PolicyRequest) => string; seen: PolicyRequest[] } {
  const seen: PolicyRequest[] = [];
  return { policy: (request) => (seen.push(request), policy(request)), seen };
}

/** Whether a traversal prompt's KG EDGES show `source` with `relation` to `object` (among its objects). */
const shownEdge = (source: string, relation: string, object: string): RegExp =>
  new RegExp(`\\n${source}:\\n(\\t.*\\n)*\\t${relation}: \\(count \\d+\\)\\n(\\t\\t.*\\n)*\\t\\t${object}(\\n|$)`);

/** The trajectory lines from the root to the returned answer. */
const pathActions = (search: SearchTrace): string[] => search.path.flatMap((id) => (search.nodes.find((node) => node.id === id)?.action ?? '').split('\n')).filter((line) => line.length > 0);

describe('tot over a SPARQL endpoint (oxigraph)', () => {
  test("a library user's graph instance, given to createKgrag, replaces the configured graph of its name", async () => {
    const from = endpoint.requests.length;
    const result = await ask(twoHopPolicy, twoHopQuestion, {}, { knowledgeGraphs: { wikidata: lanternKeeperGraph() } });
    assert.equal(result.answer.text, 'Thomas Ellison');
    assert.deepEqual(pathActions(searchOf(result)), twoHopTrajectory);
    assert.equal(endpoint.requests.length, from, 'the SPARQL endpoint of methods.tot.knowledgeGraphs was not asked');
  });

  test('knowledgeGraphs names endpoints the server would call: a request may not set it', async () => {
    const kgrag = await open(twoHopPolicy);
    try {
      await assert.rejects(
        kgrag.query(twoHopQuestion, { method: 'tot', params: { knowledgeGraphs: { evil: { type: 'sparql', endpoint: 'http://169.254.169.254/' } } } }),
        (error: unknown) => KgragError.isInstance(error) && error.code === 'QUERY_CONFIG_ONLY_PARAM' && /methods\.tot\.knowledgeGraphs/.test(error.hint ?? ''),
      );
    } finally {
      await kgrag.close();
    }
  });

  test('the old top-level knowledgeGraphs section is refused with where it moved; the new one is checked by name and URL', async () => {
    const moved = join(root, 'moved');
    mkdirSync(moved, { recursive: true });
    writeFileSync(join(moved, 'kgrag.yaml'), `knowledgeGraphs:\n  wikidata:\n    type: sparql\n    endpoint: ${endpoint.url}\n`);
    await assert.rejects(createKgrag({ workspace: moved, env: {} }), (error: unknown) => KgragError.isInstance(error) && error.code === 'CONFIG_INVALID' && /knowledgeGraphs: moved to methods\.tot\.knowledgeGraphs/.test(error.message));
    const bad = join(root, 'bad-graphs');
    mkdirSync(bad, { recursive: true });
    writeFileSync(
      join(bad, 'kgrag.yaml'),
      'methods:\n  tot:\n    knowledgeGraphs:\n      Wiki:\n        type: sparql\n        endpoint: https://query.wikidata.org/sparql\n      index:\n        type: sparql\n        endpoint: https://example.org/sparql\n      dbpedia:\n        type: sparql\n        endpoint: dbpedia.org/sparql\n      wikidata:\n        type: sparql\n        endpoint: https://query.wikidata.org/sparql\n        identifierProperties:\n          musicbrainz: artist id\n',
    );
    await assert.rejects(createKgrag({ workspace: bad, env: {} }), (error: unknown) => {
      assert.ok(KgragError.isInstance(error) && error.code === 'CONFIG_INVALID');
      assert.match(error.message, /methods\.tot\.knowledgeGraphs\.Wiki: .*graph name "Wiki" must be lowercase letters/);
      assert.match(error.message, /methods\.tot\.knowledgeGraphs\.index: .*"index" is the workspace graph/);
      assert.match(error.message, /methods\.tot\.knowledgeGraphs\.dbpedia\.endpoint: .*expected an http\(s\) URL/);
      assert.match(error.message, /methods\.tot\.knowledgeGraphs\.wikidata\.identifierProperties\.musicbrainz: .*expected a property id such as P434/);
      return true;
    });
  });

  test('answers a two-hop question by expanding the film along director, then the director along father', async () => {
    const from = endpoint.requests.length;
    const model = recorded(twoHopPolicy);
    const result = await ask(model.policy, twoHopQuestion);
    assert.equal(result.method, 'tot');
    assert.equal(result.answer.text, 'Thomas Ellison');
    // The scripted model answers "Thomas Ellison" after the P22 step whatever it is shown; what the traversal did is
    // what it showed: the director's edge before it chose the father relation, the father's edge when it answered.
    const chose = model.seen.filter((request) => request.purpose === 'tot-select-relation' && request.prompt.includes('The selected entities are: Mara Ellison'));
    assert.ok(chose.length > 0);
    for (const request of chose) {
      assert.match(request.prompt, shownEdge('The Lantern Keeper', 'has director', 'Mara Ellison'));
      assert.doesNotMatch(request.prompt, /Thomas Ellison/, 'the father is not known before his edge is fetched');
    }
    const answered = model.seen.filter((request) => request.purpose === 'tot-action' && request.has('SELECT_RELATION: P22'));
    assert.ok(answered.length > 0);
    for (const request of answered) assert.match(request.prompt, shownEdge('Mara Ellison', 'has father', 'Thomas Ellison'));
    assert.match(result.answer.label ?? '', /value 1\.00/);
    const search = searchOf(result);
    assert.equal(search.stopReason, 'answer-found');
    assert.deepEqual(pathActions(search), twoHopTrajectory);
    // The two edge lookups went to the endpoint, for the right entity and property.
    const queries = endpoint.requests.slice(from).map((request) => request.query);
    assert.ok(queries.some((query) => query.includes('wd:Q100') && query.includes('P57')));
    assert.ok(queries.some((query) => query.includes('wd:Q200') && query.includes('P22')));
    assert.ok(endpoint.requests.slice(from).every((request) => request.status === 200));
    // The initialization disambiguated the film from the novel.
    const init = result.trace.steps.find((step) => step.name === 'tot-initialize')?.detail as { entities: Array<{ id: string }> };
    assert.deepEqual(
      init.entities.map((entity) => entity.id),
      ['Q100'],
    );
    // The explored subgraph: query → film (seed) → director → father, on the answer's path.
    const nodes = new Map(result.context.subgraph?.nodes.map((node) => [node.id, node]));
    assert.equal(nodes.get('wikidata:Q100')?.kind, 'seed');
    assert.equal(nodes.get('wikidata:Q201')?.label, 'Thomas Ellison');
    assert.equal(nodes.get('wikidata:Q201')?.score, 1);
    assert.ok(result.context.subgraph?.edges.some((edge) => edge.source === 'wikidata:Q200' && edge.target === 'wikidata:Q201' && edge.kind === 'has father'));
    assert.match(result.context.text, /Mara Ellison:\n\thas father: \(count 1\)\n\t\tThomas Ellison/);
    assert.ok(result.usage.llmCalls > 0);
    assert.equal(result.context.chunks.length, 0, 'no index graph, so no passages');
  });

  test('a bad first branch is abandoned: the search backtracks to a better earlier leaf', async () => {
    // k = 2 (backtrackingPolicy): the date branch rates 0.2 after its EXPAND rated 0.9, so the THINK (0.7) wins.
    const result = await ask(backtrackingPolicy, 'Who directed The Lantern Keeper?', { sampleBreadth: 2 });
    assert.equal(result.answer.text, 'Mara Ellison');
    const search = searchOf(result);
    const root = search.nodes.filter((node) => node.parent === 0);
    assert.deepEqual(
      root.map((node) => [node.action, node.value]),
      [
        ['EXPAND: check when it was published', 0.9],
        ['THINK: I need the director of the film', 0.7],
      ],
    );
    const dateLeaf = search.nodes.find((node) => node.action.startsWith('SELECT_RELATION: P577'));
    assert.equal(dateLeaf?.value, 0.2);
    assert.equal(dateLeaf?.order, undefined, 'the publication-date leaf was never expanded');
    assert.equal(search.path[1], root[1]?.id, 'the answer descends from the THINK');
    // The date edge was really fetched and shown, formatted at its precision.
    assert.ok(result.context.subgraph?.nodes.some((node) => node.kind === 'value' && node.label === 'March 02, 1954' && node.score === 0));
  });

  test('invalid actions and an endpoint failure are recorded in the trajectory, and the search goes on', async () => {
    // k = 1. First an action that does not parse; then the endpoint fails on the father lookup (no
    // retries configured); then everything works.
    endpoint.failNext(1, 503, { match: (query) => query.includes('wd:Q200') && query.includes('P22') && !query.includes('wikibase:directClaim') });
    const policy = (request: PolicyRequest): string => {
      if (request.purpose === 'tot-action' && request.trajectory.length === 0) return 'I would like to look around first';
      return twoHopPolicy(request);
    };
    const result = await ask(policy, twoHopQuestion, { sampleBreadth: 1 }, { maxRetries: 0 });
    assert.equal(result.answer.text, 'Thomas Ellison');
    const search = searchOf(result);
    const errors = search.nodes.filter((node) => node.error !== undefined);
    assert.equal(errors.length, 2);
    assert.match(errors[0]?.error ?? '', /'I would like to look around first' is not a valid action to pick/);
    assert.match(errors[1]?.error ?? '', /SELECT_RELATION P22: knowledge graph error: .*503/);
    assert.ok(errors.every((node) => node.value === -1));
    const actions = pathActions(search);
    assert.equal(actions.filter((line) => line.startsWith('ERROR: ')).length, 2, 'both errors are in the trajectory the answer was reached by');
    assert.equal(actions.at(-1), 'ANSWER: Thomas Ellison');
  });

  test('the expansion limit ends the search with the best answer so far, marked below the threshold', async () => {
    // The model answers a guess early (rated 0.5), then keeps thinking and expanding without finding more.
    const policy = filmPolicy({
      'tot-action': ({ trajectory, sample }) => {
        if (trajectory.length === 0) return sample === 0 ? 'ANSWER: Edwin Marsh' : 'THINK: the author may be in the graph';
        return trajectory.at(-1)?.startsWith('THINK') ? 'EXPAND: more' : 'THINK: still unsure';
      },
      'tot-select-entities': 'Q100',
      'tot-select-relation': 'P31',
      'tot-evaluate-state': 'RATING: 0.6',
      'tot-evaluate-answer': 'Not confirmed by the graph.\nRATING: 0.5',
    });
    const result = await ask(policy, 'Who wrote The Lantern Keeper?', { sampleBreadth: 2, maxExpansions: 4 });
    const search = searchOf(result);
    assert.equal(search.stopReason, 'max-expansions');
    assert.equal(search.expansions, 4);
    assert.equal(search.fallback, false);
    assert.equal(result.answer.text, 'Edwin Marsh');
    assert.equal(search.value, 0.5);
    assert.match(result.answer.label ?? '', /value 0\.50 \(below the threshold 0\.8\)/);
  });

  test('with no answer when the expansions run out, answers sampled at the best leaf are returned; none at all is "no answer found"', async () => {
    const wandering = filmPolicy({
      'tot-action': 'EXPAND: look around',
      'tot-select-entities': 'Q100',
      'tot-select-relation': 'P31',
      'tot-evaluate-state': 'RATING: 0.4',
      'tot-answer': 'THOUGHT: the graph says it is a film.\nANSWER: a film',
      'tot-evaluate-answer': 'RATING: 0.3',
    });
    const result = await ask(wandering, 'What is The Lantern Keeper?', { sampleBreadth: 1, maxExpansions: 3 });
    const search = searchOf(result);
    assert.equal(search.fallback, true);
    assert.equal(result.answer.text, 'a film');

    // A model that names an entity the graph lacks and then never produces a usable action or answer.
    const lost = await ask(({ purpose }) => (purpose === 'tot-extract-entities' ? 'Nothing Real - thing' : ''), 'Who is Nothing Real?', { sampleBreadth: 1, maxExpansions: 5 });
    assert.equal(lost.answer.text, '', '"no answer found" is a label, not an answer EM-in could match');
    assert.match(lost.answer.label ?? '', /^no answer found/);
    assert.deepEqual(searchOf(lost).path, []);
  });

  test('entity-selection voting is deterministic, and Q12 never selects Q1', async () => {
    // Root: the novel (Q101) and the river Kester (Q1). After the author edge, Q12 joins. The six votes
    // of the second selection (2k, k = 3) differ by sample; the k most common canonical selections win.
    const votes = ['Q12', 'the author Q12', 'Q1', 'Q12, Q1', 'Q1 and Q12', 'Q101'];
    const policy = ({ purpose, prompt, has, sample }: PolicyRequest): string => {
      switch (purpose) {
        case 'tot-extract-entities':
          return 'The Lantern Keeper - novel\nKester - river';
        case 'tot-match-entity':
          return prompt.includes('2: The Lantern Keeper (novel by Edwin Marsh)') ? '2' : '1';
        case 'tot-action':
          if (has('SELECT_RELATION: P50')) return sample === 0 ? 'EXPAND: about the author' : 'ANSWER: Edwin Marsh';
          return 'EXPAND: the author of the novel';
        case 'tot-select-entities':
          return has('SELECT_RELATION: P50') ? (votes[sample] ?? '') : 'Q101';
        case 'tot-select-relation':
          return 'P50';
        case 'tot-evaluate-state':
          return 'RATING: 0.5';
        case 'tot-evaluate-answer':
          return 'RATING: 0.7';
        default:
          throw new Error(`unexpected purpose ${purpose}`);
      }
    };
    const question = 'Who wrote the novel The Lantern Keeper, and is he from the Kester?';
    const params = { sampleBreadth: 3, maxExpansions: 6 };
    const first = searchOf(await ask(policy, question, params));
    const second = searchOf(await ask(policy, question, params));
    assert.deepEqual(second, first, 'the same question and seed build the same tree');
    const selections = first.nodes.filter((node) => node.action.startsWith('SELECT_ENTITIES') && node.depth > 2).map((node) => node.action);
    // Counts: [Q12] 2 ("Q12", "the author Q12"), [Q1, Q12] 2 (order-free), [Q1] 1, [Q101] 1 → the two
    // twice-voted selections, then the first once-voted one.
    assert.deepEqual(selections, ['SELECT_ENTITIES: [Q12]', 'SELECT_ENTITIES: [Q1, Q12]', 'SELECT_ENTITIES: [Q1]']);
  });

  test('kgrag eval measures EM-in (and EM, F1) on tot answers', async () => {
    // Two questions: the two-hop one is answered right ("Thomas Ellison" inside a longer answer counts for
    // EM-in, not for EM), the other finds no answer, which is empty text and scores 0 everywhere.
    const policy = (request: PolicyRequest): string => {
      if (request.prompt.includes('Who founded Carrowgate Mill?')) return request.purpose === 'tot-extract-entities' ? 'Nobody Known - person' : '';
      if (request.purpose === 'tot-action' && request.has('SELECT_RELATION: P22')) return 'ANSWER: Thomas Ellison, the shipwright';
      return twoHopPolicy(request);
    };
    const dataset: EvalDataset = {
      name: 'lantern',
      passages: [{ key: 'Lantern\nThe Lantern Keeper is a 1954 film.', title: 'Lantern', text: 'The Lantern Keeper is a 1954 film.' }],
      questions: [
        { id: 'father', question: twoHopQuestion, answers: ['Thomas Ellison'], goldKeys: [] },
        { id: 'mill', question: 'Who founded Carrowgate Mill?', answers: ['Edwin Marsh'], goldKeys: [] },
      ],
    };
    const kgrag = await open(policy);
    try {
      const { report, questions } = await runEvaluation({ kgrag, dataset, methods: ['tot'], grade: false, cutoffs: [1] });
      const method = report.methods['tot'];
      assert.ok(method);
      assert.equal(method.errors, 0);
      assert.equal(method.em_in, 50);
      assert.equal(method.em, 0);
      // F1: "Thomas Ellison, the shipwright" holds the gold's 2 tokens among its 3 ("the" is dropped): precision 2/3,
      // recall 1, F1 0.8; no answer scores 0. The mean is 40.
      assert.equal(method.f1, 40);
      assert.ok(method.llm_calls > 0);
      assert.equal(questions.find((row) => row.id === 'father')?.answer, 'Thomas Ellison, the shipwright');
      assert.equal(questions.find((row) => row.id === 'mill')?.answer, '');
    } finally {
      await kgrag.close();
    }
  });

  test('without an LLM, tot says what to configure', async () => {
    const kgrag = await createKgrag({ workspace: join(root, 'no-llm'), env: {}, config: { methods: { tot: { graphs: ['wikidata'], knowledgeGraphs: { wikidata: { type: 'sparql', endpoint: endpoint.url } } } } } });
    try {
      await assert.rejects(kgrag.query('Who directed The Lantern Keeper?', { method: 'tot' }), (error: unknown) => error instanceof Error && 'code' in error && error.code === 'QUERY_NEEDS_LLM');
    } finally {
      await kgrag.close();
    }
  });

  test('walking the index of a workspace that has none is the engine\'s "not ready" error, with the way out', async () => {
    const kgrag = await open(twoHopPolicy);
    try {
      await assert.rejects(kgrag.query('Who?', { method: 'tot', params: { graphs: ['index'] } }), (error: unknown) => {
        assert.ok(KgragError.isInstance(error));
        assert.equal(error.code, 'QUERY_NO_INDEX');
        assert.match(error.message, /there is no index at .* yet/);
        assert.match(error.hint ?? '', /kgrag index .*or walk only configured graphs/);
        return true;
      });
    } finally {
      await kgrag.close();
    }
  });

  test('an unknown graph name is a configuration error listing the known ones', async () => {
    const kgrag = await open(twoHopPolicy);
    try {
      await assert.rejects(kgrag.query('Who?', { method: 'tot', params: { graphs: ['wikipedia'] } }), (error: unknown) => error instanceof Error && /unknown knowledge graph "wikipedia"/.test(error.message) && /index, wikidata/.test(JSON.stringify(error)));
    } finally {
      await kgrag.close();
    }
  });
});

describe('tot over the index and the SPARQL endpoint at once', () => {
  const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
  const workspace = join(root, 'multi');

  before(async () => {
    const indexer = await createKgrag({ workspace, env: {}, llm: createScriptedLanguageModel({ responses: [{ match: () => true, reply: (request) => sampleLlmReply(request) }] }) });
    try {
      await indexer.index([corpus], { mode: 'standard' });
    } finally {
      await indexer.close();
    }
  });

  test('one edge from the index (Clara Ivesley studied at the college) and one from Wikidata (its inception) answer the question', async () => {
    const model = recorded(collegePolicy);
    const kgrag = await createKgrag({
      workspace,
      env: {},
      llm: scriptedPolicy(model.policy),
      config: { methods: { tot: { graphs: ['index', 'wikidata'], knowledgeGraphs: { wikidata: { type: 'sparql', endpoint: endpoint.url } } } } },
    });
    let result: QueryResult;
    try {
      result = await kgrag.query(collegeQuestion, { method: 'tot', params: { sampleBreadth: 1 } });
    } finally {
      await kgrag.close();
    }
    assert.equal(result.answer.text, '1889');
    // The model, scripted to answer 1889 after the inception step, was shown the index's edge from Clara Ivesley to the
    // college and then Wikidata's inception of it.
    const answered = model.seen.filter((request) => request.purpose === 'tot-action' && request.has('SELECT_RELATION: P571'));
    assert.ok(answered.length > 0);
    for (const request of answered) {
      assert.match(request.prompt, shownEdge('Clara Ivesley', 'has related to', 'Brennard Technical College.*'));
      assert.match(request.prompt, shownEdge('Brennard Technical College', 'has inception', '1889'));
    }
    const actions = pathActions(searchOf(result));
    const index = actions.findIndex((line) => /^SELECT_RELATION: R\d+ - has related to$/.test(line));
    const wikidata = actions.indexOf('SELECT_RELATION: P571 - has inception');
    assert.ok(index >= 0 && wikidata > index, `the index edge, then the Wikidata edge: ${actions.join(' | ')}`);
    // The college is one entity: the index's, linked to its Wikidata item by label.
    const nodes = result.context.subgraph?.nodes ?? [];
    const college = nodes.filter((node) => node.label === 'Brennard Technical College');
    assert.equal(college.length, 1);
    assert.match(college[0]?.id ?? '', /^index:E\d+$/);
    assert.ok(result.context.subgraph?.edges.some((edge) => edge.source === college[0]?.id && edge.kind === 'has inception'));
    assert.ok(nodes.some((node) => node.kind === 'value' && node.label === '1889' && node.score === 1));
    // The passages behind the visited index entities come with the answer, for citations and evaluation.
    assert.ok(result.context.chunks.some((chunk) => chunk.text.includes('Brennard Technical College')));
    // The index records behind the path, found by id: both entities and the relation that joined them.
    const titles = new Map(result.context.entities?.map((entity) => [entity.id, entity.title]));
    assert.ok([...titles.values()].includes('Clara Ivesley') && [...titles.values()].includes('Brennard Technical College'));
    assert.ok(result.context.relations?.some((relation) => new Set([titles.get(relation.source), titles.get(relation.target)]).has('Brennard Technical College') && [titles.get(relation.source), titles.get(relation.target)].includes('Clara Ivesley')));
    assert.match(result.context.text, /has inception: \(count 1\)\n\t\t1889/);
  });
});

describe('kgrag query -m tot (CLI, OpenAI-compatible HTTP model)', () => {
  test('answers from kgrag.yaml\'s methods.tot.knowledgeGraphs over real HTTP, with the search tree in --json', async () => {
    const seeds: Array<number | undefined> = [];
    const stops: string[][] = [];
    const prompts: string[] = [];
    const play = httpPolicyReply(twoHopPolicy);
    const server = await startMockOpenAiServer({
      reply: (request) => {
        seeds.push(request.seed);
        if (request.stop) stops.push(request.stop);
        prompts.push(request.messages.map((message) => message.content).join('\n'));
        return play(request);
      },
    });
    const from = endpoint.requests.length;
    const workspace = join(root, 'cli');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'kgrag.yaml'), `methods:\n  tot:\n    graphs: [wikidata]\n    knowledgeGraphs:\n      wikidata:\n        type: sparql\n        endpoint: ${endpoint.url}\n`);
    try {
      const env = { KGRAG_LLM_BASE_URL: server.url, KGRAG_LLM_MODEL: 'mock-model' };
      const json = await runCliCaptured(['query', twoHopQuestion, '-m', 'tot', '--json'], { cwd: workspace, env });
      assert.equal(json.code, 0, json.stderr);
      const result = JSON.parse(json.stdout) as QueryResult;
      assert.equal(result.answer.text, 'Thomas Ellison');
      assert.equal(searchOf(result).stopReason, 'answer-found');
      assert.deepEqual(pathActions(searchOf(result)), twoHopTrajectory);
      // The walk went to the endpoint kgrag.yaml names, for the film's director and the director's father, and the
      // model was shown the father's edge over HTTP before the answer it is scripted to give.
      const queries = endpoint.requests.slice(from).map((request) => request.query);
      assert.ok(queries.some((query) => query.includes('wd:Q100') && query.includes('P57')));
      assert.ok(queries.some((query) => query.includes('wd:Q200') && query.includes('P22')));
      const answering = prompts.filter((prompt) => purposeOfPrompt(prompt) === 'tot-action' && prompt.includes('SELECT_RELATION: P22'));
      assert.ok(answering.length > 0);
      for (const prompt of answering) assert.match(prompt, shownEdge('Mara Ellison', 'has father', 'Thomas Ellison'));
      assert.ok(result.usage.llmCalls > 0 && result.usage.inputTokens > 0);
      // Samples of one group carry distinct seeds; action samples stop at the end of the line.
      assert.ok(new Set(seeds).size >= 3);
      assert.ok(stops.some((stop) => stop.includes('\n')));

      // Progress goes to stderr, a line per expansion when stderr is not a terminal; results to stdout only.
      assert.match(json.stderr, /^tot-initialize: start from The Lantern Keeper \(Q100\)\ntot-search: expansion 1\/20 · 2 nodes · \d+ LLM calls · no answer yet\n/);
      assert.match(json.stderr, /tot-search: expansion 7\/20 · 8 nodes · \d+ LLM calls · best answer "Thomas Ellison" \(value 1\.00\)\n$/);

      const text = await runCliCaptured(['query', twoHopQuestion, '-m', 'tot', '-q'], { cwd: workspace, env });
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /Thomas Ellison/);
      assert.equal(text.stderr, '', '-q: no progress');
    } finally {
      await server.close();
    }
  });
});
