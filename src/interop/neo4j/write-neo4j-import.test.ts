import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { exportTestIndex } from '../../../test/helpers/export-test-index.js';
import { KgragError } from '../../core/errors.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import { writeNeo4jImport, type Neo4jExportSummary } from './write-neo4j-import.js';

interface CsvField {
  text: string;
  quoted: boolean;
}

/**
 * An RFC 4180 reader written for this test, sharing nothing with the writer: fields split at commas outside
 * quotes, `""` inside quotes is one quote, line breaks inside quotes belong to the field, a record ends at LF or CRLF.
 */
function readCsv(text: string): CsvField[][] {
  const records: CsvField[][] = [];
  let record: CsvField[] = [];
  let at = 0;
  while (at < text.length) {
    let field: CsvField;
    if (text[at] === '"') {
      let value = '';
      at++;
      for (;;) {
        const close = text.indexOf('"', at);
        assert.notEqual(close, -1, 'a quoted field is closed');
        value += text.slice(at, close);
        at = close + 1;
        if (text[at] !== '"') break;
        value += '"';
        at++;
      }
      field = { text: value, quoted: true };
    } else {
      let end = at;
      while (end < text.length && !',\n\r'.includes(text[end] as string)) end++;
      field = { text: text.slice(at, end), quoted: false };
      at = end;
    }
    record.push(field);
    if (text[at] === ',') {
      at++;
      continue;
    }
    if (text.startsWith('\r\n', at)) at += 2;
    else if (text[at] === '\n') at++;
    else assert.equal(at, text.length, `a field ends at a comma or a line end (offset ${at})`);
    records.push(record);
    record = [];
  }
  return records;
}

interface CsvTable {
  header: string[];
  rows: Array<Map<string, CsvField>>;
}

function readTable(directory: string, file: string): CsvTable {
  const [header, ...records] = readCsv(readFileSync(join(directory, file), 'utf8'));
  const names = (header ?? []).map((field) => field.text);
  for (const record of records) assert.equal(record.length, names.length, `${file}: every row has a field per column`);
  return { header: names, rows: records.map((record) => new Map(record.map((field, index) => [names[index] as string, field]))) };
}

/** A field's value: text, or undefined for an empty unquoted field (no property). */
function value(row: Map<string, CsvField>, column: string): string | undefined {
  const field = row.get(column);
  assert.ok(field, `column ${column}`);
  return field.text === '' && !field.quoted ? undefined : field.text;
}

/** What UTF-8 keeps of a text: a lone surrogate cannot be encoded and becomes U+FFFD. */
function encodable(text: string): string {
  return text.replace(/[\uD800-\uDFFF]/gu, '\uFFFD');
}

async function exported(store: Store): Promise<{ directory: string; summary: Neo4jExportSummary }> {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-neo4j-'));
  return { directory, summary: await writeNeo4jImport(store, directory) };
}

test('writeNeo4jImport writes the header forms neo4j-admin documents', async () => {
  const { directory } = await exported(await exportTestIndex());
  const headers = Object.fromEntries(readdirSync(directory).filter((file) => file.endsWith('.csv')).map((file) => [file, readTable(directory, file).header.join(',')]));
  assert.deepEqual(headers, {
    'entities.csv': 'id:ID(Entity),hid:int,title,type,description,aliases:string[],frequency:int,degree:int,:LABEL',
    'chunks.csv': 'id:ID(Chunk),hid:int,ordinal:int,nTokens:int,start:int,end:int,text,:LABEL',
    'documents.csv': 'id:ID(Document),hid:int,title,source,contentHash,createdAt,metadata,text,:LABEL',
    'communities.csv': 'id:ID(Community),hid:int,level:int,title,size:int,reportTitle,summary,rating:double,ratingExplanation,findings,fullContent,generatedBy,:LABEL',
    'claims.csv': 'id:ID(Claim),hid:int,type,status,subject,object,startDate,endDate,description,sourceText,:LABEL',
    'related.csv': ':START_ID(Entity),:END_ID(Entity),id,hid:int,weight:double,combinedDegree:int,description,keywords:string[],:TYPE',
    'mentioned_in.csv': ':START_ID(Entity),:END_ID(Chunk),:TYPE',
    'part_of.csv': ':START_ID(Chunk),:END_ID(Document),:TYPE',
    'in_community.csv': ':START_ID(Entity),:END_ID(Community),level:int,:TYPE',
    'child_of.csv': ':START_ID(Community),:END_ID(Community),:TYPE',
    'claim_subject.csv': ':START_ID(Claim),:END_ID(Entity),:TYPE',
    'claim_object.csv': ':START_ID(Claim),:END_ID(Entity),:TYPE',
    'claim_source.csv': ':START_ID(Claim),:END_ID(Chunk),:TYPE',
  });
});

