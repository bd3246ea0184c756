import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { KgragError } from '../src/core/errors.js';
import type { KgEdgeList, KgEntity, KgRelation, KnowledgeGraph } from '../src/methods/tot/kg/knowledge-graph.js';
import { createSparqlKnowledgeGraph } from '../src/methods/tot/kg/sparql-knowledge-graph.js';
import type { SparqlKnowledgeGraphOptions } from '../src/methods/tot/kg/sparql-knowledge-graph.js';
import { startOxigraphSparqlEndpoint } from './helpers/oxigraph-sparql-endpoint.js';
import type { OxigraphSparqlEndpoint, SparqlEndpointFault } from './helpers/oxigraph-sparql-endpoint.js';

/*
 * The SPARQL knowledge graph against a real SPARQL engine (oxigraph behind a loopback SPARQL 1.1 Protocol
 * endpoint) holding test/fixtures/wikidata-mini.ttl, a small graph in Wikidata's RDF shape.
 */

const turtle = readFileSync(new URL('./fixtures/wikidata-mini.ttl', import.meta.url), 'utf8');

interface Setup {
  endpoint: OxigraphSparqlEndpoint;
  graph: KnowledgeGraph;
  /** Every wait the graph asked for between retries. */
  sleeps: number[];
}

async function setup(t: TestContext, options: Partial<SparqlKnowledgeGraphOptions> = {}, faults?: SparqlEndpointFault[]): Promise<Setup> {
  const endpoint = await startOxigraphSparqlEndpoint({ turtle, ...(faults ? { faults } : {}) });
  t.after(() => endpoint.close());
  const sleeps: number[] = [];
  const graph = createSparqlKnowledgeGraph({
    endpoint: endpoint.url,
    retryBaseDelayMs: 10,
    // The top of each jitter range, so the waits are the backoff ceilings.
    rng: () => 1,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { endpoint, graph, sleeps };
}

const relation = (id: string, label: string, direction: KgRelation['direction'] = 'forward'): KgRelation => ({ id, label, direction, graph: 'wikidata' });
const ids = (entities: readonly KgEntity[]): string[] => entities.map((entity) => entity.id);
const values = (list: KgEdgeList): Array<string | undefined> => list.edges.map((edge) => edge.value);
const targets = (list: KgEdgeList): Array<string | undefined> => list.edges.map((edge) => edge.target);
const hasCode = (code: string) => (error: unknown) => KgragError.isInstance(error) && error.code === code;

// ── searchEntities ────────────────────────────────────────────────────────────────────────────────────────

test('searchEntities finds exact labels with descriptions, lowest Q id first', async (t) => {
  const { graph } = await setup(t);
  assert.deepEqual(await graph.searchEntities('The Lantern Keeper'), [
    { id: 'Q100', label: 'The Lantern Keeper', description: '1954 film', graph: 'wikidata' },
    { id: 'Q101', label: 'The Lantern Keeper', description: 'novel by Edwin Marsh', graph: 'wikidata' },
  ]);
  assert.deepEqual(ids(await graph.searchEntities('The Lantern Keeper', { limit: 1 })), ['Q100']);
  assert.deepEqual(ids(await graph.searchEntities('  Kester  ')), ['Q1']);
});

test('searchEntities tries case variants and aliases, ranking label matches before alias matches', async (t) => {
  const { graph } = await setup(t);
  assert.deepEqual(ids(await graph.searchEntities('united kingdom')), ['Q145']);
  assert.deepEqual(ids(await graph.searchEntities('MARA ELLISON')), ['Q200']);
  assert.deepEqual(ids(await graph.searchEntities('UK')), ['Q145']);
  const [marsh] = await graph.searchEntities('E. Marsh');
  assert.equal(marsh?.id, 'Q12');
  assert.equal(marsh?.label, 'Edwin Marsh');
  // Q304's label and Q303's alias: the label wins although Q303 has the lower id.
  assert.deepEqual(ids(await graph.searchEntities('Carrowgate Mill')), ['Q304', 'Q303']);
  assert.deepEqual(ids(await graph.searchEntities('carrowgate mill')), ['Q304', 'Q303']);
  assert.deepEqual(await graph.searchEntities('Atlantis'), []);
});

test('searchEntities skips empty and 300+ character terms without a request, like the reference', async (t) => {
  const { graph, endpoint } = await setup(t);
  assert.deepEqual(await graph.searchEntities('   '), []);
  assert.deepEqual(await graph.searchEntities('x'.repeat(300)), []);
  assert.equal(endpoint.requests.length, 0);
});

test('a label crafted to break out of the literal is searched as a literal and leaves the store unchanged', async (t) => {
  const { graph, endpoint } = await setup(t);
  const size = endpoint.store.size;
  const hostile = ['x"@en } ; DROP ALL ; SELECT * { ?s ?p "', '\\u0022@en } ; DROP ALL ; #', "x'@en } } UNION { ?item ?p ?o } #", 'a\nb"\r\n}'];
  for (const text of hostile) assert.deepEqual(await graph.searchEntities(text), [], text);
  assert.equal(endpoint.store.size, size);
  assert.ok(endpoint.requests.length >= hostile.length);
  assert.ok(endpoint.requests.every((request) => request.status === 200));
  assert.ok(endpoint.requests[0]?.query.includes('"x\\"@en } ; DROP ALL ; SELECT * { ?s ?p \\""@en'));

  // The same text as a real label is found: it reached the engine as one literal, unchanged.
  endpoint.store.load(`<http://www.wikidata.org/entity/Q900> <http://www.w3.org/2000/01/rdf-schema#label> ${JSON.stringify(hostile[0])}@en .`, { format: 'text/turtle' });
  assert.deepEqual(ids(await graph.searchEntities(hostile[0] as string)), ['Q900']);
});

// ── getEntities ───────────────────────────────────────────────────────────────────────────────────────────

test('getEntities returns labels and descriptions in request order, leaving unknown ids out', async (t) => {
  const { graph, endpoint } = await setup(t);
  assert.deepEqual(await graph.getEntities(['Q12', 'Q999', 'Q1', 'Q12']), [
    { id: 'Q12', label: 'Edwin Marsh', description: 'English novelist', graph: 'wikidata' },
    { id: 'Q1', label: 'Kester', description: 'river', graph: 'wikidata' },
  ]);
  assert.equal(endpoint.requests.length, 1);
  assert.match(endpoint.requests[0]?.query ?? '', /VALUES \?item \{ wd:Q12 wd:Q999 wd:Q1 \}/);
  assert.deepEqual(await graph.getEntities([]), []);
  assert.equal(endpoint.requests.length, 1);
});

test('identifierProperties fill sameAs of returned entities', async (t) => {
  const { graph } = await setup(t, { identifierProperties: { viaf: 'P214' } });
  const [mara, kester] = await graph.getEntities(['Q200', 'Q1']);
  assert.deepEqual(mara?.sameAs, { viaf: '24614388' });
  assert.equal(kester?.sameAs, undefined);
  const [found] = await graph.searchEntities('Mara Ellison');
  assert.deepEqual(found?.sameAs, { viaf: '24614388' });
  const edges = await graph.getEdges(['Q100'], relation('P57', 'director'));
  assert.deepEqual(edges.entities[0]?.sameAs, { viaf: '24614388' });
});

// ── getRelations ──────────────────────────────────────────────────────────────────────────────────────────

test('getRelations lists forward then backward properties in numeric P order, without external ids', async (t) => {
  const { graph } = await setup(t);
  const list = await graph.getRelations(['Q200']);
  assert.deepEqual(
    list.relations.map((r) => `${r.direction === 'backward' ? '~' : ''}${r.id}: ${r.label}`),
    ['P19: place of birth', 'P22: father', 'P31: instance of', 'P106: occupation', 'P569: date of birth', '~P57: director'],
  );
  assert.ok(list.relations.every((r) => r.graph === 'wikidata'));
  assert.equal(list.truncated, false);
  assert.equal(list.limit, undefined);
  assert.deepEqual(list.warnings, []);

  const hub = await graph.getRelations(['Q145', 'Q300']);
  assert.deepEqual(
    hub.relations.map((r) => `${r.direction === 'backward' ? '~' : ''}${r.id}`),
    ['P17', 'P31', '~P17', '~P19', '~P131', '~P495'],
  );
});

test('excludeLabelPattern: null keeps external ids, a custom pattern drops what it matches', async (t) => {
  const { endpoint } = await setup(t);
  const keepAll = createSparqlKnowledgeGraph({ endpoint: endpoint.url, excludeLabelPattern: null });
  assert.ok((await keepAll.getRelations(['Q200'])).relations.some((r) => r.id === 'P214' && r.label === 'VIAF ID'));
  const noHeight = createSparqlKnowledgeGraph({ endpoint: endpoint.url, excludeLabelPattern: /height/g });
  for (let round = 0; round < 2; round += 1) {
    assert.deepEqual(
      (await noHeight.getRelations(['Q400'])).relations.map((r) => r.id),
      ['P17', 'P571'],
    );
  }
});

test('getRelations reports truncation by relationLimit and by the backward limits', async (t) => {
  const { endpoint } = await setup(t);
  const small = createSparqlKnowledgeGraph({ endpoint: endpoint.url, relationLimit: 2 });
  const cut = await small.getRelations(['Q200']);
  assert.deepEqual(cut.relations.map((r) => `${r.direction}:${r.id}`), ['forward:P19', 'forward:P22', 'backward:P57']);
  assert.equal(cut.truncated, true);
  assert.equal(cut.limit, 2);
  assert.match((cut.warnings ?? []).join('\n'), /relationLimit 2 of 5/);

  const inner = createSparqlKnowledgeGraph({ endpoint: endpoint.url, backwardRelationLimit: { inner: 1 } });
  const hub = await inner.getRelations(['Q145']);
  assert.equal(hub.relations.filter((r) => r.direction === 'backward').length, 1);
  assert.equal(hub.truncated, true);
  assert.equal(hub.limit, 1);
  const backwardQuery = endpoint.requests.map((request) => request.query).findLast((query) => query.includes('VALUES ?object'));
  assert.match(backwardQuery ?? '', /LIMIT 2\n/);

  const outer = createSparqlKnowledgeGraph({ endpoint: endpoint.url, backwardRelationLimit: { outer: 1 } });
  const outerCut = await outer.getRelations(['Q145']);
  assert.deepEqual(outerCut.relations.map((r) => `${r.direction}:${r.id}`), ['forward:P31', 'backward:P17']);
  assert.equal(outerCut.truncated, true);
  assert.equal(outerCut.limit, 1);
});

test('a failed backward query is tolerated like the reference, but reported as truncation with a warning', async (t) => {
  const { graph, endpoint } = await setup(t, { maxRetries: 1 }, [{ status: 500, count: 2, match: (query) => query.includes('VALUES ?object') }]);
  const list = await graph.getRelations(['Q200']);
  assert.deepEqual(list.relations.map((r) => r.id), ['P19', 'P22', 'P31', 'P106', 'P569']);
  assert.ok(list.relations.every((r) => r.direction === 'forward'));
  assert.equal(list.truncated, true);
  assert.equal(list.limit, undefined);
  assert.match((list.warnings ?? []).join('\n'), /backward relations could not be fetched.*HTTP 500/);
  assert.equal(endpoint.requests.filter((request) => request.status === 500).length, 2);

  endpoint.failNext(2, 500, { match: (query) => query.includes('VALUES ?subject') });
  await assert.rejects(graph.getRelations(['Q200']), hasCode('KG_ENDPOINT_ERROR'));
});

// ── getEdges ──────────────────────────────────────────────────────────────────────────────────────────────

test('getEdges returns entity targets with labels and descriptions', async (t) => {
  const { graph } = await setup(t);
  const director = await graph.getEdges(['Q100'], relation('P57', 'director'));
  assert.deepEqual(director, {
    edges: [{ source: 'Q100', relation: relation('P57', 'director'), target: 'Q200' }],
    entities: [{ id: 'Q200', label: 'Mara Ellison', description: 'British film director', graph: 'wikidata' }],
    truncated: false,
  });
  const birthplaces = await graph.getEdges(['Q201', 'Q200'], relation('P19', 'place of birth'));
  assert.deepEqual(birthplaces.edges.map((edge) => `${edge.source}→${edge.target}`), ['Q200→Q300', 'Q201→Q300']);
  assert.deepEqual(ids(birthplaces.entities), ['Q300']);
});

test('getEdges formats dates by precision exactly like the reference', async (t) => {
  const { graph } = await setup(t);
  assert.deepEqual(values(await graph.getEdges(['Q100'], relation('P577', 'publication date'))), ['March 02, 1954']);
  assert.deepEqual(values(await graph.getEdges(['Q101'], relation('P577', 'publication date'))), ['June 1948']);
  assert.deepEqual(values(await graph.getEdges(['Q200'], relation('P569', 'date of birth'))), ['1911']);
  assert.deepEqual(values(await graph.getEdges(['Q12'], relation('P569', 'date of birth'))), ['1890s']);
  assert.deepEqual(values(await graph.getEdges(['Q201'], relation('P569', 'date of birth'))), ['19th century']);
  assert.deepEqual(values(await graph.getEdges(['Q400'], relation('P571', 'inception'))), ['3rd century BCE']);
  const dated = await graph.getEdges(['Q12', 'Q200', 'Q201'], relation('P569', 'date of birth'));
  assert.deepEqual(dated.edges.map((edge) => `${edge.source}: ${edge.value}`), ['Q12: 1890s', 'Q200: 1911', 'Q201: 19th century']);
  assert.deepEqual(dated.entities, []);
  assert.ok(dated.edges.every((edge) => edge.target === undefined));
});

test('getEdges keeps truthy statements only: deprecated and outranked statements are left out', async (t) => {
  const { graph } = await setup(t);
  // Q200 also has a deprecated 1912 date of birth; Q301 a normal-rank 1890 inception under a preferred 1889.
  assert.deepEqual(values(await graph.getEdges(['Q200'], relation('P569', 'date of birth'))), ['1911']);
  assert.deepEqual(values(await graph.getEdges(['Q301'], relation('P571', 'inception'))), ['1889']);
});

test('getEdges gives quantities and unlabelled objects as literal values', async (t) => {
  const { graph, endpoint } = await setup(t);
  // oxigraph stores "+12"^^xsd:decimal canonically as 12; the '+' Wikidata sends is checked below.
  assert.deepEqual(values(await graph.getEdges(['Q400'], relation('P2048', 'height'))), ['12']);
  endpoint.store.load(
    `@prefix wd: <http://www.wikidata.org/entity/> . @prefix wdt: <http://www.wikidata.org/prop/direct/> .
     @prefix p: <http://www.wikidata.org/prop/> . @prefix ps: <http://www.wikidata.org/prop/statement/> .
     wd:Q402 wdt:P17 wd:Q9999 ; p:P17 <http://www.wikidata.org/entity/statement/Q402-P17-1> .
     <http://www.wikidata.org/entity/statement/Q402-P17-1> ps:P17 wd:Q9999 .`,
    { format: 'text/turtle' },
  );
  const unlabelled = await graph.getEdges(['Q402'], relation('P17', 'country'));
  assert.deepEqual(values(unlabelled), ['Q9999']);
  assert.deepEqual(unlabelled.entities, []);
});

test('getEdges strips the sign Wikidata writes on quantities', async () => {
  const answer = {
    head: { vars: ['source', 'object', 'precision', 'label', 'description'] },
    results: {
      bindings: [
        { source: { type: 'uri', value: 'http://www.wikidata.org/entity/Q400' }, object: { type: 'literal', datatype: 'http://www.w3.org/2001/XMLSchema#decimal', value: '+12' } },
        { source: { type: 'uri', value: 'http://www.wikidata.org/entity/Q400' }, object: { type: 'literal', datatype: 'http://www.w3.org/2001/XMLSchema#decimal', value: '-3.5' } },
        { source: { type: 'uri', value: 'http://www.wikidata.org/entity/Q400' }, object: { type: 'bnode', value: 'b0' } },
      ],
    },
  };
  const graph = createSparqlKnowledgeGraph({
    endpoint: 'http://wikidata.invalid/sparql',
    fetch: async () => new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/sparql-results+json' } }),
  });
  assert.deepEqual(values(await graph.getEdges(['Q400'], relation('P2048', 'height'))), ['12', '-3.5', 'unknown value']);
});

test('getEdges reads an unknown value as today\'s WDQS writes it (a genid IRI) as "unknown value", not as an id', async () => {
  const answer = {
    head: { vars: ['source', 'object', 'precision', 'label', 'description'] },
    results: { bindings: [{ source: { type: 'uri', value: 'http://www.wikidata.org/entity/Q201' }, object: { type: 'uri', value: 'http://www.wikidata.org/.well-known/genid/0b3a9c' } }] },
  };
  const graph = createSparqlKnowledgeGraph({
    endpoint: 'http://wikidata.invalid/sparql',
    fetch: async () => new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/sparql-results+json' } }),
  });
  const list = await graph.getEdges(['Q201'], relation('P22', 'father'));
  assert.deepEqual(values(list), ['unknown value']);
  assert.deepEqual(list.entities, []);
});

test('getEdges follows backward relations to the subjects and reports truncation by edgeLimit', async (t) => {
  const { graph, endpoint } = await setup(t);
  const all = await graph.getEdges(['Q145'], relation('P17', 'country', 'backward'));
  assert.deepEqual(targets(all), ['Q1', 'Q300', 'Q301', 'Q302', 'Q303', 'Q304', 'Q400']);
  assert.ok(all.edges.every((edge) => edge.source === 'Q145' && edge.relation.direction === 'backward'));
  assert.deepEqual(all.entities.find((entity) => entity.id === 'Q301')?.label, 'Brennard Technical College');
  assert.equal(all.truncated, false);

  const small = createSparqlKnowledgeGraph({ endpoint: endpoint.url, edgeLimit: 3 });
  const cut = await small.getEdges(['Q145'], relation('P17', 'country', 'backward'));
  assert.deepEqual(targets(cut), ['Q1', 'Q300', 'Q301']);
  assert.deepEqual(ids(cut.entities), ['Q1', 'Q300', 'Q301']);
  assert.equal(cut.truncated, true);
  assert.equal(cut.limit, 3);
  assert.match(endpoint.requests.at(-1)?.query ?? '', /LIMIT 4\s*$/);

  assert.deepEqual(await graph.getEdges([], relation('P17', 'country')), { edges: [], entities: [], truncated: false });
});

// ── linkEntity ────────────────────────────────────────────────────────────────────────────────────────────

test('linkEntity follows explicit links first, then the exact label', async (t) => {
  const { graph } = await setup(t, { identifierProperties: { viaf: 'P214' } });
  const viafRecord: KgEntity = { id: '24614388', label: 'Ellison, Mara, 1911-', description: '', graph: 'viaf' };
  assert.equal((await graph.linkEntity(viafRecord))?.id, 'Q200');
  const indexWithViaf: KgEntity = { id: 'E5', label: 'M. E.', description: '', graph: 'index', sameAs: { viaf: '24614388' } };
  assert.equal((await graph.linkEntity(indexWithViaf))?.id, 'Q200');
  // An explicit Wikidata id wins over the label.
  const explicit: KgEntity = { id: 'E7', label: 'Carrowgate', description: '', graph: 'index', sameAs: { wikidata: 'Q201' } };
  assert.deepEqual(await graph.linkEntity(explicit), { id: 'Q201', label: 'Thomas Ellison', description: 'British shipwright', graph: 'wikidata' });
  assert.equal((await graph.linkEntity({ id: 'E3', label: 'Carrowgate', description: 'a city', graph: 'index' }))?.id, 'Q300');
  assert.equal((await graph.linkEntity({ id: 'E4', label: 'Atlantis', description: '', graph: 'index' })), undefined);
  // A broken explicit link falls through to the label.
  assert.equal((await graph.linkEntity({ id: 'E8', label: 'Lowmere', description: '', graph: 'index', sameAs: { wikidata: 'Q9999' } }))?.id, 'Q302');
});

// ── HTTP: protocol, retries, errors ───────────────────────────────────────────────────────────────────────

test('queries are POSTed as forms with the SPARQL JSON Accept header and the User-Agent', async (t) => {
  const { graph, endpoint } = await setup(t);
  await graph.getEntities(['Q5']);
  const [request] = endpoint.requests;
  assert.equal(request?.method, 'POST');
  assert.equal(request?.contentType, 'application/x-www-form-urlencoded');
  assert.equal(request?.accept, 'application/sparql-results+json');
  assert.equal(request?.userAgent, 'kgrag (https://github.com/kgrag) tree-of-traversals');
  const named = createSparqlKnowledgeGraph({ endpoint: endpoint.url, userAgent: 'my-bot/1.0 (me@example.org)' });
  await named.getEntities(['Q5']);
  assert.equal(endpoint.requests.at(-1)?.userAgent, 'my-bot/1.0 (me@example.org)');
});

test('the queries have the reference shapes: wikibase:directClaim, p:/ps:/wdt: and psv: time precision', async (t) => {
  const { graph, endpoint } = await setup(t);
  await graph.getRelations(['Q200']);
  const relationQueries = endpoint.requests.map((request) => request.query);
  const forward = relationQueries.find((query) => query.includes('VALUES ?subject')) ?? '';
  const backward = relationQueries.find((query) => query.includes('VALUES ?object')) ?? '';
  assert.match(forward, /VALUES \?subject \{ wd:Q200 \}\s+\?subject \?predicate \?object \.\s+\?property wikibase:directClaim \?predicate \./);
  assert.match(forward, /ORDER BY xsd:integer\(SUBSTR\(STR\(\?property\), 33\)\)/);
  assert.match(backward, /VALUES \?object \{ wd:Q200 \}\s+\?subject \?predicate \?object \.\s+\?property wikibase:directClaim \?predicate \./);
  assert.match(backward, /LIMIT 51/);

  await graph.getEdges(['Q100'], relation('P577', 'publication date'));
  const outgoing = endpoint.requests.at(-1)?.query ?? '';
  assert.match(outgoing, /\?source p:P577 \?statement \.\s+\?statement ps:P577 \?object \.\s+\?source wdt:P577 \?object \./);
  assert.match(outgoing, /\?statement psv:P577 \?fullValue \. \?fullValue wikibase:timePrecision \?precision/);
  assert.match(outgoing, /FILTER\(LANG\(\?label\) = "en"\)/);
  assert.match(outgoing, /LIMIT 101\s*$/);

  await graph.getEdges(['Q145'], relation('P17', 'country', 'backward'));
  const incoming = endpoint.requests.at(-1)?.query ?? '';
  assert.match(incoming, /\?statement ps:P17 \?source \.\s+\?object p:P17 \?statement \.\s+\?object wdt:P17 \?source \./);

  await graph.searchEntities('Kester');
  const search = endpoint.requests.at(-1)?.query ?? '';
  assert.match(search, /\?item rdfs:label "Kester"@en/);
  assert.match(search, /\?item skos:altLabel "kester"@en/);
  for (const request of endpoint.requests) assert.doesNotMatch(request.query, /SERVICE/);
});

test('503 answers are retried with exponential backoff until one succeeds', async (t) => {
  const { graph, endpoint, sleeps } = await setup(t, {}, [{ status: 503, count: 2 }]);
  assert.deepEqual(ids(await graph.getEntities(['Q5'])), ['Q5']);
  assert.deepEqual(endpoint.requests.map((request) => request.status), [503, 503, 200]);
  assert.deepEqual(sleeps, [10, 20]);
});

test('retry waits are drawn below the backoff ceiling (full jitter), so parallel clients spread out', async (t) => {
  const { graph, sleeps } = await setup(t, { rng: () => 0.5 }, [{ status: 503, count: 2 }]);
  await graph.getEntities(['Q5']);
  assert.deepEqual(sleeps, [5, 10]);
});

test('Retry-After is honoured, up to maxRetryDelayMs', async (t) => {
  const { graph, endpoint, sleeps } = await setup(t, { maxRetryDelayMs: 1500 }, [{ status: 429, retryAfterSeconds: 1 }]);
  await graph.getEntities(['Q5']);
  endpoint.failNext(1, 503, { retryAfterSeconds: 120 });
  await graph.getEntities(['Q5']);
  assert.deepEqual(sleeps, [1000, 1500]);
});

test('exhausted retries give one clear error naming the endpoint and the last failure', async (t) => {
  const { graph, endpoint, sleeps } = await setup(t, { maxRetries: 2 }, [{ status: 500, count: 5, body: 'java.util.concurrent.TimeoutException\n\tat com.bigdata...' }]);
  await assert.rejects(graph.getEntities(['Q5']), (error: unknown) => {
    assert.ok(KgragError.isInstance(error));
    assert.equal(error.code, 'KG_ENDPOINT_ERROR');
    assert.equal(error.category, 'provider');
    assert.ok(error.message.includes(endpoint.url), error.message);
    assert.match(error.message, /failed 3 times; last: HTTP 500: java\.util\.concurrent\.TimeoutException/);
    assert.ok(error.hint);
    assert.equal(error.details?.attempts, 3);
    return true;
  });
  assert.equal(endpoint.requests.length, 3);
  assert.deepEqual(sleeps, [10, 20]);
});

test('HTTP 400 is not retried: it is a bug, reported with the server message', async (t) => {
  const { graph, endpoint, sleeps } = await setup(t, {}, [{ status: 400, body: 'Parse error at 3:7\nexpected "}"\nnear "DROP"\nfourth line' }]);
  await assert.rejects(graph.getEntities(['Q5']), (error: unknown) => {
    assert.ok(KgragError.isInstance(error));
    assert.equal(error.code, 'KG_QUERY_REJECTED');
    assert.ok(error.message.includes(endpoint.url));
    assert.match(error.message, /HTTP 400\): Parse error at 3:7 \| expected "}" \| near "DROP"$/);
    assert.match(String(error.details?.query), /VALUES \?item/);
    return true;
  });
  assert.equal(endpoint.requests.length, 1);
  assert.deepEqual(sleeps, []);
});

test('other client errors are not retried either', async (t) => {
  const { graph, endpoint } = await setup(t, {}, [{ status: 403, body: 'Forbidden: please set a User-Agent' }]);
  await assert.rejects(graph.getEntities(['Q5']), (error: unknown) => KgragError.isInstance(error) && error.code === 'KG_ENDPOINT_ERROR' && /User-Agent/.test(error.hint ?? ''));
  assert.equal(endpoint.requests.length, 1);
});

test('the endpoint refuses SPARQL Update, so injection tests are meaningful', async (t) => {
  const { endpoint } = await setup(t);
  const size = endpoint.store.size;
  const response = await fetch(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ update: 'DROP ALL' }).toString() });
  assert.equal(response.status, 400);
  const asQuery = await fetch(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: 'DROP ALL' });
  assert.equal(asQuery.status, 400);
  const viaGet = await fetch(`${endpoint.url}?query=${encodeURIComponent('ASK { ?s ?p ?o }')}`);
  assert.deepEqual(await viaGet.json(), { head: {}, boolean: true });
  assert.equal(endpoint.store.size, size);
  assert.deepEqual(endpoint.requests.map((request) => request.status), [400, 400, 200]);
});

