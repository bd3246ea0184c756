// An uploaded file is stored as `upload:<name>`, not as the path of a server's copy: on one Postgres workspace an upload
// lives with its job in the database, whichever server runs the job, and an edited file uploaded through the other
// server must replace the document, not add a second one. An upload an older kgrag stored under its path is replaced the same way.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { postgresTestContext } from './helpers/postgres-test-context.js';
import { readEvents, startTestServer } from './helpers/test-server.js';

const context = postgresTestContext('kgrag-upload-sources-');
const folder = context.folder;

interface Listed {
  id: string;
  title: string;
  source: string;
}

async function upload(base: string, name: string, content: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  const response = await fetch(`${base}/documents`, { method: 'POST', body: form });
  assert.equal(response.status, 202);
  await finished(base, ((await response.json()) as { job: { id: string } }).job.id);
}

async function finished(base: string, id: string): Promise<void> {
  const events = await readEvents(await fetch(`${base}/jobs/${id}/events`));
  const job = JSON.parse(events.at(-1)?.data ?? '{}') as { status: string; error: unknown };
  assert.equal(job.status, 'succeeded', JSON.stringify(job.error));
}

async function listed(base: string): Promise<Listed[]> {
  return ((await (await fetch(`${base}/documents`)).json()) as { documents: Listed[] }).documents;
}

test('an edited file uploaded through another server on the same Postgres workspace replaces its document; no server keeps a copy of an upload after its job', { timeout: 120_000 }, async () => {
  const store = { backend: 'postgres' as const, url: await context.postgres().freshDatabase(), workspace: 'shared-notes' };
  const kgrag = { config: { store, index: { mode: 'fast' as const }, pipeline: { methods: ['basic'] } } };
  const first = await startTestServer({ directory: folder(), kgrag });
  const second = await startTestServer({ directory: folder(), kgrag });
  try {
    await upload(`${first.url}/v1`, 'inn.md', '# Inn\n\nThe Ferry Inn stands on the quay.');
    await upload(`${first.url}/v1`, 'ferry.md', '# Ferry\n\nThe ferry Cormorant crosses to Skerrow at noon.');
    await upload(`${second.url}/v1`, 'ferry.md', '# Ferry\n\nThe ferry Cormorant crosses to Skerrow at dawn.');
    const documents = await listed(`${first.url}/v1`);
    assert.deepEqual(documents.map((document) => document.source).sort(), ['upload:ferry.md', 'upload:inn.md'], 'one document for the file, not one per server');
    const document = documents.find((listedDocument) => listedDocument.source === 'upload:ferry.md');
    const text = ((await (await fetch(`${first.url}/v1/documents/${document?.id}`)).json()) as { text: string }).text;
    assert.match(text, /at dawn/);

    // On Postgres an upload lives in the database with its job, and goes when the job ends: no server keeps a copy.
    for (const server of [first, second]) assert.ok(!existsSync(join((await server.registry.open('default')).uploads, 'ferry.md')));
    assert.deepEqual((await context.postgres().pool(store.url).query('SELECT count(*)::int AS n FROM kgrag.job_uploads')).rows, [{ n: 0 }], 'no upload outlives its job');
    const deleted = await fetch(`${second.url}/v1/documents/${document?.id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 202);
    await finished(`${second.url}/v1`, ((await deleted.json()) as { job: { id: string } }).job.id);
    assert.deepEqual((await listed(`${first.url}/v1`)).map((listedDocument) => listedDocument.source), ['upload:inn.md']);
  } finally {
    await first.close();
    await second.close();
  }
});

test('an upload an older kgrag stored under its path is replaced by an edited upload of the same name', async () => {
  const directory = folder();
  const uploads = join(directory, 'uploads');
  mkdirSync(uploads);
  const path = join(uploads, 'mill.md');
  writeFileSync(path, '# Mill\n\nThe Sedley mill grinds oats.');
  const config = { index: { mode: 'fast' as const }, pipeline: { methods: ['basic'] } };
  const older = await createKgrag({ workspace: directory, env: {}, config });
  await older.index([path]);
  assert.deepEqual((await older.documents()).map((document) => document.source), [path]);
  await older.close();

  const server = await startTestServer({ directory, kgrag: { config } });
  try {
    await upload(`${server.url}/v1`, 'mill.md', '# Mill\n\nThe Sedley mill grinds barley.');
    assert.deepEqual((await listed(`${server.url}/v1`)).map((document) => document.source), ['upload:mill.md']);
  } finally {
    await server.close();
  }
});
