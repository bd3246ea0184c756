import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';
import { startTestServer } from './helpers/test-server.js';

/*
 * Issue 35, item 8: one JSONL record whose metadata nests 5,000 deep stopped every index run with "Maximum call
 * stack size exceeded". The loader now cuts metadata at 32 levels with one warning naming the file and the record,
 * and every record is indexed.
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-deep-metadata-'));
after(() => rmSync(root, { recursive: true, force: true }));
const corpus = join(root, 'corpus');
const workspace = join(root, 'ws');
const depth = 5_000;

interface IndexSummary {
  documents: number;
  warnings: Array<{ file?: string; step: string; code: string; message: string }>;
}

/** `{"a":{"a":…"leaf"…}}`, built as text: JSON.stringify itself overflows the stack on such a value. */
const deepJson = `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;

before(() => {
  mkdirSync(corpus, { recursive: true });
  writeFileSync(
    join(corpus, 'records.jsonl'),
    [
      JSON.stringify({ id: 'ada', text: 'Ada Lovelace wrote the first notes on the Analytical Engine.', tags: ['math'] }),
      `{"id":"deep","text":"Babbage kept a drawer of nested notes about the Difference Engine.","notes":${deepJson}}`,
      JSON.stringify({ id: 'mary', text: 'Mary Somerville translated Laplace and taught Ada mathematics.' }),
      '',
    ].join('\n'),
  );
});

describe('metadata nested 5,000 deep', () => {
  let first: { code: number; stdout: string; stderr: string };

  before(async () => {
    first = await runCliCaptured(['index', corpus, '-w', workspace, '--methods', 'basic', '--json'], { cwd: root });
  });

  test('the index run completes, indexes every record and warns once, naming the file and the record', () => {
    assert.equal(first.code, 0, first.stderr);
    const summary = JSON.parse(first.stdout) as IndexSummary;
    assert.equal(summary.documents, 3);
    const deep = summary.warnings.filter((warning) => /nest/.test(warning.message));
    assert.equal(deep.length, 1, JSON.stringify(summary.warnings));
    assert.equal(deep[0]?.file, join(corpus, 'records.jsonl'));
    assert.match(deep[0]?.message ?? '', /records\.jsonl.*#deep.*deeper than 32 levels/);
  });

  test('the stored record keeps its text and its metadata down to the limit', async () => {
    const kgrag = await createKgrag({ workspace, env: {} });
    try {
      const documents = await kgrag.store.table('documents').pick(['source', 'metadata']);
      const deep = documents.find((document) => document.source.endsWith('#deep'));
      assert.ok(deep !== undefined, 'the deep record is indexed');
      let level = 1;
      let value: unknown = deep.metadata['notes'];
      while (typeof value === 'object' && value !== null) {
        level += 1;
        value = (value as Record<string, unknown>)['a'];
      }
      assert.equal(level, 32, 'the metadata object is level 1; the cut container is gone');
      assert.equal(value, null);
      assert.deepEqual(documents.find((document) => document.source.endsWith('#ada'))?.metadata, { tags: ['math'] });
    } finally {
      await kgrag.close();
    }
  });

  test('a rerun works and finds nothing to change', async () => {
    const rerun = await runCliCaptured(['index', corpus, '-w', workspace, '--methods', 'basic', '--json'], { cwd: root });
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.equal((JSON.parse(rerun.stdout) as IndexSummary).documents, 3);
  });
});

describe('documents handed over in memory', () => {
  test('deep and circular metadata is cut with one warning naming each document, and both are indexed', async () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < depth; level += 1) deep = { a: deep };
    const circular: Record<string, unknown> = { name: 'loop' };
    circular['self'] = circular;
    const kgrag = await createKgrag({ workspace: join(root, 'inline'), env: {}, config: { pipeline: { methods: ['basic'] } } });
    try {
      const seen: Array<{ code: string; message: string }> = [];
      const summary = await kgrag.index(
        [
          { title: 'Deep', source: 'memory/deep', text: 'Babbage kept nested notes.', metadata: { notes: deep } },
          { title: 'Loop', source: 'memory/loop', text: 'Ada kept a circular list.', metadata: circular },
        ],
        { onEvent: (event) => event.type === 'warning' && seen.push(event.warning) },
      );
      assert.equal(summary.counts.load?.['documents'], 2);
      const warnings = seen.filter((warning) => warning.code === 'too-deep');
      assert.equal(warnings.length, 1, JSON.stringify(summary.warnings));
      assert.match(warnings[0]?.message ?? '', /"memory\/deep", "memory\/loop" nests deeper than 32 levels/);
      const stored = await kgrag.store.table('documents').pick(['source', 'metadata']);
      assert.deepEqual(stored.find((document) => document.source === 'memory/loop')?.metadata, { name: 'loop', self: null });
    } finally {
      await kgrag.close();
    }
  });
});

describe('documents posted to the HTTP API', () => {
  test('metadata nested 5,000 deep is refused with a 400 naming the field, where it was a 500', async () => {
    const served = await startTestServer({ directory: join(root, 'served') });
    try {
      const body = `{"documents":[{"title":"Deep","text":"Nested notes.","metadata":{"notes":${deepJson}}}]}`;
      const response = await fetch(`${served.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const problem = (await response.json()) as { code: string; detail: string };
      assert.equal(response.status, 400, problem.detail);
      assert.equal(problem.code, 'SERVER_INVALID_REQUEST');
      assert.match(problem.detail, /documents\.0\.metadata: nests deeper than 32 levels; flatten it/);
    } finally {
      await served.close();
    }
  });
});
