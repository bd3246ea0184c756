import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { defineRoute } from '../api-route.js';
import { httpError } from '../http-problem.js';
import type { JobEvent, JobView } from '../index-job-queue.js';
import { idParams, startJobSchema } from '../request-schemas.js';
import { jobResponseSchema, jobSchema, problemResponse } from '../response-schemas.js';

const unknownJob = (id: string) => httpError(404, 'SERVER_UNKNOWN_JOB', `no job with id "${id}"`, 'list the jobs with GET /jobs');
const ended = (job: JobView): boolean => job.status !== 'queued' && job.status !== 'running';
/** Step progress is sent at most this often per job stream; every other event at once. */
const progressIntervalMs = 250;

/** Index jobs: start, list, status, live progress as server-sent events, cancel. */
export const jobRoutes = [
  defineRoute({
    method: 'post',
    path: '/jobs',
    tag: 'jobs',
    summary: 'Start an index job that brings the index up to date (or builds it for more methods)',
    body: startJobSchema,
    responses: { 202: { description: 'The queued job', schema: jobResponseSchema }, 400: problemResponse('Invalid job') },
    handler: async (c, { body, workspace }) => {
      const job = await workspace.jobs.submit({
        kind: 'index',
        documents: [],
        paths: [],
        ...(body.mode === undefined ? {} : { mode: body.mode }),
        ...(body.methods === undefined ? {} : { methods: body.methods }),
      });
      return c.json({ job }, 202);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/jobs',
    tag: 'jobs',
    summary: 'The jobs of the workspace, newest first',
    responses: { 200: { description: 'Jobs', schema: z.object({ jobs: z.array(jobSchema) }) } },
    handler: async (c, { workspace }) => c.json({ jobs: await workspace.jobs.list() }),
  }),
  defineRoute({
    method: 'get',
    path: '/jobs/:id',
    tag: 'jobs',
    summary: 'A job with its per-step progress',
    params: idParams,
    responses: { 200: { description: 'The job', schema: jobResponseSchema }, 404: problemResponse('No such job') },
    handler: async (c, { params, workspace }) => {
      const job = await workspace.jobs.get(params.id);
      if (!job) throw unknownJob(params.id);
      return c.json({ job });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/jobs/:id',
    tag: 'jobs',
    summary: 'Cancel a job: a queued one never runs; a running one stops and its unpublished work is dropped',
    params: idParams,
    responses: { 200: { description: 'The job after cancelling', schema: jobResponseSchema }, 404: problemResponse('No such job') },
    handler: async (c, { params, workspace }) => {
      const job = await workspace.jobs.cancel(params.id);
      if (!job) throw unknownJob(params.id);
      return c.json({ job });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/jobs/:id/events',
    tag: 'jobs',
    summary: 'Live progress of a job as server-sent events',
    description:
      'Events: `job` (the job now, first), `pipeline` (a pipeline event: step-start, step-progress at most 4 per second, step-end, step-skip, warning), `status` (queued/running/…), and a last `end` with the ended job; then the stream closes.',
    params: idParams,
    responses: { 200: { description: 'An event stream', contentType: 'text/event-stream' }, 404: problemResponse('No such job') },
    handler: async (c, { params, workspace }) => {
      const queue: JobEvent[] = [];
      let wake: (() => void) | undefined;
      let lastProgress = 0;
      const subscription = await workspace.jobs.subscribe(params.id, (event) => {
        if (event.event.type === 'step-progress') {
          const time = Date.now();
          if (time - lastProgress < progressIntervalMs) return;
          lastProgress = time;
        }
        queue.push(event);
        wake?.();
      });
      if (!subscription) throw unknownJob(params.id);
      return streamSSE(c, async (stream) => {
        stream.onAbort(() => {
          subscription.unsubscribe();
          wake?.();
        });
        try {
          let job = subscription.job;
          await stream.writeSSE({ event: 'job', data: JSON.stringify(job) });
          // The stream ends on the event that ends the job: every event before it is sent, however late it arrives.
          let done = ended(job);
          while (!done && !stream.aborted) {
            const next = queue.shift();
            if (!next) {
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              wake = undefined;
              continue;
            }
            job = next.job;
            if (next.event.type === 'job-status') {
              await stream.writeSSE({ event: 'status', data: JSON.stringify({ status: next.event.status }) });
              done = next.event.status !== 'queued' && next.event.status !== 'running';
            } else await stream.writeSSE({ event: 'pipeline', data: JSON.stringify(next.event) });
          }
          if (!stream.aborted) await stream.writeSSE({ event: 'end', data: JSON.stringify(job) });
        } finally {
          subscription.unsubscribe();
        }
      });
    },
  }),
];
