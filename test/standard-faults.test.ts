import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createKgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import { startMockOpenAiServer } from '../src/testing/index.js';
import type { MockChatCompletionRequest, MockFaultOptions, MockOpenAiServer } from '../src/testing/index.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';
import { nodeScriptArgs } from './helpers/node-script.js';

/*
 * Standard-mode indexing through real HTTP against the loopback mock server: with 20 % of calls failing,
 * and killed with SIGKILL at random points, it must produce the index of an undisturbed run.
 */

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const childScript = new URL('./helpers/index-standard-child.ts', import.meta.url).pathname;

async function indexThroughMock(
  workspace: string,
  { faults, signal, llm = {} }: { faults?: MockFaultOptions; signal?: AbortSignal; llm?: Record<string, unknown> } = {},
): Promise<{ snapshot: Record<string, unknown>; server: MockOpenAiServer }> {
  const server = await startMockOpenAiServer({ reply: (request) => sampleLlmReply(request), ...(faults ? { faults } : {}) });
  try {
    const kgrag = await createKgrag({ workspace, env: {}, config: { llm: { ...standardTestLlmConfig(server.url), ...llm } } });
    try {
      await kgrag.index([corpus], { mode: 'standard', ...(signal === undefined ? {} : { signal }) });
      return { snapshot: await indexSnapshot(kgrag), server };
    } finally {
      await kgrag.close();
    }
  } finally {
    await server.close();
  }
}

/**
 * The snapshot without the audit trail of raw replies: a reply broken by a fault and replaced by its
 * repair turn is kept in `extractions.raw` and its problems, as it should be; everything the index is
 * made of must be equal.
 */
function withoutRawReplies(snapshot: Record<string, unknown>): Record<string, unknown> {
  const extractions = (snapshot['extractions'] as Array<{ raw: string; parsed: { problems?: unknown } }>).map(({ raw: _raw, parsed, ...rest }) => {
    const { problems: _problems, ...kept } = parsed;
    return { ...rest, parsed: kept };
  });
  return { ...snapshot, extractions };
}

