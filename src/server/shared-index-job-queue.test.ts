import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClaimedJob, SharedJobStore, StoredJob } from '../store/shared-job-store.js';
import type { JobRunner } from './job-runner.js';
import { openSharedIndexJobQueue } from './shared-index-job-queue.js';

/** The jobs of one workspace in memory, as the Postgres store keeps them (one process, no leases running out). */
function memoryJobStore(): SharedJobStore & { events: unknown[] } {
  const jobs = new Map<string, StoredJob>();
  const events: unknown[] = [];
  const stored: Array<{ id: string; seq: number; event: unknown }> = [];
  const log = (id: string, event: unknown): void => {
    events.push(event);
    stored.push({ id, seq: stored.length + 1, event });
    Object.assign(jobs.get(id) ?? {}, { lastEvent: stored.length });
  };
  return {
    events,
    async insert(job) {
      jobs.set(job.id, { id: job.id, status: 'queued', view: job.view, request: job.request, holder: null, leaseUntil: null, lastEvent: 0 });
    },
    async get(id) {
      const job = jobs.get(id);
      return job === undefined ? undefined : structuredClone(job);
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
      log(id, event);
    },
    async release() {},
    async finish(id, _holder, view, request, event) {
      Object.assign(jobs.get(id) ?? {}, { view, request, status: (view as { status: string }).status });
      log(id, event);
      return true;
    },
    async requestCancel() {},
    async eventsAfter(id, after) {
      return stored.filter((event) => event.id === id && event.seq > after).map(({ seq, event }) => ({ seq, event }));
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

test('a follower hears every event after it subscribed, in order, up to the one that ends the job, however fast the job ran', async () => {
  const store = memoryJobStore();
  const usage = { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, byModel: {} };
  let started!: () => void;
  const release = new Promise<void>((resolve) => (started = resolve));
  const runner: JobRunner = {
    async run(_request, options) {
      await release;
      const steps = ['chunk', 'embed', 'bm25'];
      steps.forEach((step, index) => {
        options.onEvent({ type: 'step-start', step, index, count: steps.length });
        options.onEvent({ type: 'step-end', step, durationMs: 1, counts: {}, usage });
      });
      return { durationMs: 3, usage };
    },
  };
  // Followed every 200 ms: the whole job is stored between two reads of the follower.
  const queue = openSharedIndexJobQueue({ store, runner, runsJobs: true, pollMs: 20, followMs: 200 });
  try {
    const job = await queue.submit({ kind: 'index', documents: [], paths: [] });
    const heard: string[] = [];
    let ended!: () => void;
    const end = new Promise<void>((resolve) => (ended = resolve));
    const subscription = await queue.subscribe(job.id, ({ job: now, event }) => {
      heard.push(event.type === 'job-status' ? `status ${event.status}` : `${event.type} ${'step' in event ? event.step : ''}`);
      if (event.type === 'job-status' && event.status === 'succeeded') {
        assert.equal(now.status, 'succeeded', 'the event that ends the job comes with the ended job');
        ended();
      }
    });
    assert.ok(subscription !== undefined);
    started();
    await end;
    subscription.unsubscribe();
    const steps = heard.filter((line) => line.startsWith('step-'));
    assert.deepEqual(steps, ['step-start chunk', 'step-end chunk', 'step-start embed', 'step-end embed', 'step-start bm25', 'step-end bm25']);
    assert.equal(heard.at(-1), 'status succeeded');
    assert.equal(await queue.subscribe('job-unknown', () => undefined), undefined, 'an unknown job has no subscription');
  } finally {
    await queue.shutdown();
  }
});
