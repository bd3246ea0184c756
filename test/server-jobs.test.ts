// Index jobs of `kgrag serve` run in processes of their own: the server's event loop answers while a job parses a large
// file, a job that exhausts its memory fails alone, and a cancelled job's process is stopped and its work dropped.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { minimalDocx } from './fixtures/text/minimal-docx.js';
import { readEvents, sampleWorkspace, startTestServer } from './helpers/test-server.js';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';

interface Job {
  id: string;
  status: string;
  error: { code: string; message: string } | null;
}

/** The pipeline events of a job as they come, with the server's other answers interleaved by the caller. */
async function* pipelineEvents(url: string, id: string): AsyncGenerator<{ type: string; step?: string }> {
  const reader = (await fetch(`${url}/v1/jobs/${id}/events`)).body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value.event === 'pipeline') yield JSON.parse(value.data) as { type: string; step?: string };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** A Word document of about `megabytes` MB of XML: many short paragraphs, a few hundred KB packed. */
function largeDocx(megabytes: number): Uint8Array {
  const paragraph = (index: number): string => `<w:p><w:r><w:t>Ledger line ${index}: the ketch Wren carried slate from Porthkerris to the quay at Kestermouth.</w:t></w:r></w:p>`;
  const count = Math.ceil((megabytes * 1024 * 1024) / paragraph(0).length);
  return minimalDocx(Array.from({ length: count }, (_, index) => paragraph(index)).join(''));
}

async function upload(url: string, name: string, bytes: Uint8Array): Promise<Job> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(bytes)]), name);
  const response = await fetch(`${url}/v1/documents`, { method: 'POST', body: form });
  assert.equal(response.status, 202, await response.clone().text());
  return ((await response.json()) as { job: Job }).job;
}

describe('kgrag serve: index jobs in processes of their own', () => {
  let server: ServedWorkspaces;
  before(async () => {
    server = await startTestServer({ directory: await sampleWorkspace() });
  });
  after(async () => {
    await server.close();
  });

  test('while a job parses a large Word document, /health and queries are answered; a cancel stops its process and drops its work', { timeout: 120_000 }, async () => {
    const job = await upload(server.url, 'ledger.docx', largeDocx(40));
    const answered: string[] = [];
    for await (const event of pipelineEvents(server.url, job.id)) {
      if (event.type === 'step-start' && event.step === 'load') {
        void fetch(`${server.url}/health`).then((response) => answered.push(`health ${response.status}`));
        void fetch(`${server.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Who designed the Kester Weir Bridge?', method: 'basic:bm25' }) }).then(
          (response) => answered.push(`query ${response.status}`),
        );
      }
      if (event.type === 'step-end' && event.step === 'load') {
        answered.push('load ended');
        break;
      }
    }
    for (;;) {
      if (answered.length === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual([...answered].sort(), ['health 200', 'load ended', 'query 200']);
    const cancelled = await fetch(`${server.url}/v1/jobs/${job.id}`, { method: 'DELETE' });
    assert.equal(((await cancelled.json()) as { job: Job }).job.status, 'cancelled');
    const stats = (await (await fetch(`${server.url}/v1/stats`)).json()) as { counts: { documents: number }; index: { writer: unknown } };
    assert.equal(stats.counts.documents, 35, 'the cancelled job published nothing');
    assert.equal(stats.index.writer, null, 'and its process let go of the workspace');
  });

  test('the job holds the workspace from another process than the server', { timeout: 120_000 }, async () => {
    const added = await fetch(`${server.url}/v1/documents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ documents: [{ title: 'Tide mill', text: 'The tide mill at Porthkerris ground corn until 1931.' }] }),
    });
    const { job } = (await added.json()) as { job: Job };
    let writer: { pid: number } | null = null;
    for await (const event of pipelineEvents(server.url, job.id)) {
      if (event.type !== 'step-start') continue;
      const stats = (await (await fetch(`${server.url}/v1/stats`)).json()) as { index: { writer: { pid: number } | null } };
      writer = stats.index.writer;
      if (writer !== null) break;
    }
    assert.ok(writer !== null, 'a writer was seen while the job ran');
    assert.notEqual(writer.pid, process.pid);
    const ended = JSON.parse((await readEvents(await fetch(`${server.url}/v1/jobs/${job.id}/events`))).at(-1)!.data) as Job;
    assert.equal(ended.status, 'succeeded');
  });
});

