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

/**
 * How close the standard pipeline's LLM steps come to the ideal wall time of `calls × latency / concurrency`
 * (issue 5: within 15 %). The loopback mock, in its own process like a real endpoint, answers every request
 * after a fixed 200 ms with the sample corpus's scripted replies; the client runs 8 requests at a time. Wall time is the sum of the durations of
 * the steps that called the model, so the CPU work between calls and every wait for a slow last call of a
 * step (or of a report level) count against the ratio.
 */
export async function benchLlmThroughput(runs: number): Promise<Record<string, BenchResult>> {
  const server = await startMockProcess();
  const ratios: number[] = [];
  const walls: number[] = [];
  const calls: number[] = [];
  const perStep = new Map<string, number[]>();
  try {
    for (let run = 0; run < runs; run++) {
      const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-llm-'));
      try {
        const kgrag = await createKgrag({ workspace, env: {}, config: { index: { mode: 'standard' }, llm: { ...standardTestLlmConfig(server.url), concurrency, timeoutMs: 30_000 } } });
        let wallMs = 0;
        let llmCalls = 0;
        await kgrag.index([corpus], {
          onEvent: (event) => {
            if (event.type !== 'step-end' || event.usage.llmCalls === 0) return;
            wallMs += event.durationMs;
            llmCalls += event.usage.llmCalls;
            perStep.set(event.step, [...(perStep.get(event.step) ?? []), event.durationMs / Math.max(1, (event.usage.llmCalls * latencyMs) / concurrency)]);
          },
        });
        await kgrag.close();
        const ideal = (llmCalls * latencyMs) / concurrency;
        ratios.push(wallMs / ideal);
        walls.push(wallMs / 1000);
        calls.push(llmCalls);
        process.stderr.write(`  run ${run + 1}/${runs}: ${llmCalls} calls, LLM steps ${(wallMs / 1000).toFixed(2)} s, ideal ${(ideal / 1000).toFixed(2)} s, ratio ${(wallMs / ideal).toFixed(3)}\n`);
      } finally {
        rmSync(workspace, { recursive: true, force: true });
      }
    }
  } finally {
    server.child.stdin?.end();
    await once(server.child, 'exit');
  }
  const steps: Record<string, BenchResult> = {};
  for (const [step, values] of perStep) steps[`llm_wall_vs_ideal_${step.replaceAll('-', '_')}`] = result(values, 'ratio');
  return { llm_wall_vs_ideal: result(ratios, 'ratio'), llm_steps_wall_s: result(walls, 's'), llm_calls: result(calls, 'count'), ...steps };
}
