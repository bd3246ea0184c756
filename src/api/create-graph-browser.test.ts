import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KgragError } from '../core/errors.js';
import type { CommunityRecord, EntityRecord, RelationRecord } from '../core/types.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { createGraphBrowser } from './create-graph-browser.js';
import { createKgrag, type Kgrag } from './create-kgrag.js';
import { sampleWorkspaceAt } from '../../test/helpers/test-server.js';


function entity(id: string, title: string, fields: Partial<EntityRecord> = {}): EntityRecord {
  return { id, title, type: 'geo', description: '', aliases: [], frequency: 1, degree: 1, chunkIds: [], ...fields };
}

function relation(source: string, target: string, weight: number): RelationRecord {
  return { id: `${source}-${target}`, source, target, description: `${source} meets ${target}`, keywords: [], weight, combinedDegree: 0, chunkIds: [] };
}

function community(id: string, level: number, parent: string | null, entityIds: string[]): CommunityRecord {
  return { id, level, parent, children: [], title: id, entityIds, relationIds: [], chunkIds: [], size: entityIds.length };
}

/** Asserts that `work` fails with a KgragError of `code` whose message names `option`. */
async function rejectsOption(work: Promise<unknown>, code: string, option: string): Promise<void> {
  await assert.rejects(work, (error: unknown) => KgragError.isInstance(error) && error.code === code && error.message.includes(option) && error.category === 'input');
}

