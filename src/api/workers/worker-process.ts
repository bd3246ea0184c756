import { createKgrag } from '../create-kgrag.js';
import type { KgragConfigInput } from '../../core/config/config-schema.js';

/*
 * A local indexing worker, started by `kgrag index` with `workers.local` > 0 (start-index-workers.ts): it opens the
 * coordinator's workspace with the coordinator's configuration and environment and works on prefetch shards until it
 * is told to stop (SIGTERM or the coordinator's disconnect).
 */

interface WorkerSpec {
  workspace: string;
  config?: KgragConfigInput;
  configFile?: string;
  env?: Record<string, string | undefined>;
}

const spec = JSON.parse(process.env['KGRAG_WORKER_SPEC'] ?? '{}') as WorkerSpec;
const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.once('SIGINT', () => stop.abort());
process.once('disconnect', () => stop.abort());
const kgrag = await createKgrag({
  workspace: spec.workspace,
  env: spec.env ?? process.env,
  ...(spec.configFile === undefined ? {} : { configFile: spec.configFile }),
  // A worker does not start workers of its own.
  config: { ...spec.config, workers: { ...spec.config?.workers, local: 0 } } as KgragConfigInput,
});
try {
  process.send?.({ type: 'ready', pid: process.pid });
  await kgrag.work({ signal: stop.signal });
} finally {
  await kgrag.close();
}
process.exit(0);