test('writeNeo4jImport writes a row per record and link, and the rows read back equal the index', async () => {
  const store = await exportTestIndex();
  const { directory, summary } = await exported(store);
  const entities = await store.table('entities').all();
  const relations = await store.table('relations').all();
  const chunks = await store.table('chunks').all();
  const documents = await store.table('documents').all();
  const communities = await store.table('communities').all();
  const reports = new Map((await store.table('reports').all()).map((report) => [report.communityId, report]));
  const claims = await store.table('claims').all();
  const entityIds = new Set(entities.map((entity) => entity.id));
  const table = (file: string): CsvTable => readTable(directory, file);

  const expectedRows: Record<string, number> = {
    'entities.csv': entities.length,
    'chunks.csv': chunks.length,
    'documents.csv': documents.length,
    'communities.csv': communities.length,
    'claims.csv': claims.length,
    'related.csv': relations.length,
    'mentioned_in.csv': entities.reduce((sum, entity) => sum + entity.chunkIds.length, 0),
    'part_of.csv': chunks.length,
    'in_community.csv': communities.reduce((sum, community) => sum + community.entityIds.length, 0),
    'child_of.csv': communities.filter((community) => community.parent !== null).length,
    'claim_subject.csv': 1,
    'claim_object.csv': 1,
    'claim_source.csv': claims.length,
  };
  for (const [file, rows] of Object.entries(expectedRows)) assert.equal(table(file).rows.length, rows, file);
  assert.deepEqual(Object.fromEntries(summary.files.map(({ file, rows }) => [file, rows])), expectedRows);
  assert.equal(summary.nodes, entities.length + chunks.length + documents.length + communities.length + claims.length);

  const entityRows = table('entities.csv').rows;
  entities.forEach((entity, index) => {
    const row = entityRows[index] as Map<string, CsvField>;
    assert.deepEqual(
      {
        id: value(row, 'id:ID(Entity)'),
        hid: Number(value(row, 'hid:int')),
        title: value(row, 'title'),
        type: value(row, 'type'),
        description: value(row, 'description') ?? '',
        aliases: value(row, 'aliases:string[]')?.split(';') ?? [],
        frequency: Number(value(row, 'frequency:int')),
        degree: Number(value(row, 'degree:int')),
        label: value(row, ':LABEL'),
      },
      {
        id: entity.id,
        hid: entity.hid,
        title: entity.title,
        type: entity.type,
        description: encodable(entity.description),
        // An element's own array delimiter cannot be escaped: it is written as a comma.
        aliases: entity.aliases.map((alias) => alias.replaceAll(';', ',')),
        frequency: entity.frequency,
        degree: entity.degree,
        label: 'Entity',
      },
    );
  });
  assert.deepEqual(value(entityRows[0] as Map<string, CsvField>, 'aliases:string[]'), 'Old, name;A "quoted", alias');

  const relationRows = table('related.csv').rows;
  relations.forEach((relation, index) => {
    const row = relationRows[index] as Map<string, CsvField>;
    assert.deepEqual(
      [value(row, ':START_ID(Entity)'), value(row, ':END_ID(Entity)'), value(row, 'id'), Number(value(row, 'weight:double')), value(row, 'description') ?? '', value(row, ':TYPE')],
      [relation.source, relation.target, relation.id, relation.weight, encodable(relation.description), 'RELATED'],
    );
  });

  const chunkRows = table('chunks.csv').rows;
  assert.deepEqual(
    chunkRows.map((row) => [value(row, 'id:ID(Chunk)'), value(row, 'text'), Number(value(row, 'start:int')), Number(value(row, 'end:int'))]),
    chunks.map((chunk) => [chunk.id, chunk.text, chunk.start, chunk.end]),
  );
  assert.ok(chunks.some((chunk) => chunk.text.includes('\n') && chunk.text.includes(',')), 'chunk texts hold line breaks and commas');
  assert.deepEqual(
    table('documents.csv').rows.map((row) => [value(row, 'id:ID(Document)'), value(row, 'text'), JSON.parse(value(row, 'metadata') ?? 'null')]),
    documents.map((document) => [document.id, document.text, document.metadata]),
  );
  assert.deepEqual(
    table('part_of.csv').rows.map((row) => [value(row, ':START_ID(Chunk)'), value(row, ':END_ID(Document)')]),
    chunks.map((chunk) => [chunk.id, chunk.documentId]),
  );
  assert.deepEqual(
    table('mentioned_in.csv').rows.map((row) => `${value(row, ':START_ID(Entity)')}>${value(row, ':END_ID(Chunk)')}`),
    entities.flatMap((entity) => entity.chunkIds.map((chunkId) => `${entity.id}>${chunkId}`)),
  );

  const communityRows = table('communities.csv').rows;
  communities.forEach((community, index) => {
    const row = communityRows[index] as Map<string, CsvField>;
    const report = reports.get(community.id);
    assert.ok(report, 'every community of a fast index has a report');
    assert.deepEqual(
      [value(row, 'id:ID(Community)'), Number(value(row, 'level:int')), value(row, 'reportTitle'), value(row, 'summary'), Number(value(row, 'rating:double')), value(row, 'fullContent')],
      [community.id, community.level, report.title, report.summary, report.rating, report.fullContent],
    );
    assert.deepEqual(JSON.parse(value(row, 'findings') ?? 'null'), report.findings);
  });
  assert.deepEqual(
    table('child_of.csv').rows.map((row) => [value(row, ':START_ID(Community)'), value(row, ':END_ID(Community)')]),
    communities.filter((community) => community.parent !== null).map((community) => [community.id, community.parent]),
  );
  assert.deepEqual(
    table('in_community.csv').rows.map((row) => [value(row, ':START_ID(Entity)'), value(row, ':END_ID(Community)'), Number(value(row, 'level:int'))]),
    communities.flatMap((community) => community.entityIds.map((entityId) => [entityId, community.id, community.level])),
  );

  const claimRows = table('claims.csv').rows;
  assert.deepEqual(
    claimRows.map((row) => [value(row, 'id:ID(Claim)'), value(row, 'subject'), value(row, 'object'), value(row, 'startDate'), value(row, 'description'), value(row, 'sourceText')]),
    claims.map((claim) => [claim.id, claim.subject, claim.object ?? undefined, claim.startDate ?? undefined, encodable(claim.description), claim.sourceText]),
  );
  const subjects = table('claim_subject.csv').rows.map((row) => [value(row, ':START_ID(Claim)'), value(row, ':END_ID(Entity)')]);
  assert.deepEqual(subjects, claims.filter((claim) => entityIds.has(claim.subject)).map((claim) => [claim.id, claim.subject]));
});

