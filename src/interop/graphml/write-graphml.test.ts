import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { exportTestIndex, hostileText } from '../../../test/helpers/export-test-index.js';
import { KgragError } from '../../core/errors.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import { writeGraphml } from './write-graphml.js';

interface ParsedElement {
  '@_id': string;
  '@_source'?: string;
  '@_target'?: string;
  data?: Array<{ '#text'?: string; '@_key': string }>;
}

interface ParsedKey {
  '@_id': string;
  '@_for': string;
  '@_attr.name': string;
  '@_attr.type': string;
}

/** The file read back by fast-xml-parser, a parser that shares no code with the writer; character references decoded. */
function readGraphml(file: string): { keys: ParsedKey[]; nodes: ParsedElement[]; edges: ParsedElement[]; edgedefault: string } {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    trimValues: false,
    htmlEntities: true,
    isArray: (name) => ['key', 'node', 'edge', 'data'].includes(name),
  });
  const document = parser.parse(readFileSync(file, 'utf8'), true) as {
    graphml: { key: ParsedKey[]; graph: { '@_edgedefault': string; node?: ParsedElement[]; edge?: ParsedElement[] } };
  };
  const { key, graph } = document.graphml;
  return { keys: key, nodes: graph.node ?? [], edges: graph.edge ?? [], edgedefault: graph['@_edgedefault'] };
}

/** A node's or edge's attributes by key id, as text. */
function dataOf(element: ParsedElement): Map<string, string> {
  return new Map((element.data ?? []).map((data) => [data['@_key'], data['#text'] ?? '']));
}

/** What XML 1.0 can carry of a text: each character it forbids becomes U+FFFD. */
function xmlSafe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/gu, '\uFFFD');
}

const temporary = (): string => mkdtempSync(join(tmpdir(), 'kgrag-graphml-'));

test('writeGraphml writes one node per entity and one undirected edge per relation, with the stored attributes', async () => {
  const store = await exportTestIndex();
  const file = join(temporary(), 'graph.graphml');
  const summary = await writeGraphml(store, file);
  const entities = await store.table('entities').all();
  const relations = await store.table('relations').all();
  const { keys, nodes, edges, edgedefault } = readGraphml(file);

  assert.equal(edgedefault, 'undirected');
  assert.deepEqual({ nodes: nodes.length, edges: edges.length }, { nodes: entities.length, edges: relations.length });
  assert.deepEqual(summary, { file, nodes: entities.length, edges: relations.length, levels: 3 });

  const typeOf = new Map(keys.map((key) => [`${key['@_for']}:${key['@_attr.name']}`, key['@_attr.type']]));
  for (const [name, type] of Object.entries({ label: 'string', type: 'string', description: 'string', degree: 'int', frequency: 'int', community_L0: 'int', community_L2_title: 'string' })) {
    assert.equal(typeOf.get(`node:${name}`), type, name);
  }
  assert.equal(typeOf.get('edge:weight'), 'double');
  assert.equal(typeOf.get('edge:description'), 'string');
  assert.equal(new Set(keys.map((key) => key['@_id'])).size, keys.length, 'key ids are unique over nodes and edges');

  const nodeById = new Map(nodes.map((node) => [node['@_id'], dataOf(node)]));
  for (const entity of entities) {
    const data = nodeById.get(entity.id);
    assert.ok(data, entity.id);
    assert.equal(data.get('label'), xmlSafe(entity.title));
    assert.equal(data.get('type'), entity.type);
    assert.equal(data.get('description') ?? '', xmlSafe(entity.description));
    assert.equal(Number(data.get('degree')), entity.degree);
    assert.equal(Number(data.get('frequency')), entity.frequency);
    assert.equal(Number(data.get('hid')), entity.hid);
  }
  assert.equal(nodeById.get(entities[0]?.id ?? '')?.get('aliases'), 'Old; name; A "quoted", alias');

  const edgeById = new Map(edges.map((edge) => [edge['@_id'], edge]));
  for (const relation of relations) {
    const edge = edgeById.get(relation.id);
    assert.ok(edge, relation.id);
    assert.deepEqual([edge['@_source'], edge['@_target']], [relation.source, relation.target]);
    const data = dataOf(edge);
    assert.equal(Number(data.get('weight')), relation.weight);
    assert.equal(data.get('edge_description') ?? '', xmlSafe(relation.description));
  }
});

