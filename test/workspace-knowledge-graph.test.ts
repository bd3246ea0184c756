import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { EntityRecord } from '../src/core/types.js';
import { buildTypedRelationGraph, typedRelationGraph, nameKey } from '../src/methods/tot/typed-relation-graph.js';
import { createWorkspaceKnowledgeGraph } from '../src/methods/tot/workspace-knowledge-graph.js';
import { createInMemoryKnowledgeGraph } from '../src/methods/tot/kg/in-memory-knowledge-graph.js';
import type { KgEntity, KgRelation, KnowledgeGraph } from '../src/methods/tot/kg/knowledge-graph.js';
import { createMultiKnowledgeGraph } from '../src/methods/tot/kg/multi-knowledge-graph.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { sampleWorkspaceAt } from './helpers/test-server.js';

/*
 * The workspace index as a Tree-of-Traversals knowledge graph, over real indexes of the sample corpus: the
 * standard mode (scripted LLM, hand-written extraction fixture) and the fast mode.
 */

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-index-kg-'));
let standard: Kgrag;
let fast: Kgrag;
let entities: EntityRecord[];

before(async () => {
  const llm = createScriptedLanguageModel({ responses: [{ match: () => true, reply: (request) => sampleLlmReply(request) }] });
  standard = await createKgrag({ workspace: join(root, 'standard'), env: {}, llm });
  // The sample corpus's fast index, built once for the whole test run.
  fast = await createKgrag({ workspace: await sampleWorkspaceAt(join(root, 'fast')), env: {} });
  await standard.index([corpus], { mode: 'standard' });
  entities = await standard.store.table('entities').all();
});

after(async () => {
  await Promise.all([standard?.close(), fast?.close()]);
  rmSync(root, { recursive: true, force: true });
});

/** The `E{hid}` id of the standard index's entity titled `title`. */
function idOf(title: string): string {
  const entity = entities.find((row) => row.title === title);
  assert.ok(entity, `${title} is an entity of the standard index`);
  return `E${entity.hid as number}`;
}

async function relationsOf(kg: KnowledgeGraph, id: string): Promise<KgRelation[]> {
  return (await kg.getRelations([id])).relations;
}