test('writeNeo4jImport quotes every text field and leaves numbers and missing values bare', async () => {
  const { directory } = await exported(await exportTestIndex());
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.csv'))) {
    const { header, rows } = readTable(directory, file);
    for (const row of rows) {
      for (const column of header) {
        const field = row.get(column) as CsvField;
        const numeric = /:(int|double)$/.test(column);
        if (field.text === '' && !field.quoted) continue;
        assert.equal(field.quoted, !numeric, `${file} ${column}: ${JSON.stringify(field.text)}`);
        if (numeric) assert.ok(Number.isFinite(Number(field.text)), `${file} ${column}: ${field.text}`);
      }
    }
  }
  const claim = readTable(directory, 'claims.csv').rows.find((row) => value(row, 'id:ID(Claim)') === 'claim-about-a-name');
  assert.deepEqual([claim?.get('object'), claim?.get('endDate')], [{ text: '', quoted: false }, { text: '', quoted: false }], 'a null is an empty, unquoted field');
});

test('import.cypher constrains every label and loads every CSV file, reading each column by its header', async () => {
  const { directory, summary } = await exported(await exportTestIndex());
  const script = readFileSync(join(directory, 'import.cypher'), 'utf8');
  const statements = script.split(/;\n/).map((statement) => statement.trim());
  for (const { file, kind, name } of summary.files) {
    const load = statements.find((statement) => statement.includes(`LOAD CSV WITH HEADERS FROM 'file:///${file}' AS row`));
    assert.ok(load, `${file} is loaded`);
    assert.match(load, /CALL \(row\) \{[\s\S]*\} IN TRANSACTIONS OF \d+ ROWS$/);
    for (const column of readTable(directory, file).header.filter((each) => each !== ':LABEL' && each !== ':TYPE')) {
      assert.ok(load.includes(`row.\`${column}\``), `${file} reads ${column}`);
    }
    if (kind === 'nodes') {
      assert.ok(script.includes(`\nCREATE CONSTRAINT kgrag_${name.toLowerCase()}_id IF NOT EXISTS FOR (n:${name}) REQUIRE n.id IS UNIQUE;\n`), `${name} has a constraint`);
      assert.ok(load.includes(`MERGE (n:${name} {id: row.\`id:ID(${name})\`})`));
    } else {
      assert.match(load, new RegExp(`MERGE \\(a\\)-\\[r:${name}\\]->\\(b\\)`));
    }
  }
  assert.ok(script.indexOf('CREATE CONSTRAINT') < script.indexOf('LOAD CSV'), 'the constraints come first');
  assert.match(script, /`aliases`: split\(row\.`aliases:string\[\]`, ';'\)/);
  assert.match(script, /`weight`: toFloat\(row\.`weight:double`\)/);
  assert.match(script, /`degree`: toInteger\(row\.`degree:int`\)/);

  const readme = readFileSync(join(directory, 'README.txt'), 'utf8');
  assert.match(readme, /neo4j-admin database import full \\\n/);
  for (const { file, kind } of summary.files) assert.ok(readme.includes(`--${kind}=${file} \\\n`), `the command names ${file}`);
  assert.ok(readme.includes('--multiline-fields=true'));
  assert.ok(readme.includes('--array-delimiter=";"'));
  assert.ok(readme.includes('cypher-shell -u neo4j -p <password> -d neo4j -f import.cypher'));
});