test('writeGraphml gives each entity the number and title of its community at every level', async () => {
  const store = await exportTestIndex();
  const file = join(temporary(), 'graph.graphml');
  await writeGraphml(store, file);
  const communities = await store.table('communities').all();
  const reports = new Map((await store.table('reports').all()).map((report) => [report.communityId, report.title]));
  const nodeById = new Map(readGraphml(file).nodes.map((node) => [node['@_id'], dataOf(node)]));

  assert.deepEqual([...new Set(communities.map((community) => community.level))].sort(), [0, 1, 2]);
  let marked = 0;
  for (const community of communities) {
    for (const entityId of community.entityIds) {
      const data = nodeById.get(entityId);
      assert.equal(data?.get(`community_L${community.level}`), String(community.hid));
      assert.equal(data?.get(`community_L${community.level}_title`), reports.get(community.id) ?? community.title);
      marked++;
    }
  }
  const written = [...nodeById.values()].reduce((sum, data) => sum + [...data.keys()].filter((key) => /^community_L\d+$/.test(key)).length, 0);
  assert.equal(written, marked, 'no entity has a community attribute at a level where it is in no community');
  assert.ok(written < nodeById.size * 3, 'the deepest level splits only some communities, so some entities lack it');
});

test('writeGraphml keeps a text with characters XML 1.0 forbids parseable, replacing only those characters', async () => {
  const store = await exportTestIndex();
  const file = join(temporary(), 'graph.graphml');
  await writeGraphml(store, file);
  const text = readFileSync(file, 'utf8');
  // fast-xml-parser does not check which characters XML allows (nor does a lone surrogate survive UTF-8), so the
  // file is checked for them directly; a bare carriage return would be read back as a line feed.
  assert.doesNotMatch(text, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\r\uFFFE\uFFFF]/);
  const [entity] = await store.table('entities').all();
  const node = readGraphml(file).nodes.find((each) => each['@_id'] === entity?.id);
  const description = node === undefined ? undefined : dataOf(node).get('description');
  assert.equal(description, xmlSafe(entity?.description ?? ''));
  assert.match(description ?? '', /"stop, now";\nthen\r\nleft & <came> back\uFFFD\uFFFD\uFFFD/);
  assert.ok(description?.includes('end 𝄞\ttab'), 'an astral character and a tab are kept as they are');
  assert.ok(hostileText.includes('\uFFFE'), 'the planted text holds the forbidden characters');
});

test('writeGraphml writes the same bytes for the same index, and an empty index as a graph without nodes', async () => {
  const store = await exportTestIndex();
  const directory = temporary();
  await writeGraphml(store, join(directory, 'a.graphml'));
  await writeGraphml(store, join(directory, 'b.graphml'));
  assert.ok(readFileSync(join(directory, 'a.graphml')).equals(readFileSync(join(directory, 'b.graphml'))));

  const empty = openSqliteStore(':memory:');
  try {
    const summary = await writeGraphml(empty, join(directory, 'empty.graphml'));
    assert.deepEqual({ nodes: summary.nodes, edges: summary.edges, levels: summary.levels }, { nodes: 0, edges: 0, levels: 0 });
    assert.deepEqual(readGraphml(join(directory, 'empty.graphml')).nodes, []);
  } finally {
    await empty.close();
  }
});

test('writeGraphml refuses a folder as its file and leaves nothing behind when aborted', async () => {
  const store = await exportTestIndex();
  const directory = temporary();
  mkdirSync(join(directory, 'taken.graphml'));
  await assert.rejects(writeGraphml(store, join(directory, 'taken.graphml')), (error) => KgragError.isInstance(error) && error.code === 'OUTPUT_PATH_INVALID');

  const controller = new AbortController();
  controller.abort();
  await assert.rejects(writeGraphml(store, join(directory, 'aborted.graphml'), { signal: controller.signal }), { name: 'AbortError' });
  assert.equal(existsSync(join(directory, 'aborted.graphml')), false);
  assert.deepEqual(readdirSync(directory).sort(), ['taken.graphml']);
});
