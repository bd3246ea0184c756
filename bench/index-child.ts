/*
 * Child process of the indexing benchmarks: indexes the given paths into a fresh workspace, for every method or
 * (`--methods a,b`) for those methods only, and prints one JSON line with its wall time, CPU time (user + system, all
 * threads), per-step wall and CPU times and counters, peak RSS and progress-event count. A child per run gives each run a cold process, as a
 * user's `kgrag index` has.
 */
import { createKgrag } from '../src/api/create-kgrag.js';

const args = process.argv.slice(2);
const methodsFlag = args.indexOf('--methods');
const methods = methodsFlag >= 0 ? args.splice(methodsFlag, 2)[1]?.split(',') : undefined;
const storeFlag = args.indexOf('--store');
// `--store '{"backend":"postgres","url":…}'`: the index goes to that store instead of the workspace's SQLite file.
const store = storeFlag >= 0 ? (JSON.parse(args.splice(storeFlag, 2)[1] ?? '{}') as Record<string, unknown>) : undefined;
const [workspace, ...paths] = args;
if (!workspace || paths.length === 0) throw new Error('usage: index-child.ts [--methods a,b] [--store JSON] <workspace> <paths…>');
const started = performance.now();
const kgrag = await createKgrag({ workspace, env: {}, ...(store === undefined ? {} : { config: { store } as never }) });
const steps: Record<string, number> = {};
/** CPU ms of each step, all threads, from its start to the end of its write (`steps` leaves the write out). */
const stepsCpu: Record<string, number> = {};
/** The counters each step reported at its end (its phases' times among them, e.g. the keywords step's `clusterMs`). */
const stepCounts: Record<string, Record<string, number>> = {};
let stepCpuStart = 0;
const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
let progressEvents = 0;
const summary = await kgrag.index(paths, {
  ...(methods === undefined ? {} : { methods }),
  onEvent(event) {
    if (event.type === 'step-start') stepCpuStart = cpuMs();
    if (event.type === 'step-end') {
      steps[event.step] = Math.round(event.durationMs);
      stepsCpu[event.step] = Math.round(cpuMs() - stepCpuStart);
      stepCounts[event.step] = event.counts;
    }
    if (event.type === 'step-progress') progressEvents++;
  },
});
const counts = await kgrag.stats();
await kgrag.close();
const usage = process.resourceUsage();
process.stdout.write(
  `${JSON.stringify({
    wallMs: performance.now() - started,
    pipelineMs: summary.durationMs,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    maxRssMb: usage.maxRSS / 1024,
    steps,
    stepsCpu,
    stepCounts,
    counts,
    progressEvents,
  })}\n`,
);
