import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../src/api/create-kgrag.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { standardTestLlmConfig } from '../test/helpers/standard-test-config.js';
import { type BenchResult, result } from './bench-utils.js';

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const latencyMs = 200;
const concurrency = 8;

/** Starts `mock-server-child.ts` and resolves with its URL once it listens. */
async function startMockProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./mock-server-child.ts', import.meta.url)), String(latencyMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(lines, 'line')) as [string];
  return { url: (JSON.parse(line) as { url: string }).url, child };
}

/** One LLM step of one run. */
interface StepMeasure {
  calls: number;
  wallMs: number;
  /** Calls on the step's longest chain of calls that wait for one another (`llmCriticalPath`). */
  chain: number;
}

/** `calls × latency / concurrency`: the wall time if the client kept every slot busy. */
const concurrencyIdealMs = (step: StepMeasure): number => (step.calls * latencyMs) / concurrency;
/** `chain × latency`: the wall time the step's dependencies allow with unlimited slots. */
const chainIdealMs = (step: StepMeasure): number => step.chain * latencyMs;
const idealMs = (step: StepMeasure): number => Math.max(concurrencyIdealMs(step), chainIdealMs(step));

/**
 * How close the standard pipeline's LLM steps come to their ideal wall time (issue 5: within 15 %; issue 17:
 * each step against its own dependency chain). The loopback mock, in its own process like a real endpoint,
 * answers every request after a fixed 200 ms with the sample corpus's scripted replies; the client runs 8
 * requests at a time.
 *
 * A step's ideal is the larger of two lower bounds: the **concurrency ideal** `calls × 200 ms / 8` (every slot
 * busy) and the **chain ideal** `llmCriticalPath × 200 ms`, where `llmCriticalPath` (a count each LLM step
 * reports) is the number of calls on its longest chain of calls that each wait for an earlier one — a
 * chunk's gleaning turns, a community report after its sub-communities' reports, an AutoKG clustering's
 * cluster-by-cluster keyword prompts plus the three final passes. A step's ratio is its wall time over its
 * ideal; the overall `llm_wall_vs_ideal` is the summed wall time of the steps that called the model over the
 * sum of their ideals, so the CPU work between calls and every wait for a slow last call count against it.
 * `llm_wall_vs_concurrency_ideal` keeps the earlier definition (summed wall over `all calls × 200 ms / 8`).
 */
export async function benchLlmThroughput(runs: number): Promise<Record<string, BenchResult>> {
  const server = await startMockProcess();
  const measures: Array<Map<string, StepMeasure>> = [];
  try {
    for (let run = 0; run < runs; run++) {
      const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-llm-'));
      try {
        const kgrag = await createKgrag({ workspace, env: {}, config: { index: { mode: 'standard' }, llm: { ...standardTestLlmConfig(server.url), concurrency, timeoutMs: 30_000 } } });
        const steps = new Map<string, StepMeasure>();
        await kgrag.index([corpus], {
          onEvent: (event) => {
            if (event.type !== 'step-end' || event.usage.llmCalls === 0) return;
            const chain = event.counts.llmCriticalPath;
            if (chain === undefined) process.stderr.write(`  step ${event.step} reports no llmCriticalPath; its chain ideal counts 1 call\n`);
            steps.set(event.step, { calls: event.usage.llmCalls, wallMs: event.durationMs, chain: chain ?? 1 });
          },
        });
        await kgrag.close();
        measures.push(steps);
        const all = [...steps.values()];
        const wall = all.reduce((sum, step) => sum + step.wallMs, 0);
        const ideal = all.reduce((sum, step) => sum + idealMs(step), 0);
        process.stderr.write(`  run ${run + 1}/${runs}: ${all.reduce((sum, step) => sum + step.calls, 0)} calls, LLM steps ${(wall / 1000).toFixed(2)} s, ideal ${(ideal / 1000).toFixed(2)} s, ratio ${(wall / ideal).toFixed(3)}\n`);
        for (const [name, step] of steps) {
          process.stderr.write(
            `    ${name.padEnd(18)} ${String(step.calls).padStart(4)} calls, chain ${String(step.chain).padStart(3)}, wall ${(step.wallMs / 1000).toFixed(2)} s, ` +
              `concurrency ideal ${(concurrencyIdealMs(step) / 1000).toFixed(2)} s, chain ideal ${(chainIdealMs(step) / 1000).toFixed(2)} s, ratio ${(step.wallMs / idealMs(step)).toFixed(3)}\n`,
          );
        }
      } finally {
        rmSync(workspace, { recursive: true, force: true });
      }
    }
  } finally {
    server.child.stdin?.end();
    await once(server.child, 'exit');
  }
  const sum = (steps: Map<string, StepMeasure>, value: (step: StepMeasure) => number): number => [...steps.values()].reduce((total, step) => total + value(step), 0);
  const results: Record<string, BenchResult> = {
    llm_wall_vs_ideal: result(measures.map((steps) => sum(steps, (step) => step.wallMs) / sum(steps, idealMs)), 'ratio'),
    llm_wall_vs_concurrency_ideal: result(measures.map((steps) => sum(steps, (step) => step.wallMs) / sum(steps, concurrencyIdealMs)), 'ratio'),
    llm_steps_wall_s: result(measures.map((steps) => sum(steps, (step) => step.wallMs) / 1000), 's'),
    llm_steps_ideal_s: result(measures.map((steps) => sum(steps, idealMs) / 1000), 's'),
    llm_calls: result(measures.map((steps) => sum(steps, (step) => step.calls)), 'count'),
  };
  const names = [...new Set(measures.flatMap((steps) => [...steps.keys()]))];
  for (const name of names) {
    const key = name.replaceAll('-', '_');
    const of = measures.flatMap((steps) => steps.get(name) ?? []);
    results[`llm_${key}_calls`] = result(of.map((step) => step.calls), 'count');
    results[`llm_${key}_chain_calls`] = result(of.map((step) => step.chain), 'count');
    results[`llm_${key}_wall_s`] = result(of.map((step) => step.wallMs / 1000), 's');
    results[`llm_${key}_concurrency_ideal_s`] = result(of.map((step) => concurrencyIdealMs(step) / 1000), 's');
    results[`llm_${key}_chain_ideal_s`] = result(of.map((step) => chainIdealMs(step) / 1000), 's');
    results[`llm_wall_vs_ideal_${key}`] = result(of.map((step) => step.wallMs / idealMs(step)), 'ratio');
  }
  return results;
}
