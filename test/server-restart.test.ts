// SIGTERM while `kgrag serve` runs an index job: the server finishes what it must, exits 0, and the next start
// resumes the job from its draft instead of starting over.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readEvents, sampleWorkspace } from './helpers/test-server.js';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { nodeScriptArgs } from './helpers/node-script.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function startServe(workspace: string, options: string[] = []): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [...nodeScriptArgs('src/cli/main.ts'), '-w', workspace, ...options, 'serve', '--port', '0', '--log-level', 'warn'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /serving .* at (http:\/\/[^\s]+) —/.exec(stderr);
      if (found) resolve(found[1] as string);
    });
    void exited.then((code) => reject(new Error(`kgrag serve exited with ${code}: ${stderr}`)));
  });
  void exited.then(() => assert.equal(stdout, '', 'kgrag serve printed nothing on stdout'));
  return { child, url, exited };
}

test('SIGTERM during an index job: exit 0, the job stays queued, and the next start resumes it to the end', { timeout: 240_000 }, async () => {
  const workspace = await sampleWorkspace();
  const first = await startServe(workspace);
  const documents = Array.from({ length: 150 }, (_, index) => ({
    title: `Ledger ${index}`,
    text: Array.from({ length: 12 }, (_, line) => `On day ${line} of voyage ${index} the ketch Wren${index} of master Tamsin Crowe${index % 37} carried ${line + 3} tons of slate from Porthkerris${index % 11} to the quay at Kestermouth.`).join(' '),
  }));
  const added = await fetch(`${first.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents }) });
  assert.equal(added.status, 202);
  const { job } = (await added.json()) as { job: { id: string } };

  // Wait until the job has finished its first steps and is in a later one, then stop the server.
  const events = (await fetch(`${first.url}/v1/jobs/${job.id}/events`)).body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  const done = new Set<string>();
  for (;;) {
    const { value, done: ended } = await events.read();
    assert.ok(!ended, 'the job ended before the server could be stopped');
    if (value.event !== 'pipeline') continue;
    const event = JSON.parse(value.data) as { type: string; step: string };
    if (event.type === 'step-end') done.add(event.step);
    if (event.type === 'step-start' && done.has('chunk')) break;
  }
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);
  await events.cancel().catch(() => undefined);
  const stored = JSON.parse(readFileSync(join(workspace, '.kgrag-jobs', `${job.id}.json`), 'utf8')) as { view: { status: string } };
  assert.equal(stored.view.status, 'queued');

  const second = await startServe(workspace);
  try {
    const stream = await readEvents(await fetch(`${second.url}/v1/jobs/${job.id}/events`));
    const finished = JSON.parse(stream.at(-1)!.data) as { status: string; resumed: number; steps: Array<{ step: string; status: string }> };
    assert.equal(finished.status, 'succeeded');
    assert.equal(finished.resumed, 1);
    // The resumed run did not chunk again: the draft kept that work.
    assert.equal(finished.steps.find((step) => step.step === 'chunk')?.status, 'skipped');
    const stats = (await (await fetch(`${second.url}/v1/stats`)).json()) as { counts: { documents: number } };
    assert.equal(stats.counts.documents, 185);
  } finally {
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  }
});

test('SIGTERM while an index job cannot stop: the server kills it after the grace period and exits 0; the job stays queued', { timeout: 240_000 }, async () => {
  const workspace = await sampleWorkspace();
  const first = await startServe(workspace, ['--set', 'server.shutdownGraceMs=1500']);
  const added = await fetch(`${first.url}/v1/documents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ documents: [{ title: 'Tide mill', text: 'The tide mill at Porthkerris ground corn until 1931.' }] }),
  });
  const { job } = (await added.json()) as { job: { id: string } };
  const events = (await fetch(`${first.url}/v1/jobs/${job.id}/events`)).body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  let writer: { pid: number } | null = null;
  while (writer === null) {
    const { value, done } = await events.read();
    assert.ok(!done, 'the job ended before it could be frozen');
    if (value.event !== 'pipeline' || (JSON.parse(value.data) as { type: string }).type !== 'step-start') continue;
    writer = ((await (await fetch(`${first.url}/v1/stats`)).json()) as { index: { writer: { pid: number } | null } }).index.writer;
  }
  await events.cancel().catch(() => undefined);
  assert.notEqual(writer.pid, first.child.pid, 'the job runs in a process of its own');
  // A job stuck in a step (a parser that never returns) is as deaf to the server's request to stop as a frozen one.
  process.kill(writer.pid, 'SIGSTOP');
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);
  assert.throws(() => process.kill(writer.pid, 0), /ESRCH/, 'the job process was killed');
  const stored = JSON.parse(readFileSync(join(workspace, '.kgrag-jobs', `${job.id}.json`), 'utf8')) as { view: { status: string } };
  assert.equal(stored.view.status, 'queued', 'the next start runs it again');
});
