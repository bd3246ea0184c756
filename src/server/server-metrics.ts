import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import type { JobView } from './index-job-queue.js';
import type { ServedWorkspace } from './workspace-registry.js';

/**
 * What `kgrag serve` exposes at `/metrics`, in Prometheus' text format, on a registry of its own (two servers in one
 * process keep their own series). Labels are bounded: a route is its pattern (`/v1/workspaces/:workspace/query`),
 * never the path a caller sent.
 */
export interface ServerMetrics {
  /** A finished HTTP request. */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  /** A pipeline event of an index job (step durations). */
  observeJobEvent(workspace: string, job: JobView, event: PipelineEvent): void;
  /** An index job that ended (its status, and the LLM usage of its run). */
  observeJobEnded(workspace: string, job: JobView): void;
  /** The text of a scrape. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Buckets of request latency, in seconds: from a cached lookup (ms) to an LLM answer (tens of seconds). */
const requestBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Buckets of an index step, in seconds: from a skipped step to a full build's longest. */
const stepBuckets = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

export function createServerMetrics(workspaces: () => readonly ServedWorkspace[]): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'kgrag_' });
  const requests = new Histogram({
    name: 'kgrag_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: requestBuckets,
    registers: [registry],
  });
  const steps = new Histogram({
    name: 'kgrag_index_step_duration_seconds',
    help: 'Time an index step of a server job took, by step',
    labelNames: ['step'],
    buckets: stepBuckets,
    registers: [registry],
  });
  const jobsEnded = new Counter({
    name: 'kgrag_index_jobs_ended_total',
    help: 'Index jobs that ended, by workspace and status (succeeded, failed, cancelled)',
    labelNames: ['workspace', 'status'],
    registers: [registry],
  });
  new Gauge({
    name: 'kgrag_index_jobs',
    help: 'Index jobs queued or running now, by workspace and state (queued is the queue depth)',
    labelNames: ['workspace', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const workspace of workspaces()) {
        const jobs = await workspace.jobs.list();
        for (const state of ['queued', 'running'] as const) this.set({ workspace: workspace.name, state }, jobs.filter((job) => job.status === state).length);
      }
    },
  });
  new Gauge({
    name: 'kgrag_store_pool_connections',
    help: "Connections of a workspace's database pool now, by state (total, idle, waiting requests); Postgres only",
    labelNames: ['workspace', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const workspace of workspaces()) {
        const connections = workspace.kgrag.storeConnections();
        if (connections === undefined) continue;
        for (const state of ['total', 'idle', 'waiting'] as const) this.set({ workspace: workspace.name, state }, connections[state]);
      }
    },
  });

  // LLM usage: the server's own calls (queries, chat) are the workspaces' running totals; an index job's, which runs in
  // a process of its own, are added when it ends.
  const jobUsage = new Map<string, { calls: number; inputTokens: number; outputTokens: number; costUsd: number }>();
  const usageRows = (): Array<{ model: string; source: 'queries' | 'index-jobs'; calls: number; inputTokens: number; outputTokens: number; costUsd: number }> => {
    const rows: ReturnType<typeof usageRows> = [];
    const queries = new Map<string, { calls: number; inputTokens: number; outputTokens: number; costUsd: number }>();
    for (const workspace of workspaces()) {
      for (const [model, totals] of Object.entries(workspace.kgrag.usage().byModel)) {
        const sum = queries.get(model) ?? { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
        sum.calls += totals.calls;
        sum.inputTokens += totals.inputTokens;
        sum.outputTokens += totals.outputTokens;
        sum.costUsd += totals.costUsd;
        queries.set(model, sum);
      }
    }
    for (const [model, totals] of queries) rows.push({ model, source: 'queries', ...totals });
    for (const [model, totals] of jobUsage) rows.push({ model, source: 'index-jobs', ...totals });
    return rows;
  };
  new Counter({
    name: 'kgrag_llm_calls_total',
    help: 'Paid LLM calls (cache hits excluded), by model and source (queries: this process; index-jobs: ended jobs)',
    labelNames: ['model', 'source'],
    registers: [registry],
    collect() {
      this.reset();
      for (const row of usageRows()) this.inc({ model: row.model, source: row.source }, row.calls);
    },
  });
  new Counter({
    name: 'kgrag_llm_tokens_total',
    help: 'LLM tokens of paid calls, by model, kind (input, output) and source',
    labelNames: ['model', 'kind', 'source'],
    registers: [registry],
    collect() {
      this.reset();
      for (const row of usageRows()) {
        this.inc({ model: row.model, kind: 'input', source: row.source }, row.inputTokens);
        this.inc({ model: row.model, kind: 'output', source: row.source }, row.outputTokens);
      }
    },
  });
  new Counter({
    name: 'kgrag_llm_cost_usd_total',
    help: 'Estimated USD of paid LLM calls (0 for models without a known price), by model and source',
    labelNames: ['model', 'source'],
    registers: [registry],
    collect() {
      this.reset();
      for (const row of usageRows()) this.inc({ model: row.model, source: row.source }, row.costUsd);
    },
  });

  return {
    contentType: registry.contentType,
    observeRequest(route, method, status, seconds) {
      requests.observe({ route, method, status: String(status) }, seconds);
    },
    observeJobEvent(_workspace, _job, event) {
      if (event.type === 'step-end') steps.observe({ step: event.step }, event.durationMs / 1000);
    },
    observeJobEnded(workspace, job) {
      jobsEnded.inc({ workspace, status: job.status });
      for (const [model, totals] of Object.entries(job.result?.usage.byModel ?? {})) {
        const sum = jobUsage.get(model) ?? { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
        sum.calls += totals.calls;
        sum.inputTokens += totals.inputTokens;
        sum.outputTokens += totals.outputTokens;
        sum.costUsd += totals.costUsd;
        jobUsage.set(model, sum);
      }
    },
    render: () => registry.metrics(),
  };
}
