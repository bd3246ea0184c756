// A crash inside a method's own index step: AutoKG's `keywords` step (src/methods/autokg/build/keywords-step.ts),
// killed with SIGKILL in the middle of its chain of LLM keyword calls, is resumed by the next run to the index of a
// clean build, paying for no answered call again.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import { startMockOpenAiServer, type MockOpenAiServer } from '../src/testing/index.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { nodeScriptArgs } from './helpers/node-script.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const childScript = new URL('./helpers/update-standard-child.ts', import.meta.url).pathname;
/** Six documents: enough chunks for AutoKG's two clusterings and a chain of some twenty keyword calls. */
const documentNames = ['01-kestermouth.md', '02-river-kester.md', '03-kester-weir-bridge.md', '06-marle-boatworks.md', '18-sedley-mill.md', '20-the-ferry-inn.md'];
/**
 * Built for `autokg` only, so that its `keywords` step is the one that calls the model; one call at a time, so that
 * the calls answered before the kill are exactly those the killed run stored in its cache.
 */
const childConfig = { pipeline: { methods: ['autokg'] }, llm: { concurrency: 1 } };
/** The killed run dies when the server receives this call of the keyword chain, before answering it. */
const killAtCall = 6;
/** How the three keyword prompts of AutoKG begin (extraction, refinement, final pass). */
const keywordPrompt = /^(You are an advanced AI assistant\.|You will be given a list of keywords)/;

interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runChild(args: readonly string[], started: (child: ChildProcess) => void = () => {}): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeScriptArgs(childScript), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KGRAG_TEST_CHILD_CONFIG: JSON.stringify(childConfig) },
    });
    started(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe("AutoKG's keywords step killed with SIGKILL mid-step resumes to a clean build's index", { timeout: 600_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-autokg-crash-'));
  const documents = join(root, 'documents');
  let server: MockOpenAiServer;
  /** The child to kill at {@link killAtCall}, while the killed run is going. */
  let victim: ChildProcess | undefined;
  let calls = 0;
  const prompts: string[] = [];

  before(async () => {
    server = await startMockOpenAiServer({
      reply: (request) => {
        calls += 1;
        prompts.push(request.messages[0]?.content ?? '');
        if (victim !== undefined && calls === killAtCall) {
          victim.kill('SIGKILL');
          // Never answered: the child is gone, and `close()` drops the connection.
          return new Promise<string>(() => {});
        }
        return sampleLlmReply(request);
      },
    });
    mkdirSync(documents);
    for (const name of documentNames) cpSync(join(corpus, name), join(documents, name));
  });

  after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(`killed at keyword call ${killAtCall}, the rerun redoes only that step, asks only the calls not answered, and ends identical`, async () => {
    // The clean build, in this process, with the children's configuration.
    const clean = join(root, 'clean');
    const builder = await createKgrag({
      workspace: clean,
      env: {},
      config: { index: { mode: 'standard' }, pipeline: childConfig.pipeline, llm: { ...standardTestLlmConfig(server.url), timeoutMs: 60_000, ...childConfig.llm } },
    });
    try {
      await builder.index([documents]);
    } finally {
      await builder.close();
    }
    const referenceCalls = calls;
    assert.ok(referenceCalls > killAtCall, `the chain is longer than ${killAtCall} calls (${referenceCalls})`);
    assert.ok(prompts.every((prompt) => keywordPrompt.test(prompt)), 'every call is a keyword call of the keywords step');

    calls = 0;
    const crashedWorkspace = join(root, 'crashed');
    const crashed = await runChild([crashedWorkspace, server.url, 'index', documents], (child) => (victim = child));
    victim = undefined;
    assert.equal(crashed.signal, 'SIGKILL', `the run ended before it was killed: ${crashed.stdout}${crashed.stderr}`);
    assert.equal(calls, killAtCall);

    calls = 0;
    const resumed = await runChild([crashedWorkspace, server.url, 'index', documents]);
    assert.equal(resumed.code, 0, resumed.stderr);
    // The steps before it had committed in the killed run's draft; the keywords step had not, and runs again (`load`
    // reads the inputs on every run).
    assert.match(resumed.stdout, /ran \["load","keywords"\]\n$/);
    // The answers the killed run received came from its cache; the call it died in and the rest were asked.
    assert.equal(calls, referenceCalls - (killAtCall - 1));

    const snapshotOf = async (workspace: string): Promise<Record<string, unknown>> => {
      const kgrag = await createKgrag({ workspace, env: {}, config: { llm: standardTestLlmConfig(server.url) } });
      try {
        return await indexSnapshot(kgrag);
      } finally {
        await kgrag.close();
      }
    };
    const expected = await snapshotOf(clean);
    assert.ok(Array.isArray(expected['keywords']) && expected['keywords'].length > 0, 'the clean build has keywords');
    assert.deepEqual(await snapshotOf(crashedWorkspace), expected);
  });
});
