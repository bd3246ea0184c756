import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Field, Int64, Struct, Table as ArrowTable, tableFromIPC, tableToIPC, Utf8, vectorFromArray, type Table } from 'apache-arrow';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { XMLParser } from 'fast-xml-parser';
import { readParquet, Table as WasmTable, writeParquet } from 'parquet-wasm';
import { createKgrag, type Kgrag } from '../src/index.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

/*
 * Issue 21: two real Microsoft GraphRAG indexes of the Operation Dulce novella (../shared/datasets/graphrag-output, one
 * per schema generation) imported, queried and exported. The parquet files are read here with arrow-rs (parquet-wasm),
 * independently of the importer's reader (hyparquet), so the counts the test expects come from the files themselves.
 */

const outputs = fileURLToPath(new URL('../../shared/datasets/graphrag-output/', import.meta.url));
const skip = existsSync(join(outputs, 'operation-dulce-v2', 'entities.parquet')) ? false : `the shared datasets are absent (${outputs}); set up ../shared/datasets to run this test`;

/** A parquet file read by arrow-rs: its rows as plain objects (bigints for INT64). */
function readWithArrow(path: string): Array<Record<string, unknown>> {
  const table: Table = tableFromIPC(readParquet(new Uint8Array(readFileSync(path))).intoIPCStream());
  return table.toArray().map((row) => row.toJSON() as Record<string, unknown>);
}

function arrowSchema(path: string): string[] {
  const table: Table = tableFromIPC(readParquet(new Uint8Array(readFileSync(path))).intoIPCStream());
  return table.schema.fields.map((field) => `${field.name}:${String(field.type)}`);
}

function listOf(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  return Array.from(value as Iterable<unknown>, String);
}

/** The table's rows without `hid` (insertion order), sorted, for comparing two indexes. */
async function rowsOf(kgrag: Kgrag, table: 'entities' | 'relations' | 'communities' | 'reports' | 'claims' | 'chunks'): Promise<string[]> {
  return (await kgrag.store.table(table).all())
    .map((row) => {
      const { hid: _hid, ...rest } = row as { hid?: number };
      return JSON.stringify(rest);
    })
    .sort();
}

const folders: string[] = [];
function tempFolder(name: string): string {
  const folder = mkdtempSync(join(tmpdir(), `kgrag-graphrag-${name}-`));
  folders.push(folder);
  return folder;
}
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const generations = [
  { name: 'v1', prefix: 'create_final_' },
  { name: 'v2', prefix: '' },
] as const;