describe('graph browser over a hand-made graph', () => {
  let store: Store;

  before(async () => {
    store = openSqliteStore(':memory:');
    await store.table('entities').upsert([
      entity('e-weir', 'Weir', { degree: 2 }),
      entity('e-weir-bridge', 'Weir Bridge', { degree: 3 }),
      entity('e-weir-lane', 'Weir Lane', { degree: 9 }),
      entity('e-kester-weir', 'Kester Weir Bridge', { degree: 5 }),
      entity('e-kesterweir', 'Kesterweir Cottage', { degree: 4, type: 'building' }),
      entity('e-sluice', 'Old Sluice', { degree: 1, description: 'The sluice below the weir, rebuilt in 1961.' }),
      entity('e-quayle', 'Robert Quayle', { type: 'person', aliases: ['Bob Quayle'], degree: 2 }),
    ]);
    // A star around the weir (weights say which neighbours are strongest), and a chain out of the bridge.
    await store.table('relations').upsert([
      relation('e-weir', 'e-weir-bridge', 9),
      relation('e-weir', 'e-weir-lane', 7),
      relation('e-kester-weir', 'e-weir', 5),
      relation('e-weir', 'e-sluice', 1),
      relation('e-weir-bridge', 'e-quayle', 8),
      relation('e-quayle', 'e-kesterweir', 3),
      relation('e-weir-bridge', 'e-weir-lane', 2),
    ]);
  });
  after(() => store.close());

  test('names match exact, then prefix, then word prefix, then anywhere, then by full text; by degree within a kind', async () => {
    const hits = await createGraphBrowser(store).searchEntities('WEIR');
    assert.deepEqual(
      hits.map((hit) => [hit.title, hit.match]),
      [
        ['Weir', 'exact'],
        ['Weir Lane', 'prefix'],
        ['Weir Bridge', 'prefix'],
        ['Kester Weir Bridge', 'word'],
        ['Kesterweir Cottage', 'contains'],
        ['Old Sluice', 'text'],
      ],
    );
    assert.deepEqual(hits[0], { id: 'e-weir', title: 'Weir', type: 'geo', degree: 2, frequency: 1, match: 'exact' });
  });

  test('an alias matches like a title and is named in the hit', async () => {
    const [hit] = await createGraphBrowser(store).searchEntities('bob');
    assert.deepEqual(hit, { id: 'e-quayle', title: 'Robert Quayle', type: 'person', degree: 2, frequency: 1, match: 'prefix', alias: 'Bob Quayle' });
    const [byTitle] = await createGraphBrowser(store).searchEntities('robert quayle');
    assert.equal(byTitle?.match, 'exact');
    assert.equal(byTitle?.alias, undefined);
  });

  test('type and limit narrow the hits', async () => {
    const browser = createGraphBrowser(store);
    assert.deepEqual(
      (await browser.searchEntities('weir', { type: 'Building' })).map((hit) => hit.title),
      ['Kesterweir Cottage'],
    );
    assert.deepEqual(
      (await browser.searchEntities('weir', { limit: 2 })).map((hit) => hit.title),
      ['Weir', 'Weir Lane'],
    );
  });

  test('a neighbourhood takes the strongest edges first per hop, keeps edges among its nodes, and says when it was cut', async () => {
    const browser = createGraphBrowser(store);
    const one = await browser.neighbours('e-weir', { limit: 3 });
    assert.deepEqual(
      one?.nodes.map((node) => [node.id, node.depth]),
      [
        ['e-weir', 0],
        ['e-weir-bridge', 1],
        ['e-weir-lane', 1],
      ],
    );
    assert.deepEqual(
      one?.edges.map((edge) => [edge.id, edge.weight]),
      [
        ['e-weir-e-weir-bridge', 9],
        ['e-weir-e-weir-lane', 7],
        ['e-weir-bridge-e-weir-lane', 2],
      ],
    );
    assert.equal(one?.edges[0]?.description, 'e-weir meets e-weir-bridge');
    assert.equal(one?.truncated, true);

    const whole = await browser.neighbours('e-weir', { depth: 3 });
    assert.deepEqual(
      whole?.nodes.map((node) => [node.id, node.depth]),
      [
        ['e-weir', 0],
        ['e-weir-bridge', 1],
        ['e-weir-lane', 1],
        ['e-kester-weir', 1],
        ['e-sluice', 1],
        ['e-quayle', 2],
        ['e-kesterweir', 3],
      ],
    );
    assert.equal(whole?.edges.length, 7);
    assert.equal(whole?.truncated, false);

    const fewEdges = await browser.neighbours('e-weir', { depth: 3, maxEdges: 2 });
    assert.deepEqual(
      fewEdges?.edges.map((edge) => edge.weight),
      [9, 8],
    );
    assert.equal(fewEdges?.truncated, true);
    assert.equal(await browser.neighbours('no-such-entity'), undefined);
  });

  test('a slice is the top entities by degree (ties by id) with the heaviest edges among them', async () => {
    const browser = createGraphBrowser(store);
    const slice = await browser.slice({ top: 3 });
    assert.deepEqual(
      slice.nodes.map((node) => node.id),
      ['e-weir-lane', 'e-kester-weir', 'e-kesterweir'],
    );
    assert.deepEqual(slice.edges, []);
    assert.equal(slice.truncated, true);
    const people = await browser.slice({ type: 'person' });
    assert.deepEqual(
      people.nodes.map((node) => node.id),
      ['e-quayle'],
    );
    assert.equal(people.truncated, false);
    const all = await browser.slice({ maxEdges: 3 });
    assert.deepEqual(
      all.edges.map((edge) => edge.weight),
      [9, 8, 7],
    );
    assert.equal(all.truncated, true);
  });

  test('graph nodes carry their community at each level, coarsest first, and none when the index has no communities', async () => {
    const browser = createGraphBrowser(store);
    assert.deepEqual(
      (await browser.slice({ top: 2 })).nodes.map((node) => node.communities),
      [[], []],
    );
    await store.table('communities').upsert([
      community('c-river', 0, null, ['e-weir', 'e-weir-bridge', 'e-weir-lane', 'e-sluice']),
      community('c-town', 0, null, ['e-quayle', 'e-kesterweir']),
      community('c-weir', 1, 'c-river', ['e-weir', 'e-sluice']),
    ]);
    try {
      const around = await browser.neighbours('e-weir', { depth: 3 });
      assert.deepEqual(
        around?.nodes.map((node) => [node.id, node.communities]),
        [
          ['e-weir', ['c-river', 'c-weir']],
          ['e-weir-bridge', ['c-river']],
          ['e-weir-lane', ['c-river']],
          ['e-kester-weir', []],
          ['e-sluice', ['c-river', 'c-weir']],
          ['e-quayle', ['c-town']],
          ['e-kesterweir', ['c-town']],
        ],
      );
      const drawn = await browser.slice({ layout: true });
      assert.deepEqual(
        drawn.nodes.map((node) => node.communities),
        (await browser.slice()).nodes.map((node) => node.communities),
      );
      assert.ok(drawn.nodes.every((node) => Number.isFinite(node.x) && Number.isFinite(node.y)), JSON.stringify(drawn.nodes));
    } finally {
      await store.table('communities').deleteWhere('id', ['c-river', 'c-town', 'c-weir']);
    }
  });

  test('options out of range are refused, not clamped, and an omitted one takes its default', async () => {
    const browser = createGraphBrowser(store);
    await rejectsOption(browser.neighbours('e-weir', { depth: 0 }), 'GRAPH_BAD_OPTION', 'depth');
    await rejectsOption(browser.neighbours('e-weir', { depth: 4 }), 'GRAPH_BAD_OPTION', 'depth');
    await rejectsOption(browser.neighbours('e-weir', { limit: 1e9 }), 'GRAPH_BAD_OPTION', 'limit');
    await rejectsOption(browser.neighbours('e-weir', { maxEdges: -1 }), 'GRAPH_BAD_OPTION', 'maxEdges');
    await rejectsOption(browser.searchEntities('weir', { limit: 1.5 }), 'GRAPH_BAD_OPTION', 'limit');
    await rejectsOption(browser.searchEntities('weir', { limit: 101 }), 'GRAPH_BAD_OPTION', 'limit');
    await rejectsOption(browser.searchEntities('  '), 'GRAPH_BAD_QUERY', 'empty');
    await rejectsOption(browser.searchEntities('w'.repeat(501)), 'GRAPH_BAD_QUERY', '500');
    await rejectsOption(browser.slice({ top: 0 }), 'GRAPH_BAD_OPTION', 'top');
    await rejectsOption(browser.slice({ maxEdges: 20001 }), 'GRAPH_BAD_OPTION', 'maxEdges');
    await rejectsOption(browser.communities({ offset: -1 }), 'GRAPH_BAD_OPTION', 'offset');
    await rejectsOption(browser.communities({ level: 0.5 }), 'GRAPH_BAD_OPTION', 'level');
    await rejectsOption(browser.entity('e-weir', { maxSources: 51 }), 'GRAPH_BAD_OPTION', 'maxSources');
    assert.deepEqual(
      (await browser.neighbours('e-weir', {}))?.nodes.map((node) => node.depth),
      [0, 1, 1, 1, 1],
      'one hop by default',
    );
  });

  test('a store that was never published is read anew on every call', async () => {
    const browser = createGraphBrowser(store);
    assert.deepEqual(await browser.searchEntities('ferry'), []);
    await store.table('entities').upsert([entity('e-ferry', 'Ferry Steps')]);
    assert.deepEqual(
      (await browser.searchEntities('ferry')).map((hit) => hit.title),
      ['Ferry Steps'],
    );
    await store.table('entities').deleteWhere('id', ['e-ferry']);
  });
});

