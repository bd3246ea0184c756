// Issue 18: crash safety of updates. An addition or a deletion killed with SIGKILL and run again gives the index of
// an undisturbed update, and pays no LLM call twice.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { startMockOpenAiServer, type MockOpenAiServer } from '../src/testing/index.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';
import { workspaceSnapshot } from './helpers/index-snapshot.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { nodeScriptArgs } from './helpers/node-script.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const childScript = new URL('./helpers/update-standard-child.ts', import.meta.url).pathname;
/** The document added and deleted again: its chunk is extracted, it joins communities, reports change. */
const movingDocument = '20-the-ferry-inn.md';
/**
 * The documents the workspace holds besides it: the places and firms the Ferry Inn's text names, so that its entities
 * merge with theirs. What is checked is how an update resumes, which the whole corpus would only make slower.
 */
const companions = ['01-kestermouth.md', '02-river-kester.md', '03-kester-weir-bridge.md', '06-marle-boatworks.md', '18-sedley-mill.md'];

interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function runChild(args: readonly string[]): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeScriptArgs(childScript), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function updateInProcess(workspace: string, baseURL: string, operation: 'index' | 'delete', target: string): Promise<void> {
  const kgrag = await createKgrag({ workspace, env: {}, config: { index: { mode: 'standard' }, llm: { ...standardTestLlmConfig(baseURL), timeoutMs: 60_000 } } });
  try {
    if (operation === 'index') await kgrag.index([target]);
    else await kgrag.delete([target]);
  } finally {
    await kgrag.close();
  }
}

describe('an update killed with SIGKILL resumes to the same index, paying no call twice', { timeout: 900_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-incremental-crash-'));
  const documents = join(root, 'documents');
  const added = join(documents, movingDocument);
  let server: MockOpenAiServer;

  const copyOf = (from: string, name: string): string => {
    const workspace = join(root, name);
    cpSync(join(root, from), workspace, { recursive: true });
    return workspace;
  };

  before(async () => {
    server = await startMockOpenAiServer({ reply: (request) => sampleLlmReply(request) });
    for (const name of companions) cpSync(join(corpus, name), join(documents, name));
    await updateInProcess(join(root, 'without'), server.url, 'index', documents);
    cpSync(join(corpus, movingDocument), added);
    await updateInProcess(copyOf('without', 'with'), server.url, 'index', added);
  });

  after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  // The addition is killed once its document is extracted and summarized, before its reports; the deletion while
  // it clusters. The reference is the same update undisturbed, on a copy of the same workspace.
  for (const [operation, from, kill] of [
    ['index', 'without', { event: 'step-start', step: 'reports' }],
    ['delete', 'with', { event: 'step-start', step: 'communities' }],
  ] as const) {
    it(`${operation} killed at ${kill.event} ${kill.step}`, async () => {
      const reference = copyOf(from, `reference-${operation}`);
      const killed = copyOf(from, `killed-${operation}`);
      const beforeReference = server.stats.completions;
      await updateInProcess(reference, server.url, operation, added);
      const referenceCalls = server.stats.completions - beforeReference;
      if (operation === 'index') assert.ok(referenceCalls > 0, 'adding a document calls the model');

      const beforeKilled = server.stats.completions;
      const crashed = await runChild([killed, server.url, operation, added, kill.event, kill.step]);
      assert.equal(crashed.signal, 'SIGKILL', `the update ended before being killed: ${crashed.stderr}`);
      const resumed = await runChild([killed, server.url, operation, added]);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(server.stats.completions - beforeKilled, referenceCalls, 'the killed update and its rerun paid for each call once');
      assert.deepEqual(await workspaceSnapshot(killed), await workspaceSnapshot(reference));
    });
  }
});