for (const generation of generations) {
  describe(`a GraphRAG ${generation.name === 'v1' ? '1.x' : '2.x'} index (operation-dulce-${generation.name})`, { skip }, () => {
    const directory = join(outputs, `operation-dulce-${generation.name}`);
    const file = (table: string): string => join(directory, `${generation.prefix}${table}.parquet`);
    let kgrag: Kgrag;
    let summary: Awaited<ReturnType<Kgrag['importGraphrag']>>;

    before(async () => {
      kgrag = await createKgrag({ workspace: tempFolder(generation.name), env: {} });
      summary = await kgrag.importGraphrag(directory);
    });
    after(async () => kgrag?.close());

    test('every row of every table is accounted for', async () => {
      const rows = (table: string): number => readWithArrow(file(table)).length;
      const stats = await kgrag.stats();
      assert.equal(stats.documents, rows('documents'));
      assert.equal(stats.chunks, rows('text_units'));
      assert.equal(stats.entities, rows('entities'));
      assert.equal(stats.communities, rows('communities'));
      assert.equal(await kgrag.store.table('reports').count(), rows('community_reports'));
      assert.equal(await kgrag.store.table('claims').count(), rows('covariates'));
      // Relationships: one relation per entity pair holds the rows of both directions; a row naming an entity the
      // entities table lacks stays out of the graph. Every row is kept, by its GraphRAG id, in external_ids.
      const relationships = readWithArrow(file('relationships'));
      const accounting = summary.tables.relationships;
      assert.ok(accounting);
      assert.equal(stats.relations + summary.mergedRelationshipRows + accounting.leftOut.length, relationships.length);
      const kept = (await kgrag.store.table('externalIds').where('kind', ['relation'])).map((row) => row.externalId).sort();
      assert.deepEqual(kept, relationships.map((row) => String(row.id)).sort());
      const titles = new Set(readWithArrow(file('entities')).map((row) => String(row.title)));
      const pairs = new Set(relationships.filter((row) => titles.has(String(row.source)) && titles.has(String(row.target))).map((row) => [row.source, row.target].sort().join('\u0000')));
      assert.equal(stats.relations, pairs.size);
    });

    test("GraphRAG's own columns are read without a warning about their types", () => {
      assert.deepEqual(summary.notes.filter((note) => /column/.test(note)), []);
    });

    test('a relation keeps the descriptions and weights of both directions', async () => {
      const relationships = readWithArrow(file('relationships'));
      const byPair = new Map<string, Array<Record<string, unknown>>>();
      for (const row of relationships) {
        const key = [row.source, row.target].sort().join('\u0000');
        byPair.set(key, [...(byPair.get(key) ?? []), row]);
      }
      const both = [...byPair.values()].find((rows) => rows.length > 1 && rows[0]?.description !== rows[1]?.description);
      assert.ok(both, 'the output has an entity pair with a row in each direction');
      const [first] = both;
      const kept = (await kgrag.store.table('externalIds').where('externalId', [String(first?.id)])).find((row) => row.kind === 'relation');
      assert.ok(kept);
      const [relation] = await kgrag.store.table('relations').get([kept.id]);
      assert.ok(relation);
      for (const row of both) assert.ok(relation.description.includes(String(row.description).trim()), 'both descriptions survive');
      assert.equal(relation.weight, both.reduce((sum, row) => sum + Number(row.weight), 0));
    });

    test("a community's report comes back byte-identical", async () => {
      const reports = readWithArrow(file('community_reports'));
      const chosen = reports.find((row) => Number(row.level) > 0) ?? reports[0];
      assert.ok(chosen);
      const communityId = (await kgrag.store.table('externalIds').where('externalId', [String(chosen.id)])).find((row) => row.kind === 'report')?.id;
      assert.ok(communityId);
      const [report] = await kgrag.store.table('reports').get([communityId]);
      assert.equal(Buffer.compare(Buffer.from(report?.fullContent ?? ''), Buffer.from(String(chosen.full_content))), 0);
      assert.equal(report?.title, chosen.title);
      assert.equal(report?.rating, Number(chosen.rank));
      const browsed = await kgrag.graph.community(communityId);
      assert.equal(browsed?.report?.fullContent, chosen.full_content);
    });

    test('the community hierarchy is kept', async () => {
      const communities = readWithArrow(file('communities'));
      const records = await kgrag.store.table('communities').all();
      const idOf = new Map((await kgrag.store.table('externalIds').where('kind', ['community'])).map((row) => [Number(row.record.community), row.id]));
      // The members by GraphRAG's entity ids, each as the kgrag entity imported from that row.
      const entityIdOf = new Map((await kgrag.store.table('externalIds').where('kind', ['entity'])).map((row) => [row.externalId, row.id]));
      assert.equal(entityIdOf.size, readWithArrow(file('entities')).length);
      for (const row of communities) {
        const record = records.find((community) => community.id === idOf.get(Number(row.community)));
        assert.ok(record);
        assert.equal(record.level, Number(row.level));
        assert.equal(record.parent, Number(row.parent) < 0 ? null : idOf.get(Number(row.parent)));
        assert.deepEqual([...record.entityIds].sort(), listOf(row.entity_ids).map((id) => entityIdOf.get(id)).sort(), `the members of community ${String(row.community)}`);
      }
      const roots = records.filter((community) => community.parent === null);
      for (const record of records) for (const child of record.children) assert.equal(records.find((community) => community.id === child)?.parent, record.id);
      assert.ok(roots.length > 0);
    });

    test('local, global, ppr and kgp answer a question about the novella', async () => {
      const question = 'Who is Alex Mercer and what is his role in Operation: Dulce?';
      // GraphRAG's own description of ALEX MERCER calls him an agent of the Paranormal Military Squad; the question
      // names neither, so an answer that does was drawn from what the index says about him.
      const mercer = readWithArrow(file('entities')).find((row) => row.title === 'ALEX MERCER');
      assert.ok(mercer);
      const description = String(mercer.description);
      assert.match(description, /\bagent\b/i);
      assert.match(description, /Paranormal Military Squad/);
      const role = /\bagents?\b|Paranormal Military Squad/i;
      assert.doesNotMatch(question, role);
      // The passages GraphRAG found him in.
      const units = new Set(listOf(mercer.text_unit_ids));
      const passages = new Set(readWithArrow(file('text_units')).filter((row) => units.has(String(row.id))).map((row) => String(row.text)));
      assert.ok(passages.size > 0);
      for (const [method, contextOnly] of [
        ['local', true],
        ['local', false],
        ['global', true],
        ['global', false],
        ['ppr', false],
        ['kgp', false],
      ] as const) {
        const result = await kgrag.query(question, { method, contextOnly });
        const shown = contextOnly ? result.context.text : result.answer.text;
        assert.match(shown, role, `${method}${contextOnly ? ' --context-only' : ''} says what Alex Mercer is`);
        if (method === 'local' && contextOnly) assert.ok(shown.includes(`|ALEX MERCER|${description.slice(0, 80)}`), "local's context holds his entity row");
        if (method === 'ppr' || method === 'kgp') assert.ok(result.context.chunks.some((chunk) => passages.has(chunk.text)), `${method} retrieves a passage GraphRAG found him in`);
      }
      const global = await kgrag.query('What are the main themes of the story?', { method: 'global' });
      assert.match(global.answer.text, /\[Data: Reports \(\d+/, 'the extractive global answer cites the imported reports');
    });

    test("local's extractive answer quotes GraphRAG's own entity, relationship and report text, cited as such", async () => {
      const result = await kgrag.query('Who leads the team at Dulce base?', { method: 'local' });
      const written = result.citations.filter((citation) => citation.dataset !== 'Sources');
      assert.ok(written.length > 0, result.answer.text);
      for (const citation of written) {
        assert.ok(citation.quote && result.answer.text.includes(`${citation.quote} [Data: ${citation.dataset} (${citation.hid})]`));
        const shown = result.context.text.includes(citation.quote as string);
        assert.ok(shown, `the quoted ${citation.dataset} text is in the context the method built: ${citation.quote}`);
      }
    });
  });
}

describe('an imported index', { skip }, () => {
  const directory = join(outputs, 'operation-dulce-v2');
  let kgrag: Kgrag;
  let exported: string;
  before(async () => {
    kgrag = await createKgrag({ workspace: tempFolder('source'), env: {} });
    await kgrag.importGraphrag(directory);
    exported = join(tempFolder('export'), 'output');
    await kgrag.export({ format: 'graphrag', directory: exported });
  });
  after(async () => kgrag?.close());

  test("exports GraphRAG's relationship rows back, both directions and all", () => {
    const original = readWithArrow(join(directory, 'relationships.parquet'));
    const written = readWithArrow(join(exported, 'relationships.parquet'));
    const key = (row: Record<string, unknown>): string => JSON.stringify([row.id, String(row.human_readable_id), row.source, row.target, row.description, Number(row.weight), listOf(row.text_unit_ids)]);
    assert.deepEqual(written.map(key).sort(), original.map(key).sort());
  });

  test("writes GraphRAG 2.x's columns and types, readable by arrow", () => {
    const columns = (file: string): string[] => arrowSchema(join(exported, file)).filter((column) => !/^(kgrag_id|aliases|kgrag_generated_by):/.test(column));
    for (const file of readdirSync(directory)) {
      const expected = arrowSchema(join(directory, file)).filter((column) => !column.startsWith('metadata:'));
      assert.deepEqual(columns(file).filter((column) => !column.startsWith('metadata:')), expected, file);
    }
  });

  test('imports its own export into the same entities, relations, communities, reports and claims', async () => {
    const again = await createKgrag({ workspace: tempFolder('again'), env: {} });
    try {
      await again.importGraphrag(exported);
      for (const table of ['chunks', 'entities', 'relations', 'communities', 'reports', 'claims'] as const) {
        assert.deepEqual(await rowsOf(again, table), await rowsOf(kgrag, table), table);
      }
    } finally {
      await again.close();
    }
  });

  test('is updated by importing again, not by index or delete', async () => {
    const repeat = await kgrag.importGraphrag(directory);
    assert.equal(repeat.changed, false);
    assert.ok(repeat.indexed.ran.length === 0, 'an unchanged output folder runs no step');
    await assert.rejects(kgrag.index([join(outputs, '..', 'texts', 'dulce.txt')]), { code: 'INDEX_IMPORTED' });
    const [document] = await kgrag.documents();
    assert.ok(document);
    await assert.rejects(kgrag.delete([document.id]), { code: 'INDEX_IMPORTED' });
  });

  test('an interrupted import resumes where it stopped and gives the same index', async () => {
    const resumed = await createKgrag({ workspace: tempFolder('resumed'), env: {} });
    try {
      const stop = new AbortController();
      await assert.rejects(
        resumed.importGraphrag(directory, {
          stopAfterStep: stop.signal,
          onEvent: (event) => {
            if (event.type === 'step-end' && event.step === 'communities') stop.abort();
          },
        }),
        { code: 'PIPELINE_STOPPED' },
      );
      const status = await resumed.status();
      assert.equal(status.generation, undefined, 'nothing is published before the import completes');
      assert.equal(status.unpublished?.status, 'interrupted');
      const rest = await resumed.importGraphrag(directory);
      assert.ok(!rest.indexed.ran.includes('load') && !rest.indexed.ran.includes('communities'), 'the finished steps are not redone');
      assert.ok(rest.indexed.ran.includes('reports'));
      for (const table of ['chunks', 'entities', 'relations', 'communities', 'reports', 'claims'] as const) assert.deepEqual(await rowsOf(resumed, table), await rowsOf(kgrag, table), table);
    } finally {
      await resumed.close();
    }
  });

  test('an export refuses a folder holding other files', async () => {
    await assert.rejects(kgrag.export({ format: 'graphrag', directory: exported }), { code: 'EXPORT_FOLDER_NOT_EMPTY' });
    const again = await kgrag.export({ format: 'graphrag', directory: exported, overwrite: true });
    assert.equal(again.files.length, 7);
  });
});

test('an index kgrag built comes back from its GraphRAG export the same', async () => {
  const corpus = fileURLToPath(new URL('../examples/sample-corpus/', import.meta.url));
  const files = readdirSync(corpus).sort().slice(0, 6).map((name) => join(corpus, name));
  const built = await createKgrag({ workspace: tempFolder('native'), env: {}, config: { index: { mode: 'fast' }, pipeline: { methods: ['local', 'global'] } } });
  const copy = await createKgrag({ workspace: tempFolder('native-copy'), env: {} });
  try {
    await built.index(files);
    const folder = join(tempFolder('native-export'), 'output');
    await built.export({ format: 'graphrag', directory: folder });
    await copy.importGraphrag(folder);
    for (const table of ['chunks', 'entities', 'relations', 'communities', 'reports'] as const) assert.deepEqual(await rowsOf(copy, table), await rowsOf(built, table), table);
  } finally {
    await built.close();
    await copy.close();
  }
});

test('the command line imports a GraphRAG output and exports it as GraphML and for Neo4j', { skip }, async () => {
  const cwd = tempFolder('cli');
  const imported = await runCliCaptured(['import', 'graphrag', join(outputs, 'operation-dulce-v2'), '-w', 'ws', '--json'], { cwd });
  assert.equal(imported.code, 0, imported.stderr);
  const summary = JSON.parse(imported.stdout) as { tables: Record<string, { rows: number; records: number; leftOut: string[] }>; mergedRelationshipRows: number; ran: string[] };
  assert.equal(summary.tables.entities?.records, 39);
  assert.ok(summary.ran.includes('ppr-graph') && summary.ran.includes('keywords'), 'every method is built after the import');
  assert.match(imported.stderr, /warning: relationship .* names "(ELEVATOR|CONCRETE HALLWAY)", which the entities table lacks/);

  const graphml = await runCliCaptured(['export', '--format', 'graphml', 'out-graphml', '-w', 'ws'], { cwd });
  assert.equal(graphml.code, 0, graphml.stderr);
  const parsed = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(join(cwd, 'out-graphml', 'graph.graphml'), 'utf8')) as { graphml: { graph: { node: unknown[]; edge: unknown[] } } };
  assert.equal(parsed.graphml.graph.node.length, 39);
  assert.equal(parsed.graphml.graph.edge.length, 100);

  const neo4j = await runCliCaptured(['export', '--format', 'neo4j', 'out-neo4j', '-w', 'ws'], { cwd });
  assert.equal(neo4j.code, 0, neo4j.stderr);
  assert.match(neo4j.stdout, /entities\.csv\t39 Entity nodes/);
  assert.match(readFileSync(join(cwd, 'out-neo4j', 'related.csv'), 'utf8').split('\n')[0] ?? '', /^:START_ID\(Entity\),:END_ID\(Entity\),.*:TYPE/);

  const refused = await runCliCaptured(['export', '--format', 'neo4j', 'out-neo4j', '-w', 'ws'], { cwd });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /is not empty — export into a new or empty folder, or pass --overwrite/);
});

