/*
 * Issue 38: where the time of the `incremental` benchmark's 1 % update goes, step by step.
 *
 * 2Wiki, fast mode, every method (the defaults), in one process. Two indexes are built once: 99 % of the passages, and
 * all of them. Each run copies one to a fresh folder and times the update on the copy:
 *   - the addition of the other 1 % (61 passages) to the 99 % index;
 *   - the deletion of those passages from the full index.
 * The builds leave the NLP models and modules loaded, as in the `incremental` benchmark.
 * Per step, `incremental_{add,delete}_step_<step>_s` is its wall time from step start to step end: its computation
 * and the transaction that writes its output. `incremental_{add,delete}_outside_steps_s` is the rest of the update:
 * opening the draft, reading the inputs, publishing. `incremental_{kind}_user_cpu_s` and `_system_cpu_s` are the process's
 * CPU time during the update (every thread: the garbage collector's helpers and worker threads too), and
 * `_minor_page_faults` the pages it touched for the first time or again after releasing them: the memory an update
 * moves, which the kernel's share of the CPU time mostly is.
 * Medians over the runs. The update's total is comparable with `incremental_add_s` and `incremental_delete_s`, not
 * equal to them: those time an update on the index the same workspace just built, these one on a copy opened anew.
 */
import { closeSync, cpSync, fsyncSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { Kgrag } from '../src/api/kgrag.js';
import type { InputDocument, PipelineEvent } from '../src/pipeline/pipeline-step.js';
import { type BenchResult, result } from './bench-utils.js';
import { twoWikiDocuments, updateShare } from './incremental.js';

const config = { index: { mode: 'fast' } } as const;

/** Builds `documents` into a new folder and returns it. */
async function built(documents: readonly InputDocument[]): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-steps-base-'));
  const kgrag = await createKgrag({ workspace: folder, env: {}, config });
  try {
    await kgrag.index(documents);
  } finally {
    await kgrag.close();
  }
  return folder;
}

/** What one update cost: wall time in all and per step, and the process's CPU time and page faults meanwhile. */
interface UpdateCost {
  total: number;
  steps: Map<string, number>;
  userCpu: number;
  systemCpu: number;
  minorFaults: number;
}

/** One update on a copy of `base`: its total wall time and each step's, in seconds. */
async function timedUpdate(base: string, update: (kgrag: Kgrag, onEvent: (event: PipelineEvent) => void) => Promise<unknown>): Promise<UpdateCost> {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-steps-'));
  cpSync(base, folder, { recursive: true });
  // Written to disk before the update starts: else the update's first fsync (its lock record's) waits for the copy's
  // 270 MB on ext4, a cost of this bench's copy that no update of a published index pays.
  for (const name of readdirSync(folder)) {
    const descriptor = openSync(join(folder, name), 'r');
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  }
  const kgrag = await createKgrag({ workspace: folder, env: {}, config });
  const steps = new Map<string, number>();
  let stepStarted = 0;
  const onEvent = (event: PipelineEvent): void => {
    if (event.type === 'step-start') stepStarted = performance.now();
    if (event.type === 'step-end') steps.set(event.step, (performance.now() - stepStarted) / 1000);
  };
  try {
    const usageBefore = process.resourceUsage();
    const started = performance.now();
    await update(kgrag, onEvent);
    const total = (performance.now() - started) / 1000;
    const usage = process.resourceUsage();
    return {
      total,
      steps,
      userCpu: (usage.userCPUTime - usageBefore.userCPUTime) / 1e6,
      systemCpu: (usage.systemCPUTime - usageBefore.systemCPUTime) / 1e6,
      minorFaults: usage.minorPageFault - usageBefore.minorPageFault,
    };
  } finally {
    await kgrag.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The medians of one kind of update: each step's, the rest outside the steps, the total, CPU time and page faults. */
function stepResults(kind: 'add' | 'add_one' | 'delete', runs: readonly UpdateCost[]): Record<string, BenchResult> {
  const names = [...new Set(runs.flatMap((run) => [...run.steps.keys()]))];
  const results: Record<string, BenchResult> = {};
  for (const name of names) results[`incremental_${kind}_step_${name.replace(/\W+/g, '_')}_s`] = result(runs.map((run) => run.steps.get(name) ?? 0), 's');
  results[`incremental_${kind}_outside_steps_s`] = result(
    runs.map((run) => run.total - [...run.steps.values()].reduce((sum, seconds) => sum + seconds, 0)),
    's',
  );
  results[`incremental_${kind}_total_s`] = result(runs.map((run) => run.total), 's');
  results[`incremental_${kind}_user_cpu_s`] = result(runs.map((run) => run.userCpu), 's');
  results[`incremental_${kind}_system_cpu_s`] = result(runs.map((run) => run.systemCpu), 's');
  results[`incremental_${kind}_minor_page_faults`] = result(runs.map((run) => run.minorFaults), 'count');
  return results;
}

export async function benchIncrementalSteps(runs: number): Promise<Record<string, BenchResult>> {
  const log = (line: string): void => void process.stderr.write(`  ${line}\n`);
  const documents = twoWikiDocuments();
  const split = documents.length - Math.round(documents.length * updateShare);
  const extra = documents.slice(split);
  const sources = extra.map((document) => document.source as string);
  const partial = await built(documents.slice(0, split));
  const full = await built(documents);
  try {
    const adds: UpdateCost[] = [];
    const addOnes: UpdateCost[] = [];
    const deletes: UpdateCost[] = [];
    for (let run = 0; run < runs; run++) {
      const add = await timedUpdate(partial, (kgrag, onEvent) => kgrag.index(extra, { onEvent }));
      const addOne = await timedUpdate(partial, (kgrag, onEvent) => kgrag.index(extra.slice(0, 1), { onEvent }));
      const remove = await timedUpdate(full, (kgrag, onEvent) => kgrag.delete(sources, { onEvent }));
      log(`run ${run + 1}: add ${extra.length} documents ${add.total.toFixed(1)} s, add one ${addOne.total.toFixed(1)} s, delete the ${extra.length} ${remove.total.toFixed(1)} s`);
      adds.push(add);
      addOnes.push(addOne);
      deletes.push(remove);
    }
    return { ...stepResults('add', adds), ...stepResults('add_one', addOnes), ...stepResults('delete', deletes) };
  } finally {
    rmSync(partial, { recursive: true, force: true });
    rmSync(full, { recursive: true, force: true });
  }
}
