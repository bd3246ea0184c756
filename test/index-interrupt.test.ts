import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { RunRecord } from '../src/core/types.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { startMockOpenAiServer } from '../src/testing/index.js';
import type { MockChatCompletionRequest } from '../src/testing/index.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';
import { nodeScriptArgs } from './helpers/node-script.js';

/*
 * Ctrl-C during `kgrag index` is the user stopping the run: the first lets the step in progress finish and keeps
 * it, the second stops that step now; both end with exit code 130, say what was kept, and leave a draft the next
 * run resumes. It used to cancel the step at once and could end in "this looks like a bug in kgrag".
 * Real child processes get real SIGINTs; each one is sent on a state the test observes (a request reaching the
 * server, the child's answer to the first interrupt), never after a pause.
 */

const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;

interface CliChild {
  interrupt(): void;
  /** Resolves once the child's stderr contains `text`. */
  printed(text: string): Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function runIndex(workspace: string, extra: readonly string[] = []): CliChild {
  // Built for `local` only (its steps include LLM ones before and after llm-extract), to keep the runs short.
  const child = spawn(process.execPath, [...nodeScriptArgs(cli), 'index', corpus, '-w', workspace, '--methods', 'local', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Only the workspace's kgrag.yaml configures the child, not the KGRAG_* or OPENAI_* variables of the machine.
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(KGRAG|OPENAI)_/.test(name))),
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => {
    stderr += data.toString();
    for (const waiter of waiters.splice(0)) {
      if (stderr.includes(waiter.text)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const printed = (text: string): Promise<void> =>
    stderr.includes(text)
      ? Promise.resolve()
      : Promise.race([
          new Promise<void>((resolve) => waiters.push({ text, resolve })),
          exit.then((ended) => assert.fail(`the child exited (code ${ended.code}) without printing ${JSON.stringify(text)}:\n${ended.stderr}`)),
        ]);
  return { interrupt: () => child.kill('SIGINT'), printed, exit };
}

/** The step records of the draft an interrupted run leaves for the next one. */
function draftRuns(workspace: string): Promise<RunRecord[]> {
  const store = openSqliteStore(join(workspace, 'kgrag.db-draft'), { readonly: true });
  return store
    .table('runs')
    .all()
    .finally(() => store.close());
}

const stepsDone = (runs: readonly RunRecord[]): string[] =>
  runs
    .filter((run) => run.status === 'done')
    .map((run) => run.step)
    .sort();

describe('Ctrl-C during kgrag index (a real child process and SIGINT)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-interrupt-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('the second Ctrl-C stops the step now; the first stops after its step; both exit 130 and the next run resumes', async () => {
    let onRequest: (() => void) | undefined;
    let frozen = false;
    const server = await startMockOpenAiServer({
      reply: (request: MockChatCompletionRequest) => {
        onRequest?.();
        // While frozen nothing is answered: the step in progress cannot finish by itself.
        if (frozen) return new Promise<string>(() => undefined);
        return sampleLlmReply(request);
      },
    });
    try {
      const workspace = join(directory, 'workspace');
      mkdirSync(workspace);
      // JSON is YAML. A long per-call timeout: no call may time out and be retried while the server is frozen.
      const config = { index: { mode: 'standard' }, llm: { ...standardTestLlmConfig(server.url), timeoutMs: 600_000 } };
      writeFileSync(join(workspace, 'kgrag.yaml'), JSON.stringify(config));

      // 1. Interrupted twice during llm-extract, the first LLM step: it stops there, without finishing it.
      frozen = true;
      const first = runIndex(workspace);
      onRequest = () => {
        onRequest = undefined;
        first.interrupt();
      };
      await first.printed('interrupted: finishing step "llm-extract"');
      first.interrupt();
      const stoppedNow = await first.exit;
      assert.equal(stoppedNow.code, 130, stoppedNow.stderr);
      assert.doesNotMatch(stoppedNow.stderr, /bug in kgrag|kgrag: error/);
      assert.match(stoppedNow.stderr, /kgrag: indexing interrupted \(Ctrl-C\) during step "llm-extract"/);
      assert.match(stoppedNow.stderr, /run the same command again to resume/);
      const afterHardStop = await draftRuns(workspace);
      assert.deepEqual(stepsDone(afterHardStop), ['chunk', 'embed-chunks', 'entity-edits', 'load', 'statistics']);
      assert.equal(afterHardStop.find((run) => run.step === 'llm-extract')?.status, 'failed', 'llm-extract started and was not finished');

      // 2. The next run resumes at llm-extract; one Ctrl-C there lets it finish, and nothing after it starts.
      frozen = false;
      const second = runIndex(workspace);
      onRequest = () => {
        onRequest = undefined;
        second.interrupt();
      };
      const stoppedAfter = await second.exit;
      assert.equal(stoppedAfter.code, 130, stoppedAfter.stderr);
      assert.doesNotMatch(stoppedAfter.stderr, /bug in kgrag|kgrag: error/);
      assert.match(stoppedAfter.stderr, /kgrag: indexing interrupted \(Ctrl-C\) after step "llm-extract"/);
      const afterStop = await draftRuns(workspace);
      const extract = afterStop.find((run) => run.step === 'llm-extract');
      assert.equal(extract?.status, 'done');
      assert.equal(extract?.counts['chunks'], 35);
      assert.equal(extract?.counts['failed'], 0);
      assert.deepEqual(afterStop.map((run) => run.step).sort(), ['chunk', 'embed-chunks', 'entity-edits', 'llm-extract', 'load', 'statistics'], 'no step after llm-extract started');

      // 3. Run again: it skips what the interrupted runs kept and completes.
      const last = runIndex(workspace, ['--json']);
      const completed = await last.exit;
      assert.equal(completed.code, 0, completed.stderr);
      const summary = JSON.parse(completed.stdout) as { ran: string[]; skipped: string[]; entities: number };
      // (load reads the inputs on every run, and finds them unchanged.)
      assert.deepEqual(summary.skipped, ['chunk', 'statistics', 'entity-edits', 'embed-chunks', 'llm-extract']);
      // Only `local`'s steps: the interrupted runs' draft says which methods they were building.
      assert.deepEqual(summary.ran, ['load', 'resolve-entities', 'summarize', 'communities', 'reports', 'embed-entities']);
      assert.ok(summary.entities > 0);
    } finally {
      await server.close();
    }
  });
});