describe('GraphRAG outputs as real projects leave them', { skip }, () => {
  test('a workspace with an index kgrag built is not overwritten', async () => {
    const kgrag = await createKgrag({ workspace: tempFolder('built'), env: {}, config: { pipeline: { methods: ['basic'] } } });
    try {
      await kgrag.index([{ title: 'Weir', text: 'The weir holds back the river.' }]);
      await assert.rejects(kgrag.importGraphrag(join(outputs, 'operation-dulce-v2')), { code: 'IMPORT_WORKSPACE_NOT_EMPTY' });
    } finally {
      await kgrag.close();
    }
  });

  test('a folder of other files, a missing folder and a missing column are clear errors', async () => {
    const kgrag = await createKgrag({ workspace: tempFolder('errors'), env: {} });
    try {
      await assert.rejects(kgrag.importGraphrag(tempFolder('empty')), { code: 'IMPORT_NOT_GRAPHRAG' });
      await assert.rejects(kgrag.importGraphrag(join(tempFolder('gone'), 'nothing-here')), { code: 'IMPORT_NOT_FOUND' });
      const broken = tempFolder('broken');
      cpSync(join(outputs, 'operation-dulce-v2'), broken, { recursive: true });
      const entities = readWithArrow(join(broken, 'entities.parquet'));
      writeTable(join(broken, 'entities.parquet'), { id: entities.map((row) => String(row.id)), type: entities.map((row) => String(row.type)) });
      await assert.rejects(kgrag.importGraphrag(broken), (error: Error & { code?: string; details?: Record<string, unknown> }) => {
        assert.equal(error.code, 'IMPORT_MISSING_COLUMN');
        assert.match(error.message, /entities\.parquet has no column "title" \(nor "name"\)/);
        assert.equal(error.details?.column, 'title');
        return true;
      });
      cpSync(join(outputs, 'operation-dulce-v2', 'entities.parquet'), join(broken, 'entities.parquet'));
      writeFileBytes(join(broken, 'relationships.parquet'), new TextEncoder().encode('version https://git-lfs.github.com/spec/v1\n'));
      await assert.rejects(kgrag.importGraphrag(broken), { code: 'IMPORT_BAD_PARQUET' });
    } finally {
      await kgrag.close();
    }
  });

  test('float ids, a document_ids list, lists as JSON text and no optional columns are read', async () => {
    const folder = tempFolder('variant');
    const text = 'Agent Alex Mercer led the team into Dulce Base. Jordan Hayes decoded the signal in the command centre.';
    const unitText = [text.slice(0, 48), text.slice(48)];
    writeTable(join(folder, 'create_final_documents.parquet'), { id: ['d1'], title: ['dulce.txt'], text: [text] });
    writeTable(join(folder, 'create_final_text_units.parquet'), { id: ['u1', 'u2'], text: unitText, document_ids: [['d1'], ['d1']] });
    writeTable(join(folder, 'create_final_entities.parquet'), {
      id: [1.0, 2.0, 3.0],
      title: ['ALEX MERCER', 'DULCE BASE', 'JORDAN HAYES'],
      type: ['PERSON', 'GEO', 'PERSON'],
      description: ['An agent', 'A base', 'A scientist'],
      text_unit_ids: ['["u1"]', '["u1"]', '["u2"]'],
    });
    writeTable(join(folder, 'create_final_relationships.parquet'), { source: ['ALEX MERCER', 'JORDAN HAYES'], target: ['DULCE BASE', 'ALEX MERCER'], weight: [2.5, 1] });
    const kgrag = await createKgrag({ workspace: tempFolder('variant-ws'), env: {} });
    try {
      const summary = await kgrag.importGraphrag(folder);
      assert.equal(summary.generation, '1.x');
      const stats = await kgrag.stats();
      assert.deepEqual([stats.documents, stats.chunks, stats.entities, stats.relations], [1, 2, 3, 2]);
      const chunks = await kgrag.store.table('chunks').all();
      assert.deepEqual(chunks.map((chunk) => text.slice(chunk.start, chunk.end)), unitText, 'chunks are placed at their offsets in the document');
      assert.ok(stats.communities > 0, 'without a communities table, kgrag clusters the graph itself');
      assert.ok(summary.notes.some((note) => /no communities table/.test(note)));
      const entity = (await kgrag.store.table('entities').all()).find((row) => row.title === 'ALEX MERCER');
      assert.deepEqual([entity?.degree, entity?.frequency, entity?.chunkIds.length], [2, 1, 1], 'degree and frequency are computed when absent');
      const answer = await kgrag.query('Who decoded the signal?', { method: 'local' });
      assert.match(answer.answer.text, /Jordan Hayes/);
    } finally {
      await kgrag.close();
    }
  });
});

