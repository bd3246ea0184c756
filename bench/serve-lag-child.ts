/*
 * Child process of the serve benchmark: `kgrag serve` (serveWorkspaces, as the CLI starts it) on a copy of an index,
 * with the event loop's delay recorded by perf_hooks' monitorEventLoopDelay (10 ms resolution) from the moment one
 * document is submitted until its index job has ended and the server has prepared the explorer's graph of the new
 * index, as it does after every job that publishes. Jobs run in processes of their own (`process`), as under
 * `kgrag serve`, or on the server's own thread (`in-process`, how every job ran before issue 35). Prints
 * `{"p99": …, "max": …, "seconds": …}` in milliseconds and seconds as its last line.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { createKgrag } from '../src/api/create-kgrag.js';
import { configSchema } from '../src/core/config/config-schema.js';
import { serveWorkspaces } from '../src/server/serve-workspaces.js';

const [workspace, jobs] = process.argv.slice(2);
if (!workspace || (jobs !== 'process' && jobs !== 'in-process')) throw new Error('usage: serve-lag-child.ts <workspace> process|in-process');
const server = await serveWorkspaces({
  layout: 'single',
  directory: workspace,
  config: configSchema.parse({ server: { port: 0 } }).server,
  version: 'bench',
  logger: pino({ level: 'silent' }),
  openKgrag: (directory) => createKgrag({ workspace: directory, env: {} }),
  ...(jobs === 'process' ? { jobProcess: { env: { PATH: process.env.PATH } } } : {}),
});
try {
  // Start-up work (the explorer's first graph, each method's first query) is not what is measured.
  await fetch(`${server.url}/v1/graph?layout=true`);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const started = performance.now();
  const document = { title: 'Ledger of the Wren', text: 'The ketch Wren carried slate from Porthkerris to the quay at Kestermouth in 1898, under master Tamsin Crowe.' };
  const added = await fetch(`${server.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents: [document] }) });
  const { job } = (await added.json()) as { job: { id: string } };
  const events = await (await fetch(`${server.url}/v1/jobs/${job.id}/events`)).text();
  if (!/"status":"succeeded"/.test(events.slice(events.lastIndexOf('event: end')))) throw new Error(`the index job did not succeed: ${events.slice(-400)}`);
  // The explorer's graph of the new index is computed on the server after the job; this request waits for it.
  await fetch(`${server.url}/v1/graph?layout=true`);
  const seconds = (performance.now() - started) / 1000;
  histogram.disable();
  process.stdout.write(`${JSON.stringify({ p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, seconds })}\n`);
} finally {
  await server.close();
}