describe('index knowledge graph (standard-mode index)', () => {
  it('finds an entity by its title, case-insensitively and by alias, with E{hid} ids and short descriptions', async () => {
    const kg = createWorkspaceKnowledgeGraph(standard.store);
    assert.equal(kg.name, 'index');
    const clara = idOf('Clara Ivesley');
    const found = await kg.searchEntities('Clara Ivesley');
    assert.deepEqual(found[0] && { id: found[0].id, label: found[0].label, graph: found[0].graph }, { id: clara, label: 'Clara Ivesley', graph: 'index' });
    assert.ok(found.length > 1 && found.length <= 10, 'full-text matches follow the exact one, up to the default limit');
    assert.ok(found.every((entity) => /^E\d+$/.test(entity.id) && entity.description.length <= 200));
    assert.ok((found[0]?.description.length ?? 0) > 50);
    assert.equal((await kg.searchEntities('  clara   IVESLEY ', { limit: 1 }))[0]?.id, clara);
    assert.equal((await kg.searchEntities('C. Iversley', { limit: 1 }))[0]?.id, clara, 'an alias merged by entity resolution');
    assert.equal((await kg.searchEntities('Brennard', { limit: 1 }))[0]?.label, 'Brennard Technical College', 'a partial name');
    assert.deepEqual(await kg.searchEntities('zzyzx quux'), []);
  });

  it('offers relation types whose edges reach the entities of the relation table, with the evidence as attributes', async () => {
    const kg = createWorkspaceKnowledgeGraph(standard.store);
    const clara = idOf('Clara Ivesley');
    const college = idOf('Brennard Technical College');
    const list = await kg.getRelations([clara]);
    assert.equal(list.truncated, false);
    assert.ok(list.relations.every((relation) => /^R\d+$/.test(relation.id) && relation.graph === 'index'));
    let reached: { relation: KgRelation; attributes: string | undefined } | undefined;
    for (const relation of list.relations) {
      const edges = await kg.getEdges([clara], relation);
      assert.ok(edges.edges.every((edge) => edge.source === clara && edge.relation.id === relation.id));
      assert.deepEqual(
        new Set(edges.entities.map((entity) => entity.id)),
        new Set(edges.edges.map((edge) => edge.target)),
        'every edge target is described',
      );
      const edge = edges.edges.find((item) => item.target === college);
      if (edge) reached = { relation, attributes: edge.attributes };
    }
    assert.ok(reached, 'some relation type of Clara Ivesley reaches Brennard Technical College');
    assert.match(reached.attributes ?? '', /^ \(Clara Ivesley studied civil engineering at the Brennard Technical College.*\)$/);
  });

  it('shows directed types backward from their targets, and the generic type only forward', async () => {
    const kg = createWorkspaceKnowledgeGraph(standard.store);
    const clara = idOf('Clara Ivesley');
    const directed = (await relationsOf(kg, clara)).find((relation) => relation.direction === 'forward' && relation.label !== 'related to');
    assert.ok(directed, 'Clara Ivesley has a typed (OpenIE predicate) relation');
    const target = (await kg.getEdges([clara], directed)).edges[0]?.target as string;
    const backward = (await relationsOf(kg, target)).find((relation) => relation.id === directed.id && relation.direction === 'backward');
    assert.ok(backward, `${target} offers ~${directed.id}`);
    const back = await kg.getEdges([target], backward);
    assert.ok(back.edges.some((edge) => edge.source === target && edge.target === clara && edge.relation.direction === 'backward'));

    const generic = (await relationsOf(kg, clara)).find((relation) => relation.label === 'related to') as KgRelation;
    const neighbour = (await kg.getEdges([clara], generic)).edges[0]?.target as string;
    const fromNeighbour = await relationsOf(kg, neighbour);
    assert.ok(fromNeighbour.some((relation) => relation.id === generic.id && relation.direction === 'forward'), 'related to is offered from both ends');
    for (const id of [clara, neighbour, target]) {
      assert.ok((await relationsOf(kg, id)).every((relation) => relation.label !== 'related to' || relation.direction === 'forward'));
    }
    const both = await kg.getEdges([neighbour], generic);
    assert.ok(both.edges.some((edge) => edge.target === clara), 'an undirected edge is walked from either end');
  });

  it('reports truncation of relations and edges at the limit', async () => {
    const clara = idOf('Clara Ivesley');
    const small = createWorkspaceKnowledgeGraph(standard.store, { limit: 1 });
    const relations = await small.getRelations([clara]);
    assert.deepEqual({ count: relations.relations.length, truncated: relations.truncated, limit: relations.limit }, { count: 1, truncated: true, limit: 1 });
    const generic = (await relationsOf(createWorkspaceKnowledgeGraph(standard.store), clara)).find((relation) => relation.label === 'related to') as KgRelation;
    const edges = await small.getEdges([clara], generic);
    assert.equal(edges.edges.length, 1);
    assert.equal(edges.entities.length, 1);
    assert.equal(edges.truncated, true);
    assert.equal(edges.limit, 1);
    const all = await createWorkspaceKnowledgeGraph(standard.store).getEdges([clara], generic);
    assert.ok(all.edges.length > 1 && !all.truncated && all.limit === undefined);
    assert.deepEqual(edges.edges[0], all.edges[0], 'the strongest edge survives truncation');
  });

  it('links another graph\'s entity by an explicit id first, then by a normalized title or alias', async () => {
    const kg = createWorkspaceKnowledgeGraph(standard.store);
    const foreign = (label: string, sameAs?: Record<string, string>): KgEntity => ({ id: 'Q1', label, description: '', graph: 'wikidata', ...(sameAs ? { sameAs } : {}) });
    assert.equal((await kg.linkEntity(foreign('brennard  technical college.')))?.id, idOf('Brennard Technical College'));
    assert.equal((await kg.linkEntity(foreign('The Brennard Technical College')))?.id, idOf('Brennard Technical College'));
    assert.equal((await kg.linkEntity(foreign('C. Iversley')))?.label, 'Clara Ivesley');
    const carrowgate = idOf('Carrowgate');
    assert.equal((await kg.linkEntity(foreign('Brennard Technical College', { index: carrowgate })))?.id, carrowgate, 'sameAs wins over the label');
    assert.equal(await kg.linkEntity(foreign('Atlantis')), undefined);
  });

  it('keeps ids stable within one index and resolves them back', async () => {
    const memos = new Map<string, Promise<unknown>>();
    let builds = 0;
    const memo = <T>(key: string, build: () => Promise<T>): Promise<T> => {
      if (!memos.has(key)) {
        builds++;
        memos.set(key, build());
      }
      return memos.get(key) as Promise<T>;
    };
    const load = () => typedRelationGraph({ memo, store: standard.store });
    const one = createWorkspaceKnowledgeGraph(standard.store, { load });
    const two = createWorkspaceKnowledgeGraph(standard.store, { name: 'workspace', descriptionLength: 40, load });
    const clara = idOf('Clara Ivesley');
    const strip = (relations: KgRelation[]): string[] => relations.map((relation) => `${relation.direction}:${relation.id}:${relation.label}`);
    assert.deepEqual(strip(await relationsOf(one, clara)), strip(await relationsOf(two, clara)));
    assert.deepEqual(
      (await one.searchEntities('Kester flood')).map((entity) => entity.id),
      (await two.searchEntities('Kester flood')).map((entity) => entity.id),
    );
    const [entity] = await two.getEntities([clara, 'E999999', 'Q42', clara.toLowerCase()]);
    assert.deepEqual(entity && { id: entity.id, label: entity.label, graph: entity.graph }, { id: clara, label: 'Clara Ivesley', graph: 'workspace' });
    assert.ok((entity?.description.length ?? 0) <= 40 && entity?.description.endsWith('…'));
    assert.equal((await two.getEntities([clara, 'E999999'])).length, 1);
    const unknown: KgRelation = { id: 'R99999', label: 'x', direction: 'forward', graph: 'index' };
    assert.deepEqual(await one.getEdges([clara], unknown), { edges: [], entities: [], truncated: false });
    assert.equal(builds, 1, 'instances sharing a memo load the typed graph once');
  });

  it('joins a second graph through the multi graph: an index edge, then a Wikidata edge of the linked item', async () => {
    const wikidata = createInMemoryKnowledgeGraph({
      name: 'wikidata',
      entities: [{ id: 'Q10', label: 'Brennard Technical College', description: 'technical college in Carrowgate' }],
      properties: { P571: 'inception' },
      statements: [{ subject: 'Q10', property: 'P571', value: '1889' }],
    });
    const multi = createMultiKnowledgeGraph([createWorkspaceKnowledgeGraph(standard.store), wikidata]);
    const clara = idOf('Clara Ivesley');
    const college = idOf('Brennard Technical College');
    assert.equal((await multi.searchEntities('Clara Ivesley', { limit: 1 }))[0]?.id, clara);
    let collegeEntity: KgEntity | undefined;
    for (const relation of (await multi.getRelations([clara])).relations) {
      collegeEntity ??= (await multi.getEdges([clara], relation)).entities.find((entity) => entity.id === college);
    }
    assert.deepEqual(collegeEntity?.sameAs, { wikidata: 'Q10' });
    const inception = (await multi.getRelations([college])).relations.find((relation) => relation.graph === 'wikidata') as KgRelation;
    assert.equal(inception.label, 'inception');
    assert.deepEqual((await multi.getEdges([college], inception)).edges, [{ source: college, relation: inception, value: '1889' }]);
  });
});