describe('kgrag serve: a job process that does not stop', () => {
  test('is killed after the grace period when cancelled; its draft is dropped and the next job publishes only its own work', { timeout: 120_000 }, async () => {
    const server = await startTestServer({ directory: await sampleWorkspace(), server: { shutdownGraceMs: 1000 } });
    try {
      const documents = [{ title: 'Tide mill', text: 'The tide mill at Porthkerris ground corn until 1931.' }];
      const added = await fetch(`${server.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents }) });
      const { job } = (await added.json()) as { job: Job };
      let writer: { pid: number } | null = null;
      for await (const event of pipelineEvents(server.url, job.id)) {
        if (event.type !== 'step-end' || event.step !== 'chunk') continue;
        writer = ((await (await fetch(`${server.url}/v1/stats`)).json()) as { index: { writer: { pid: number } | null } }).index.writer;
        break;
      }
      assert.ok(writer !== null && writer.pid !== process.pid);
      // Frozen: it can neither hear the cancel nor end by itself.
      process.kill(writer.pid, 'SIGSTOP');
      assert.ok(getPriority(writer.pid) > getPriority(), 'the job runs at a lower priority than the server, so queries get the CPU first');
      const cancelled = await fetch(`${server.url}/v1/jobs/${job.id}`, { method: 'DELETE' });
      assert.equal(((await cancelled.json()) as { job: Job }).job.status, 'cancelled');
      assert.throws(() => process.kill(writer.pid, 0), /ESRCH/, 'the job process is gone');
      const next = await fetch(`${server.url}/v1/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ documents: [{ title: 'Salt store', text: 'The salt store by the quay held herring barrels.' }] }),
      });
      const nextJob = ((await next.json()) as { job: Job }).job;
      const ended = JSON.parse((await readEvents(await fetch(`${server.url}/v1/jobs/${nextJob.id}/events`))).at(-1)!.data) as Job;
      assert.equal(ended.status, 'succeeded');
      const titles = ((await (await fetch(`${server.url}/v1/documents`)).json()) as { documents: Array<{ title: string }> }).documents.map((document) => document.title);
      assert.ok(titles.includes('Salt store'));
      assert.ok(!titles.includes('Tide mill'), 'the cancelled job\'s document was not published by the next job');
    } finally {
      await server.close();
    }
  });
});

describe('kgrag serve: a job that runs out of memory', () => {
  test('fails with JOB_OUT_OF_MEMORY and a fix, and the server keeps answering', { timeout: 120_000 }, async () => {
    const server = await startTestServer({ directory: await sampleWorkspace(), server: { jobMemoryMb: 16 } });
    try {
      const added = await fetch(`${server.url}/v1/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ documents: [{ title: 'Tide mill', text: 'The tide mill at Porthkerris ground corn until 1931.' }] }),
      });
      const { job } = (await added.json()) as { job: Job };
      const ended = JSON.parse((await readEvents(await fetch(`${server.url}/v1/jobs/${job.id}/events`))).at(-1)!.data) as Job;
      assert.equal(ended.status, 'failed');
      assert.equal(ended.error?.code, 'JOB_OUT_OF_MEMORY');
      assert.match(ended.error?.message ?? '', /ran out of memory.* — index fewer or smaller files in one job, or give jobs more memory/);
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      const stats = (await (await fetch(`${server.url}/v1/stats`)).json()) as { counts: { documents: number } };
      assert.equal(stats.counts.documents, 35);
    } finally {
      await server.close();
    }
  });
});

describe('kgrag serve: leftovers in the jobs folder', () => {
  test('a leftover temporary job file that is a folder is removed at start, not a crash', async () => {
    const directory = await sampleWorkspace();
    mkdirSync(join(directory, '.kgrag-jobs', 'job-000007.json.tmp', 'inside'), { recursive: true });
    const server = await startTestServer({ directory });
    try {
      assert.equal((await fetch(`${server.url}/v1/stats`)).status, 200);
      assert.ok(!existsSync(join(directory, '.kgrag-jobs', 'job-000007.json.tmp')));
    } finally {
      await server.close();
    }
  });
});