test('network errors and timeouts are retried, then reported; a caller abort is not retried', async (t) => {
  const { endpoint } = await setup(t);
  const url = endpoint.url;
  await endpoint.close();
  const sleeps: number[] = [];
  const offline = createSparqlKnowledgeGraph({ endpoint: url, maxRetries: 1, sleep: async (ms) => void sleeps.push(ms), retryBaseDelayMs: 5, rng: () => 1 });
  await assert.rejects(offline.getEntities(['Q5']), (error: unknown) => KgragError.isInstance(error) && error.code === 'KG_ENDPOINT_ERROR' && /failed 2 times; last: network error/.test(error.message));
  assert.deepEqual(sleeps, [5]);

  const hanging: typeof fetch = (_input, init) =>
    new Promise((_resolve, reject) => {
      const signal = init?.signal;
      if (signal?.aborted) reject(signal.reason);
      else signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  const slow = createSparqlKnowledgeGraph({ endpoint: url, maxRetries: 1, timeoutMs: 20, fetch: hanging, sleep: async () => {} });
  await assert.rejects(slow.getEntities(['Q5']), (error: unknown) => KgragError.isInstance(error) && /no answer within 20 ms/.test(error.message));

  const controller = new AbortController();
  const reason = new Error('user stopped');
  let calls = 0;
  const aborting = createSparqlKnowledgeGraph({
    endpoint: url,
    fetch: (input, init) => {
      calls += 1;
      controller.abort(reason);
      return hanging(input, init);
    },
    sleep: async () => {},
  });
  await assert.rejects(aborting.getEntities(['Q5'], { signal: controller.signal }), (error: unknown) => error === reason);
  assert.equal(calls, 1);
});

test('an answer that is not SPARQL JSON is a clear endpoint error', async () => {
  const graph = createSparqlKnowledgeGraph({
    endpoint: 'http://wikidata.invalid/sparql',
    fetch: async () => new Response('<html><body>Welcome</body></html>', { status: 200, headers: { 'content-type': 'text/html' } }),
  });
  await assert.rejects(graph.getEntities(['Q5']), (error: unknown) => KgragError.isInstance(error) && error.code === 'KG_ENDPOINT_ERROR' && /text\/html instead of SPARQL JSON/.test(error.message));
});

// ── Validation ────────────────────────────────────────────────────────────────────────────────────────────

test('ids that are not Q/P/L numbers are rejected before any request', async (t) => {
  const { graph, endpoint } = await setup(t);
  const invalid = hasCode('KG_INVALID_ID');
  await assert.rejects(graph.getEntities(['Q1 } ; DROP ALL ; #']), invalid);
  await assert.rejects(graph.getEntities(['wd:Q1']), invalid);
  await assert.rejects(graph.getRelations(['Q1', 'q2']), invalid);
  await assert.rejects(graph.getEdges(['Q1>'], relation('P31', 'instance of')), invalid);
  await assert.rejects(graph.getEdges(['Q1'], relation('~P31', 'instance of')), invalid);
  await assert.rejects(graph.getEdges(['Q1'], relation('Q5', 'human')), invalid);
  await assert.rejects(graph.getEdges(['Q1'], relation('P31 ?x', 'instance of')), invalid);
  await assert.rejects(graph.getEdges(['Q1'], { ...relation('P31', 'instance of'), direction: 'sideways' as never }), invalid);
  await assert.rejects(graph.linkEntity({ id: 'E1', label: 'Kester', description: '', graph: 'index', sameAs: { wikidata: 'Q1"' } }), invalid);
  assert.equal(endpoint.requests.length, 0);
});

test('unusable options are configuration errors', () => {
  assert.throws(() => createSparqlKnowledgeGraph({ endpoint: 'query.wikidata.org/sparql' }), hasCode('KG_INVALID_OPTIONS'));
  assert.throws(() => createSparqlKnowledgeGraph({ endpoint: 'ftp://example.org/sparql' }), hasCode('KG_INVALID_OPTIONS'));
  assert.throws(() => createSparqlKnowledgeGraph({ endpoint: 'http://x.invalid/sparql', edgeLimit: 0 }), hasCode('KG_INVALID_OPTIONS'));
  assert.throws(() => createSparqlKnowledgeGraph({ endpoint: 'http://x.invalid/sparql', identifierProperties: { viaf: 'wdt:P214' } }), hasCode('KG_INVALID_OPTIONS'));
  assert.throws(() => createSparqlKnowledgeGraph({ endpoint: 'http://x.invalid/sparql', language: 'en"} DROP ALL' }), hasCode('KG_INVALID_LANGUAGE'));
});
