// Issue 18: crash safety of updates. An addition or a deletion killed with SIGKILL and run again gives the index of
// an undisturbed update, and pays no LLM call twice.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { startMockOpenAiServer, type MockOpenAiServer } from '../src/testing/index.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const childScript = new URL('./helpers/update-standard-child.ts', import.meta.url).pathname;
/** The document added and deleted again: its chunk is extracted, it joins communities, reports change. */
const movingDocument = '20-the-ferry-inn.md';

interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function runChild(args: readonly string[]): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function snapshotOf(workspace: string): Promise<Record<string, unknown>> {
  const kgrag = await createKgrag({ workspace, env: {} });
  try {
    return await indexSnapshot(kgrag);
  } finally {
    await kgrag.close();
  }
}

describe('an update killed with SIGKILL resumes to the same index, paying no call twice', { timeout: 900_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-incremental-crash-'));
  const documents = join(root, 'documents');
  const added = join(documents, movingDocument);
  let server: MockOpenAiServer;

  /** A workspace indexed from every document but the moving one. */
  const baseWorkspace = async (name: string): Promise<string> => {
    const workspace = join(root, name);
    cpSync(join(root, 'base-workspace'), workspace, { recursive: true });
    return workspace;
  };

  before(async () => {
    server = await startMockOpenAiServer({ reply: (request) => sampleLlmReply(request) });
    cpSync(corpus, documents, { recursive: true });
    renameSync(added, join(root, movingDocument));
    const first = await runChild([join(root, 'base-workspace'), server.url, 'index', documents]);
    assert.equal(first.code, 0, first.stderr);
    renameSync(join(root, movingDocument), added);
  });

  after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const [operation, kill] of [
    ['index', { event: 'step-start', step: 'summarize' }],
    ['index', { event: 'step-start', step: 'reports' }],
    ['delete', { event: 'step-start', step: 'communities' }],
  ] as const) {
    it(`${operation} killed at ${kill.event} ${kill.step}`, async () => {
      // The reference: the same update, undisturbed (for a deletion, of the document the addition brought).
      const reference = await baseWorkspace(`reference-${operation}-${kill.step}`);
      const killed = await baseWorkspace(`killed-${operation}-${kill.step}`);
      for (const workspace of operation === 'delete' ? [reference, killed] : []) {
        assert.equal((await runChild([workspace, server.url, 'index', added])).code, 0);
      }
      const beforeReference = server.stats.completions;
      const undisturbed = await runChild([reference, server.url, operation, added]);
      assert.equal(undisturbed.code, 0, undisturbed.stderr);
      const referenceCalls = server.stats.completions - beforeReference;
      if (operation === 'index') assert.ok(referenceCalls > 0, 'adding a document calls the model');

      const beforeKilled = server.stats.completions;
      const crashed = await runChild([killed, server.url, operation, added, kill.event, kill.step]);
      assert.equal(crashed.signal, 'SIGKILL', `the update ended before being killed: ${crashed.stderr}`);
      const resumed = await runChild([killed, server.url, operation, added]);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(server.stats.completions - beforeKilled, referenceCalls, 'the killed update and its rerun paid for each call once');
      assert.deepEqual(await snapshotOf(killed), await snapshotOf(reference));
    });
  }
});