describe('index knowledge graph (typing of relations)', () => {
  const entity = (hid: number, title: string, aliases: string[] = []) => ({ id: `e${hid}`, hid, title, aliases, frequency: 1, degree: 1 });
  const relation = (source: number, target: number, keywords: string[] = []) => ({ id: `r${source}-${target}`, source: `e${source}`, target: `e${target}`, keywords, weight: 1 });
  const graph = buildTypedRelationGraph(
    [entity(1, 'Clara Ivesley'), entity(2, 'Brennard Technical College', ['Brennard College']), entity(3, 'Carrowgate'), entity(4, 'Walter Thorne')],
    [relation(1, 2), relation(2, 3, ['Located In', 'located  in', 'town of']), relation(1, 4), relation(3, 4)],
    [
      // Joins the pair in the record's order, through an alias and another spelling.
      { subject: 'clara ivesley', predicate: 'Studied at', object: 'the Brennard College' },
      // Joins the pair against the record's order (record 1 → 4, triple 4 → 1).
      { subject: 'Walter Thorne', predicate: 'partner of', object: 'Clara Ivesley' },
      // Keywords win over triples.
      { subject: 'Brennard Technical College', predicate: 'ignored', object: 'Carrowgate' },
      { subject: 'Nobody', predicate: 'knows', object: 'Clara Ivesley' },
    ],
  );
  const edges = Array.from(graph.edgeType, (type, edge) => {
    const entry = graph.types[type] as { id: string; label: string; directed: boolean };
    return `${entry.id} ${entry.label}${entry.directed ? '' : ' (undirected)'}: ${graph.entityTitles[graph.edgeFrom[edge] as number]} → ${graph.entityTitles[graph.edgeTo[edge] as number]}`;
  });

  it('types each relation by its keywords, else the predicates of triples joining its entities, else `related to`', () => {
    assert.deepEqual(edges, [
      'R4 studied at: Clara Ivesley → Brennard Technical College',
      'R1 located in: Brennard Technical College → Carrowgate',
      'R5 town of: Brennard Technical College → Carrowgate',
      'R2 partner of: Walter Thorne → Clara Ivesley',
      'R3 related to (undirected): Carrowgate → Walter Thorne',
    ]);
    assert.deepEqual(graph.types.map((type) => type.label), ['located in', 'partner of', 'related to', 'studied at', 'town of'], 'ids follow the sorted labels');
  });

  it('keeps directed edges apart by direction and undirected ones on both ends', () => {
    const clara = graph.byId.get('e1') as number;
    const thorne = graph.byId.get('e4') as number;
    assert.deepEqual(graph.outgoing.get(clara), [0]);
    assert.deepEqual(graph.incoming.get(clara), [3]);
    assert.deepEqual(graph.outgoing.get(thorne), [3, 4]);
    assert.equal(graph.incoming.get(thorne), undefined);
  });

  it('compares names by the entity-resolution key without punctuation', () => {
    assert.equal(nameKey("The St. Kester’s  Church"), nameKey("st kester's church"));
    assert.equal(nameKey('Dr. Clara Ivesley'), 'clara ivesley');
  });
});

describe('index knowledge graph (fast-mode index)', () => {
  it('finds entities and walks their relations', async () => {
    const kg = createWorkspaceKnowledgeGraph(fast.store);
    const [clara] = await kg.searchEntities('Clara Ivesley');
    assert.ok(clara);
    assert.equal(clara.label, 'Clara Ivesley');
    const relations = await relationsOf(kg, clara.id);
    assert.ok(relations.length > 0);
    assert.ok(relations.some((relation) => relation.label === 'related to'), 'co-occurrence relations without a predicate');
    let edges = 0;
    for (const relation of relations) {
      const list = await kg.getEdges([clara.id], relation);
      edges += list.edges.length;
      assert.ok(list.edges.every((edge) => edge.source === clara.id && list.entities.some((entity) => entity.id === edge.target)));
    }
    assert.ok(edges > 0);
  });
});
