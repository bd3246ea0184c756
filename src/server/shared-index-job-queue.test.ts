import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClaimedJob, SharedJobStore, StoredJob } from '../store/shared-job-store.js';
import type { JobRunner } from './job-runner.js';
import { openSharedIndexJobQueue } from './shared-index-job-queue.js';

/** The jobs of one workspace in memory, as the Postgres store keeps them (one process, no leases running out). */
function memoryJobStore(): SharedJobStore & { events: unknown[] } {
  const jobs = new Map<string, StoredJob>();
  const events: unknown[] = [];
  const log = (event: unknown): void => {
    events.push(event);
  };
  return {
    events,
    async insert(job) {
      jobs.set(job.id, { id: job.id, status: 'queued', view: job.view, request: job.request, holder: null, leaseUntil: null, lastEvent: 0 });
    },
    async get(id) {
      return jobs.get(id);
    },
    async list() {
      return [...jobs.values()].reverse();
    },
    async claim(holder) {
      const next = [...jobs.values()].find((job) => job.status === 'queued');
      if (!next) return undefined;
      Object.assign(next, { status: 'running', holder });
      return { ...next, takenOverFrom: null } satisfies ClaimedJob;
    },
    async renew() {
      return { held: true, cancelRequested: false };
    },
    async record(id, _holder, view, event) {
      Object.assign(jobs.get(id) ?? {}, { view });
      log(event);
    },
    async release() {},
    async finish(id, _holder, view, request, event) {
      Object.assign(jobs.get(id) ?? {}, { view, request, status: (view as { status: string }).status });
      log(event);
      return true;
    },
    async requestCancel() {},
    async eventsAfter() {
      return [];
    },
    async uploads() {
      return [];
    },
    async prune() {},
  };
}

test('the step progress a job stores for followers on other servers is the newest, at most twice a second', async () => {
  const store = memoryJobStore();
  const runner: JobRunner = {
    async run(_request, options) {
      const usage = { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, byModel: {} };
      for (let done = 1; done <= 5; done++) options.onEvent({ type: 'step-progress', step: 'chunk', done, total: 5, unit: 'chunks', usage });
      await new Promise((resolve) => setTimeout(resolve, 700));
      return { durationMs: 700, usage };
    },
  };
  const queue = openSharedIndexJobQueue({ store, runner, runsJobs: true, pollMs: 20 });
  try {
    await queue.submit({ kind: 'index', documents: [], paths: [] });
    await queue.idle();
    const progress = store.events.filter((event) => (event as { type: string }).type === 'step-progress') as Array<{ done: number }>;
    assert.deepEqual(
      progress.map((event) => event.done),
      [5],
      'one write for the burst, of its newest event',
    );
  } finally {
    await queue.shutdown();
  }
});