test('columns of the wrong type are read with one warning per column, naming the file and the column and counting the values', async () => {
  const folder = tempFolder('wrong-types');
  const text = 'Agent Alex Mercer led the team into Dulce Base. Jordan Hayes decoded the signal.';
  let nested: unknown = { depth: 100, big: 2n ** 40n };
  for (let level = 1; level < 100; level += 1) nested = { a: nested };
  const documents = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: ['d1'] },
      { name: 'title', data: ['dulce.txt'] },
      { name: 'text', data: [text] },
      { name: 'metadata', data: [{ source: 'field notes', nested }], type: 'JSON' },
    ],
  });
  writeFileBytes(join(folder, 'documents.parquet'), new Uint8Array(documents));
  writeTable(join(folder, 'text_units.parquet'), { id: ['u1'], text: [text], document_ids: [['d1']] });
  writeTable(join(folder, 'entities.parquet'), {
    id: ['e1', 'e2', 'e3'],
    title: ['ALEX MERCER', 'DULCE BASE', 'JORDAN HAYES'],
    type: [1, 2, 3],
    degree: ['3', 'many', '1'],
    text_unit_ids: [['u1'], ['u1'], ['u1']],
  });
  writeTable(join(folder, 'relationships.parquet'), { source: ['ALEX MERCER', 'JORDAN HAYES'], target: ['DULCE BASE', 'ALEX MERCER'], weight: ['2.5', '1'], text_unit_ids: ['u1', 'u1'] });
  const kgrag = await createKgrag({ workspace: tempFolder('wrong-types-ws'), env: {}, config: { pipeline: { methods: ['local'] } } });
  try {
    const summary = await kgrag.importGraphrag(folder);
    const columns = summary.notes.filter((note) => /column|metadata/.test(note));
    assert.deepEqual(columns, [
      `${join(folder, 'entities.parquet')}: column "type" holds 3 numbers where text was expected; they were read as text`,
      `${join(folder, 'entities.parquet')}: column "degree" holds 3 texts where numbers were expected; 2 were read as numbers and 1 that is not one ("many") as missing`,
      `${join(folder, 'relationships.parquet')}: column "weight" holds 2 texts where numbers were expected; they were read as numbers`,
      `${join(folder, 'relationships.parquet')}: column "text_unit_ids" holds 2 texts where lists were expected; they were read as one-item lists`,
      `${join(folder, 'documents.parquet')}: the metadata of document d1 nests deeper than 32 levels, so the deeper values were read as null`,
    ]);
    const [document] = await kgrag.store.table('documents').all();
    const kept = (document?.metadata['graphrag'] as { metadata: { source: string } }).metadata;
    assert.equal(kept.source, 'field notes');
    const relations = await kgrag.store.table('relations').all();
    assert.deepEqual(relations.map((relation) => relation.weight).sort(), [1, 2.5]);
  } finally {
    await kgrag.close();
  }
});