test('writeNeo4jImport writes the same bytes for the same index, and no claim files for an index without claims', async () => {
  const store = await exportTestIndex();
  const first = await exported(store);
  const second = await exported(store);
  const files = readdirSync(first.directory).sort();
  assert.deepEqual(readdirSync(second.directory).sort(), files);
  for (const file of files) assert.ok(readFileSync(join(first.directory, file)).equals(readFileSync(join(second.directory, file))), file);
  assert.ok(!files.some((file) => file.endsWith('.partial')));

  const empty = openSqliteStore(':memory:');
  try {
    const { directory, summary } = await exported(empty);
    assert.deepEqual({ nodes: summary.nodes, relationships: summary.relationships }, { nodes: 0, relationships: 0 });
    assert.equal(existsSync(join(directory, 'claims.csv')), false);
    assert.ok(!summary.files.some((file) => file.file.startsWith('claim')));
    assert.equal(readTable(directory, 'entities.csv').rows.length, 0);
  } finally {
    await empty.close();
  }
});

test('writeNeo4jImport refuses a file as its folder and leaves no file behind when aborted', async () => {
  const store = await exportTestIndex();
  const parent = mkdtempSync(join(tmpdir(), 'kgrag-neo4j-'));
  writeFileSync(join(parent, 'taken'), '');
  await assert.rejects(writeNeo4jImport(store, join(parent, 'taken')), (error) => KgragError.isInstance(error) && error.code === 'OUTPUT_PATH_INVALID');

  const controller = new AbortController();
  controller.abort();
  await assert.rejects(writeNeo4jImport(store, join(parent, 'aborted'), { signal: controller.signal }), { name: 'AbortError' });
  assert.deepEqual(readdirSync(join(parent, 'aborted')), []);
});