describe('standard indexing through the mock LLM server', () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-standard-faults-'));
  let reference: Record<string, unknown>;
  let referenceCalls = 0;
  let referenceOpenieCalls = 0;
  let referenceKeywordCalls = 0;
  const warnings: Error[] = [];
  const recordWarning = (warning: Error): void => {
    warnings.push(warning);
  };
  before(async () => {
    // With a run signal, as the CLI passes one for Ctrl-C: every call waiting for a slot or a backoff listens to it.
    process.on('warning', recordWarning);
    const { snapshot, server } = await indexThroughMock(join(directory, 'reference'), { signal: new AbortController().signal }).finally(() =>
      process.off('warning', recordWarning),
    );
    reference = snapshot;
    referenceCalls = server.stats.completions;
    const kgrag = await createKgrag({ workspace: join(directory, 'reference'), env: {} });
    try {
      referenceOpenieCalls = (await kgrag.store.table('runs').get(['triples']))[0]?.usage.llmCalls ?? 0;
      referenceKeywordCalls = (await kgrag.store.table('runs').get(['keywords']))[0]?.usage.llmCalls ?? 0;
    } finally {
      await kgrag.close();
    }
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('prints no MaxListenersExceededWarning: the calls waiting on the run signal share one abort listener', () => {
    assert.deepEqual(
      warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message),
      [],
    );
  });

  it('completes with 20 % of the calls failing (429, 500, timeout, malformed body and JSON) and builds the same index', async () => {
    // A `timeout` fault is never answered: each costs the client's whole per-call timeout, most of this test's time at
    // the shared 1.5 s. A reply the client gives up on while the machine is busy is asked again and answered alike.
    const { snapshot, server } = await indexThroughMock(join(directory, 'faulty'), {
      faults: { rate: 0.2, seed: 7, kinds: ['429', '500', 'timeout', 'malformed-body', 'malformed-json'] },
      llm: { timeoutMs: 600 },
    });
    const { faults } = server.stats;
    const injected = Object.values(faults).reduce((sum, count) => sum + count, 0);
    assert.ok(injected >= 0.15 * referenceCalls, `${injected} faults injected over ${referenceCalls} calls`);
    for (const kind of ['429', '500', 'timeout', 'malformed-body', 'malformed-json'] as const) assert.ok(faults[kind] > 0, `some ${kind} faults`);
    assert.deepEqual(withoutRawReplies(snapshot), withoutRawReplies(reference));
    assert.deepEqual(snapshot['entities'], reference['entities']);
  });

  it('resumes after SIGKILL at random points without repeating a successful call, and builds the same index', async () => {
    const workspace = join(directory, 'killed');
    let frozen = false;
    let arrivals = 0;
    let killAt = Number.POSITIVE_INFINITY;
    let onFreeze: (() => void) | undefined;
    const server = await startMockOpenAiServer({
      latencyMs: 5,
      reply: async (request: MockChatCompletionRequest) => {
        arrivals++;
        if (!frozen && arrivals >= killAt) {
          frozen = true;
          onFreeze?.();
        }
        // Once the kill point is reached nothing is answered any more: a reply sent in the instant before
        // a SIGKILL cannot be saved by any client, so the kill comes while the client waits on the server.
        if (frozen) return new Promise<string>(() => undefined);
        return sampleLlmReply(request);
      },
    });
    try {
      // One random point in each fifth of the calls before OpenIE, so that every graph LLM step (extraction,
      // resolution, summaries, reports) is hit; points count calls that reached the server, across restarts.
      // OpenIE comes after the steps killed by event below, so it gets its own kill at the end.
      const random = createRandom(2026);
      // AutoKG's keyword calls come after OpenIE, so they are left out like it.
      const fifth = Math.floor((referenceCalls - referenceOpenieCalls - referenceKeywordCalls - 5) / 5);
      const killPoints = Array.from({ length: 5 }, (_, index) => 1 + index * fifth + Math.floor(random() * fifth));
      const runs: string[] = [];
      for (const point of killPoints) {
        killAt = point;
        frozen = false;
        const child = await runChild([workspace, server.url], (running) => (onFreeze = () => killOnceStored(workspace, server, running)));
        assert.equal(child.signal, 'SIGKILL', `killed at request ${point}: the child ended first (code ${child.code}): ${child.stderr}`);
        runs.push(`request ${point}: killed`);
      }
      // Two more kills between the LLM steps: while clustering, and while embedding entities.
      killAt = Number.POSITIVE_INFINITY;
      frozen = false;
      for (const [event, step] of [
        ['step-start', 'communities'],
        ['step-start', 'embed-entities'],
      ] as const) {
        const child = await runChild([workspace, server.url, event, step]);
        assert.equal(child.signal, 'SIGKILL', `killed at ${event} ${step}: ${child.stderr}`);
        runs.push(`${event} ${step}: killed`);
      }
      // Halfway through OpenIE (the triples step), whose replies are stored as they arrive.
      killAt = arrivals + Math.floor(referenceOpenieCalls / 2);
      frozen = false;
      const openieChild = await runChild([workspace, server.url], (running) => (onFreeze = () => killOnceStored(workspace, server, running)));
      assert.equal(openieChild.signal, 'SIGKILL', `killed during OpenIE: ${openieChild.stderr}`);
      runs.push('OpenIE: killed');
      killAt = Number.POSITIVE_INFINITY;
      frozen = false;
      const last = await runChild([workspace, server.url]);
      assert.equal(last.code, 0, last.stderr);
      assert.match(last.stdout, /finished without being killed/);
      assert.equal(runs.length, 8, runs.join('\n'));

      const repeated = [...server.stats.successByRequestHash.values()].filter((count) => count > 1);
      assert.deepEqual(repeated, [], 'no successful call was paid twice');
      const kgrag = await createKgrag({ workspace, env: {}, config: { llm: standardTestLlmConfig(server.url) } });
      try {
        assert.deepEqual(await indexSnapshot(kgrag), reference);
      } finally {
        await kgrag.close();
      }
    } finally {
      await server.close();
    }
  });
});

/**
 * Kills the child once the replies the server sent have reached its LLM cache: the draft's `llm_cache` holds at
 * least one row per distinct request answered, and no row has been added for 300 ms. A reply still on its
 * way when the server froze would otherwise be lost with the kill and asked again by the next run — on a
 * loaded machine that takes longer than any fixed pause.
 */
function killOnceStored(workspace: string, server: MockOpenAiServer, child: KillableChild): void {
  // Distinct requests answered: a reply the client gave up on (a timeout) is answered again under the same key.
  const sent = server.stats.successByRequestHash.size;
  const draft = join(workspace, 'kgrag.db-draft');
  const quietMs = 300;
  let last = -1;
  let stableSince = performance.now();
  const poll = (): void => {
    let stored = 0;
    if (existsSync(draft)) {
      const db = new Database(draft, { readonly: true, fileMustExist: true });
      try {
        stored = (db.prepare('SELECT count(*) AS n FROM llm_cache').get() as { n: number }).n;
      } finally {
        db.close();
      }
    }
    if (stored !== last) {
      last = stored;
      stableSince = performance.now();
    }
    if (stored >= sent && performance.now() - stableSince >= quietMs) child.kill();
    else if (!child.exited()) setTimeout(poll, 20);
  };
  poll();
}

/** A running child the test may kill. */
interface KillableChild {
  kill(): void;
  /** True once it ended by itself: nothing left to wait for. */
  exited(): boolean;
}

interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the indexing child (asynchronously: the mock server lives in this process and must keep answering).
 * With `killWhen`, the child gets SIGKILL once that callback fires.
 */
function runChild(args: readonly string[], killWhen?: (child: KillableChild) => void): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeScriptArgs(childScript), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    let exited = false;
    child.on('exit', () => (exited = true));
    killWhen?.({ kill: () => child.kill('SIGKILL'), exited: () => exited });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