test('a metadata struct with INT64 fields, as pyarrow writes a dict column, is imported', async () => {
  const folder = tempFolder('struct-metadata');
  const text = 'Agent Alex Mercer led the team into Dulce Base.';
  const metadata = vectorFromArray([{ pages: 12n, author: 'Mercer' }], new Struct([new Field('pages', new Int64(), true), new Field('author', new Utf8(), true)]));
  const documents = new ArrowTable({ id: vectorFromArray(['d1']), title: vectorFromArray(['dulce.txt']), text: vectorFromArray([text]), metadata });
  writeFileBytes(join(folder, 'documents.parquet'), writeParquet(WasmTable.fromIPCStream(tableToIPC(documents, 'stream'))));
  writeTable(join(folder, 'text_units.parquet'), { id: ['u1'], text: [text], document_ids: [['d1']] });
  writeTable(join(folder, 'entities.parquet'), { id: ['e1', 'e2'], title: ['ALEX MERCER', 'DULCE BASE'], text_unit_ids: [['u1'], ['u1']] });
  writeTable(join(folder, 'relationships.parquet'), { source: ['ALEX MERCER'], target: ['DULCE BASE'], text_unit_ids: [['u1']] });
  const kgrag = await createKgrag({ workspace: tempFolder('struct-metadata-ws'), env: {}, config: { pipeline: { methods: ['basic'] } } });
  try {
    await kgrag.importGraphrag(folder);
    const [document] = await kgrag.store.table('documents').all();
    assert.deepEqual((document?.metadata['graphrag'] as { metadata: unknown }).metadata, { pages: 12, author: 'Mercer' });
  } finally {
    await kgrag.close();
  }
});

/** Writes a small parquet table of string, number or list columns (test input in GraphRAG's shapes). */
function writeTable(path: string, columns: Record<string, unknown[]>): void {
  const buffer = parquetWriteBuffer({ columnData: Object.entries(columns).map(([name, data]) => ({ name, data })) });
  writeFileBytes(path, new Uint8Array(buffer));
}

function writeFileBytes(path: string, bytes: Uint8Array): void {
  rmSync(path, { force: true });
  writeFileSync(path, bytes);
}
