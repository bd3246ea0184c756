import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KgragError } from '../../../core/errors.js';
import { createInMemoryKnowledgeGraph, type InMemoryGraphData } from './in-memory-knowledge-graph.js';
import type { KgRelation, KnowledgeGraph } from './knowledge-graph.js';
import { createMultiKnowledgeGraph } from './multi-knowledge-graph.js';

/*
 * Two small graphs in the roles of the workspace index (E/R ids) and Wikidata (Q/P ids): the multi graph
 * must link them, offer both graphs' relations for linked entities, and keep the caller's ids consistent.
 */

const indexData: InMemoryGraphData = {
  name: 'index',
  entities: [
    { id: 'E1', label: 'Clara Ivesley', description: 'civil engineer' },
    { id: 'E2', label: 'Brennard Technical College', description: 'college in Carrowgate' },
    { id: 'E3', label: 'Carrowgate', description: 'county town' },
    // Linked to Wikidata only by an explicit id: the labels differ.
    { id: 'E4', label: 'Nell Wren', description: 'software entrepreneur', sameAs: { wikidata: 'Q77' } },
    { id: 'E5', label: 'Kester Weir', description: 'weir on the River Kester' },
  ],
  properties: { R1: 'studied at', R2: 'located in', R3: 'founded' },
  statements: [
    { subject: 'E1', property: 'R1', object: 'E2', attributes: ' (Clara Ivesley studied at Brennard Technical College)' },
    { subject: 'E2', property: 'R2', object: 'E3' },
  ],
};

const wikidataData: InMemoryGraphData = {
  name: 'wikidata',
  entities: [
    { id: 'Q10', label: 'Brennard Technical College', description: 'technical college', aliases: ['Brennard College'] },
    { id: 'Q20', label: 'Carrowgate', description: 'market town' },
    { id: 'Q30', label: 'Quaymark Software', description: 'software company' },
    { id: 'Q77', label: 'Eleanor Wren', description: 'British entrepreneur' },
    { id: 'Q40', label: 'River Kester', description: 'river' },
  ],
  properties: { P571: 'inception', P131: 'located in the administrative territorial entity', P112: 'founded by' },
  statements: [
    { subject: 'Q10', property: 'P571', value: '1889' },
    { subject: 'Q10', property: 'P131', object: 'Q20' },
    { subject: 'Q30', property: 'P112', object: 'Q77' },
  ],
};

/** A third graph whose ids collide with Wikidata's: `Q30` and `P571` mean other things here. */
const musicData: InMemoryGraphData = {
  name: 'musicbrainz',
  entities: [
    { id: 'Q30', label: 'Quaymark Sessions', description: 'album' },
    { id: 'Q31', label: 'Kester Shanty', description: 'song' },
  ],
  properties: { P571: 'recorded at' },
  statements: [{ subject: 'Q30', property: 'P571', object: 'Q31' }],
};

function graphs(overrides: { index?: Partial<InMemoryGraphData>; wikidata?: Partial<InMemoryGraphData> } = {}) {
  const index = createInMemoryKnowledgeGraph({ ...indexData, ...overrides.index });
  const wikidata = createInMemoryKnowledgeGraph({ ...wikidataData, ...overrides.wikidata });
  return { index, wikidata, multi: createMultiKnowledgeGraph([index, wikidata]) };
}

const relationIds = (relations: readonly KgRelation[]): string[] => relations.map((relation) => `${relation.graph}:${relation.direction === 'backward' ? '~' : ''}${relation.id}`);