describe('graph browser over the sample corpus index', () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-graph-browser-'));
  let kgrag: Kgrag;

  before(async () => {
    // The sample corpus's fast index, built once for the whole test run.
    kgrag = await createKgrag({ workspace: await sampleWorkspaceAt(root), config: { index: { mode: 'fast' } } });
  });
  after(async () => {
    await kgrag.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('"kester weir br" finds the Kester Weir Bridge first, and its exact title matches whatever the case', async () => {
    const [first] = await kgrag.graph.searchEntities('kester weir br');
    assert.equal(first?.title, 'Kester Weir Bridge');
    assert.equal(first?.match, 'prefix');
    const [exact] = await kgrag.graph.searchEntities('KESTER WEIR BRIDGE');
    assert.equal(exact?.match, 'exact');
  });

  test('an entity comes with its description, sources and documents, and the communities containing it with their reports', async () => {
    const [hit] = await kgrag.graph.searchEntities('Clara Ivesley');
    assert.ok(hit);
    const detail = await kgrag.graph.entity(hit.id, { maxSources: 2 });
    assert.ok(detail);
    assert.equal(detail.title, 'Clara Ivesley');
    assert.ok(detail.description.length > 0);
    assert.ok(detail.chunkIds.length > 2);
    assert.deepEqual(
      detail.sources.map((source) => source.chunkId),
      detail.chunkIds.slice(0, 2),
    );
    for (const source of detail.sources) {
      assert.match(source.text, /Ivesley/);
      assert.ok(source.documentTitle.length > 0);
    }
    assert.ok(detail.communities.length > 0);
    assert.deepEqual(
      detail.communities.map((community) => community.level),
      [...detail.communities.map((community) => community.level)].sort((a, b) => a - b),
    );
    assert.ok(detail.communities.every((community) => typeof community.reportTitle === 'string' && community.reportTitle.length > 0));
    assert.equal(await kgrag.graph.entity('no-such-entity'), undefined);
  });

  test('communities list by level with their reports, and one community and one chunk read by id', async () => {
    const all = await kgrag.graph.communities();
    assert.equal(all.total, (await kgrag.stats()).communities);
    assert.deepEqual(all.levels, [...new Set(all.communities.map((community) => community.level))].sort((a, b) => a - b));
    const levelOne = await kgrag.graph.communities({ level: 1, limit: 2, offset: 1 });
    assert.equal(levelOne.communities.length, 2);
    assert.ok(levelOne.communities.every((community) => community.level === 1 && community.report !== undefined));
    const sizes = (await kgrag.graph.communities({ level: 1 })).communities.map((community) => community.size);
    assert.deepEqual(sizes, [...sizes].sort((a, b) => b - a));
    const [first] = levelOne.communities;
    assert.ok(first);
    const community = await kgrag.graph.community(first.id);
    const { entityIds, ...view } = community ?? { entityIds: [] };
    assert.deepEqual(view, first);
    assert.equal(entityIds.length, first.size, 'one community lists its member entities');
    const members = await Promise.all(entityIds.map((id) => kgrag.graph.entity(id, { maxSources: 0 })));
    assert.ok(members.every((member) => member?.communities.some((of) => of.id === first.id)), 'each member is an entity of that community');
    assert.match(community?.report?.fullContent ?? '', /^# /);
    assert.equal(await kgrag.graph.community('no-such-community'), undefined);

    const [bridge] = await kgrag.graph.searchEntities('Kester Weir Bridge');
    const chunkId = (await kgrag.graph.entity(bridge?.id ?? ''))?.chunkIds[0] ?? '';
    const chunk = await kgrag.graph.chunk(chunkId);
    assert.ok(chunk);
    assert.equal(Object.hasOwn(chunk.document, 'text'), false);
    assert.ok(chunk.text.length > 0 && chunk.end > chunk.start);
    assert.ok(chunk.document.title.length > 0);
    assert.equal(await kgrag.graph.chunk('no-such-chunk'), undefined);
  });

  test('a laid-out slice gives every node a finite position, computed once per generation, the same from a fresh browser', async () => {
    const options = { top: 80, maxEdges: 300, layout: true };
    const drawn = await kgrag.graph.slice(options);
    assert.equal(drawn.nodes.length, 80);
    assert.ok(drawn.nodes.every((node) => Number.isFinite(node.x) && Number.isFinite(node.y)));
    assert.equal(new Set(drawn.nodes.map((node) => `${node.x},${node.y}`)).size, drawn.nodes.length);
    assert.equal(await kgrag.graph.slice(options), drawn, 'the second request is answered from the cache');
    const plain = await kgrag.graph.slice({ top: 80, maxEdges: 300 });
    assert.deepEqual(
      plain.nodes.map((node) => node.id),
      drawn.nodes.map((node) => node.id),
    );
    assert.ok(plain.nodes.every((node) => node.x === undefined && node.y === undefined));
    assert.notEqual(await kgrag.graph.slice({ ...options, maxEdges: 299 }), drawn, 'other options are another drawing');

    // Fast mode builds communities too: each node lists one per level, from the coarsest down.
    const member = drawn.nodes.find((node) => node.communities.length > 1);
    assert.ok(member, 'some entity lies in communities at two levels');
    const levels = await Promise.all(member.communities.map(async (id) => (await kgrag.graph.community(id))?.level));
    assert.deepEqual(
      levels,
      member.communities.map((_, level) => level),
    );
    const around = await kgrag.graph.neighbours(member.id);
    assert.deepEqual(around?.nodes[0]?.communities, member.communities);

    const fresh = await createKgrag({ workspace: root, config: { index: { mode: 'fast' } } });
    try {
      assert.deepEqual(await fresh.graph.slice(options), drawn, 'the same index gives the same drawing');
    } finally {
      await fresh.close();
    }
  });

  test('a newly published generation is seen by the next call', async () => {
    const titles = async (): Promise<string[]> => (await kgrag.graph.searchEntities('Zanzibar Quay')).map((hit) => hit.title);
    assert.equal((await titles()).includes('Zanzibar Quay'), false);
    const slice = await kgrag.graph.slice({ top: 2000 });
    const drawn = await kgrag.graph.slice({ top: 2000, layout: true });
    // Fast mode keeps names found in two passages or more.
    await kgrag.index([
      { title: 'Zanzibar Quay', text: 'Zanzibar Quay is a wharf that Harriet Voss built at Kestermouth in 1902 for the Kester Navigation Board.' },
      { title: 'Harriet Voss', text: 'Harriet Voss, a merchant of Kestermouth, sold Zanzibar Quay to the Kester Navigation Board in 1921.' },
    ]);
    assert.equal((await titles())[0], 'Zanzibar Quay');
    const [hit] = await kgrag.graph.searchEntities('Zanzibar Quay');
    assert.ok((await kgrag.graph.slice({ top: 2000 })).nodes.length > slice.nodes.length);
    const redrawn = await kgrag.graph.slice({ top: 2000, layout: true });
    assert.ok(redrawn.nodes.length > drawn.nodes.length, 'the drawing of the old generation is not served for the new one');
    assert.ok(redrawn.nodes.every((node) => Number.isFinite(node.x) && Number.isFinite(node.y)));
    assert.ok(((await kgrag.graph.neighbours(hit?.id ?? ''))?.nodes.length ?? 0) > 1);
  });
});