describe('createMultiKnowledgeGraph', () => {
  it('returns a thing found in both graphs once, with the first graph\'s id and the other in sameAs', async () => {
    const { multi } = graphs();
    assert.equal(multi.name, 'multi');
    const found = await multi.searchEntities('Brennard Technical College');
    assert.deepEqual(found, [
      { id: 'E2', label: 'Brennard Technical College', description: 'college in Carrowgate', graph: 'index', sameAs: { wikidata: 'Q10' } },
    ]);
  });

  it('links by an explicit id in sameAs before labels, and by label otherwise', async () => {
    const { multi, wikidata } = graphs();
    const [nell] = await multi.searchEntities('Nell Wren');
    assert.deepEqual(nell?.sameAs, { wikidata: 'Q77' });
    const [carrowgate] = await multi.searchEntities('Carrowgate');
    assert.deepEqual(carrowgate, { id: 'E3', label: 'Carrowgate', description: 'county town', graph: 'index', sameAs: { wikidata: 'Q20' } });
    // Every newly seen entity was offered to the other graph.
    assert.ok(wikidata.calls.some((call) => call.operation === 'linkEntity' && call.argument === 'E4'));
  });

  it('keeps entities of one graph alone when the other has no counterpart', async () => {
    const { multi } = graphs();
    const found = await multi.searchEntities('Quaymark Software');
    assert.deepEqual(found, [{ id: 'Q30', label: 'Quaymark Software', description: 'software company', graph: 'wikidata' }]);
  });

  it('offers the relations of the selected entities and of their linked counterparts, each with its graph', async () => {
    const { multi } = graphs();
    await multi.searchEntities('Brennard Technical College');
    const list = await multi.getRelations(['E2']);
    assert.deepEqual(relationIds(list.relations), ['index:R2', 'index:~R1', 'wikidata:P131', 'wikidata:P571']);
    assert.equal(list.truncated, false);
    assert.equal(list.relations.find((relation) => relation.id === 'P571')?.label, 'inception');
  });

  it('follows an answer path that needs one edge from each graph', async () => {
    const { multi } = graphs();
    const [clara] = await multi.searchEntities('Clara Ivesley');
    assert.equal(clara?.id, 'E1');
    const studied = (await multi.getRelations(['E1'])).relations.find((relation) => relation.label === 'studied at') as KgRelation;
    const college = await multi.getEdges(['E1'], studied);
    assert.deepEqual(college.edges, [
      { source: 'E1', relation: studied, target: 'E2', attributes: ' (Clara Ivesley studied at Brennard Technical College)' },
    ]);
    assert.deepEqual(college.entities, [
      { id: 'E2', label: 'Brennard Technical College', description: 'college in Carrowgate', graph: 'index', sameAs: { wikidata: 'Q10' } },
    ]);
    const inception = (await multi.getRelations(['E2'])).relations.find((relation) => relation.label === 'inception') as KgRelation;
    assert.equal(inception.graph, 'wikidata');
    const founded = await multi.getEdges(['E2'], inception);
    assert.deepEqual(founded.edges, [{ source: 'E2', relation: inception, value: '1889' }], 'the Wikidata edge starts at the index id the caller selected');
    assert.deepEqual(founded.entities, []);
  });

  it('lands edges of one graph on entities the caller already holds from the other', async () => {
    const { multi } = graphs();
    await multi.searchEntities('Carrowgate');
    await multi.searchEntities('Brennard Technical College');
    const located = (await multi.getRelations(['E2'])).relations.find((relation) => relation.id === 'P131') as KgRelation;
    const edges = await multi.getEdges(['E2'], located);
    assert.deepEqual(edges.edges.map((edge) => [edge.source, edge.target]), [['E2', 'E3']]);
    assert.deepEqual(edges.entities.map((entity) => [entity.id, entity.graph, entity.sameAs]), [['E3', 'index', { wikidata: 'Q20' }]]);
  });

  it('links entities an edge reaches for the first time into the other graphs', async () => {
    const { multi } = graphs();
    await multi.searchEntities('Brennard Technical College');
    const located = (await multi.getRelations(['E2'])).relations.find((relation) => relation.id === 'P131') as KgRelation;
    const edges = await multi.getEdges(['E2'], located);
    assert.deepEqual(edges.entities, [{ id: 'Q20', label: 'Carrowgate', description: 'market town', graph: 'wikidata', sameAs: { index: 'E3' } }]);
    // The new entity offers the index's relations too (backward `located in` from the college).
    assert.deepEqual(relationIds((await multi.getRelations(['Q20'])).relations), ['index:~R2', 'wikidata:~P131']);
    assert.deepEqual(await multi.getEntities(['Q20', 'E2', 'nope']).then((list) => list.map((entity) => entity.id)), ['Q20', 'E2']);
  });

  it('namespaces entity and relation ids that two graphs both use, and dispatches them back', async () => {
    const index = createInMemoryKnowledgeGraph(indexData);
    const wikidata = createInMemoryKnowledgeGraph(wikidataData);
    const music = createInMemoryKnowledgeGraph(musicData);
    const multi = createMultiKnowledgeGraph([index, wikidata, music]);
    const [company] = await multi.searchEntities('Quaymark Software');
    const [album] = await multi.searchEntities('Quaymark Sessions');
    assert.equal(company?.id, 'Q30');
    assert.deepEqual(album, { id: 'musicbrainz:Q30', label: 'Quaymark Sessions', description: 'album', graph: 'musicbrainz' });
    assert.deepEqual((await multi.getEntities(['musicbrainz:Q30', 'Q30'])).map((entity) => entity.label), ['Quaymark Sessions', 'Quaymark Software']);

    const companyRelations = await multi.getRelations(['Q30']);
    assert.deepEqual(relationIds(companyRelations.relations), ['wikidata:P112']);
    await multi.searchEntities('Brennard Technical College');
    const inception = (await multi.getRelations(['E2'])).relations.find((relation) => relation.label === 'inception') as KgRelation;
    assert.equal(inception.id, 'P571');
    const recorded = (await multi.getRelations(['musicbrainz:Q30'])).relations;
    assert.deepEqual(recorded.map((relation) => [relation.id, relation.label, relation.graph]), [['musicbrainz:P571', 'recorded at', 'musicbrainz']]);
    const recordedAt = recorded[0] as KgRelation;
    const edges = await multi.getEdges(['musicbrainz:Q30'], recordedAt);
    assert.deepEqual(edges.edges, [{ source: 'musicbrainz:Q30', relation: recordedAt, target: 'Q31' }]);
    assert.deepEqual(music.calls.find((call) => call.operation === 'getEdges'), { operation: 'getEdges', argument: { entities: ['Q30'], relation: { id: 'P571', label: 'recorded at', direction: 'forward', graph: 'musicbrainz' } } });
    // The plain ids still mean what they meant first.
    assert.deepEqual((await multi.getEdges(['E2'], inception)).edges.map((edge) => edge.value), ['1889']);
  });

  it('is deterministic: the same calls give the same ids and order, interleaving the graphs by rank', async () => {
    const run = async (): Promise<unknown> => {
      const { multi } = graphs();
      const kester = await multi.searchEntities('Kester');
      const brennard = await multi.searchEntities('Brennard');
      const relations = await multi.getRelations(kester.map((entity) => entity.id).concat(brennard.map((entity) => entity.id)));
      return { kester, brennard, relations };
    };
    const first = (await run()) as { kester: Array<{ id: string }> };
    assert.deepEqual(await run(), first);
    // Rank 1 of the index, rank 1 of Wikidata, …: each graph's best candidate comes first.
    assert.deepEqual(first.kester.map((entity) => entity.id), ['E5', 'Q40']);
  });

  it('reports truncation when any graph truncated', async () => {
    const { multi } = graphs({ wikidata: { limit: 1 } });
    await multi.searchEntities('Brennard Technical College');
    const list = await multi.getRelations(['E2']);
    assert.equal(list.truncated, true);
    assert.equal(list.limit, 1);
    assert.deepEqual(relationIds(list.relations), ['index:R2', 'index:~R1', 'wikidata:P131']);
  });

  it('passes on the member graphs\' reasons for an incomplete list, naming each graph', async () => {
    const base = createInMemoryKnowledgeGraph(wikidataData);
    const warned: KnowledgeGraph = { ...base, getRelations: async (ids, options) => ({ ...(await base.getRelations(ids, options)), truncated: true, warnings: ['backward relations could not be fetched'] }) };
    const multi = createMultiKnowledgeGraph([createInMemoryKnowledgeGraph(indexData), warned]);
    await multi.searchEntities('Brennard Technical College');
    const list = await multi.getRelations(['E2']);
    assert.equal(list.truncated, true);
    assert.deepEqual(list.warnings, ['wikidata: backward relations could not be fetched']);
    assert.equal((await multi.getRelations(['E5'])).warnings, undefined, 'none when no graph gave any (Kester Weir is only in the index)');
  });

  it('surfaces an error of one graph with that graph\'s name and the operation', async () => {
    const { multi } = graphs({
      wikidata: {
        onCall: (operation) => {
          if (operation === 'getRelations') throw new Error('endpoint returned 503');
        },
      },
    });
    await multi.searchEntities('Brennard Technical College');
    await assert.rejects(multi.getRelations(['E2']), (error: unknown) => {
      assert.ok(KgragError.isInstance(error));
      assert.equal(error.code, 'KG_CALL_FAILED');
      assert.match(error.message, /Knowledge graph "wikidata" failed in getRelations: endpoint returned 503/);
      assert.deepEqual(error.details, { graph: 'wikidata', operation: 'getRelations' });
      return true;
    });
    const failingSearch = graphs({ index: { onCall: () => { throw new Error('store closed'); } } }).multi;
    await assert.rejects(failingSearch.searchEntities('Carrowgate'), /Knowledge graph "index" failed in searchEntities: store closed/);
  });

  it('a graph that fails while linking leaves the entity unlinked instead of failing the walk; the link is retried on selection, then reported', async () => {
    let down = true;
    const { multi, wikidata } = graphs({
      wikidata: {
        onCall: (operation) => {
          if (operation === 'linkEntity' && down) throw new Error('HTTP 429: too many requests');
        },
      },
    });
    const [clara] = await multi.searchEntities('Clara Ivesley');
    assert.equal(clara?.id, 'E1');
    const studied = (await multi.getRelations(['E1'])).relations.find((relation) => relation.label === 'studied at') as KgRelation;
    const college = await multi.getEdges(['E1'], studied);
    assert.deepEqual(college.entities.map((entity) => [entity.id, entity.sameAs]), [['E2', undefined]], 'the index walk goes on without the Wikidata link');
    const still = await multi.getRelations(['E2']);
    assert.equal(still.truncated, true);
    assert.deepEqual(still.warnings, ['wikidata: Brennard Technical College (E2) could not be linked, so its relations there are missing (HTTP 429: too many requests)']);
    assert.deepEqual(relationIds(still.relations), ['index:R2', 'index:~R1']);
    down = false;
    const recovered = await multi.getRelations(['E2']);
    assert.deepEqual(relationIds(recovered.relations), ['index:R2', 'index:~R1', 'wikidata:P131', 'wikidata:P571']);
    assert.equal(recovered.warnings, undefined);
    assert.equal(recovered.truncated, false);
    assert.ok(wikidata.calls.filter((call) => call.operation === 'linkEntity' && call.argument === 'E2').length >= 3, 'first sight, then each selection');
  });

  it('links a foreign entity through the first graph that knows it', async () => {
    const { multi } = graphs();
    const linked = await multi.linkEntity({ id: 'X1', label: 'carrowgate', description: '', graph: 'osm' });
    assert.deepEqual(linked, { id: 'E3', label: 'Carrowgate', description: 'county town', graph: 'index', sameAs: { wikidata: 'Q20' } });
    const explicit = await multi.linkEntity({ id: 'X2', label: 'Quaymark', description: '', graph: 'osm', sameAs: { wikidata: 'Q30' } });
    assert.equal(explicit?.id, 'Q30');
    assert.equal(await multi.linkEntity({ id: 'X3', label: 'Atlantis', description: '', graph: 'osm' }), undefined);
  });

  it('resolves ids it never handed out in the graph that has them, and rejects relations of no member graph', async () => {
    const { multi } = graphs();
    assert.deepEqual((await multi.getEntities(['Q30', 'E1', 'Z9'])).map((entity) => [entity.id, entity.graph]), [
      ['Q30', 'wikidata'],
      ['E1', 'index'],
    ]);
    const stranger: KgRelation = { id: 'X1', label: 'x', direction: 'forward', graph: 'osm' };
    await assert.rejects(multi.getEdges(['E1'], stranger), (error: unknown) => KgragError.isInstance(error) && error.code === 'KG_UNKNOWN_RELATION');
  });

  it('rejects graphs with one name', () => {
    const one: KnowledgeGraph = createInMemoryKnowledgeGraph(indexData);
    assert.throws(() => createMultiKnowledgeGraph([one, createInMemoryKnowledgeGraph(indexData)]), /Two knowledge graphs are named "index"/);
    assert.throws(() => createMultiKnowledgeGraph([]), /at least one graph/);
  });
});
