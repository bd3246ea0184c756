import type { Logger } from 'pino';
import type { Kgrag } from '../api/create-kgrag.js';
import type { ServerConfig } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import { createMcpHttpHandler } from '../mcp/mcp-http-handler.js';
import type { McpTarget } from '../mcp/create-mcp-server.js';
import { labelApiSources } from './api-document-sources.js';
import { type KeyGrant, roleAllows } from './api-keys.js';
import { httpError } from './http-problem.js';
import { childProcessJobRunner } from './child-process-job-runner.js';
import type { ApiRoute } from './api-route.js';
import { createServerApp, type ServerApp } from './create-server-app.js';
import { createServerMetrics } from './server-metrics.js';
import { followWatchedPaths, type WatchedPaths, type WatchedPathsFollower } from './follow-watched-paths.js';
import type { JobWorkspaceOptions } from './job-process-protocol.js';
import { uploadedFileOf } from './routes/document-routes.js';
import { graphRoutes } from './routes/graph-routes.js';
import { methodRoutes } from './routes/method-routes.js';
import { isLoopback } from './is-loopback.js';
import { type RunningServer, startServer } from './start-server.js';
import { weakApiKeyReason } from './weak-api-key.js';
import { createWorkspaceRegistry, type ServedWorkspace, type WorkspaceRegistry } from './workspace-registry.js';

/** The routes `kgrag serve` adds to the server's own: the methods and graph browsing. */
export const servedRoutes: readonly ApiRoute[] = [...methodRoutes, ...graphRoutes];

/** MCP's view of a served workspace: `add_documents` queues an index job like POST /documents. */
function mcpTargetOf(workspace: ServedWorkspace, grant: KeyGrant): McpTarget {
  return {
    kgrag: workspace.kgrag,
    async addDocuments(documents) {
      if (!roleAllows(grant.role, 'write')) {
        throw httpError(403, 'AUTH_ROLE_FORBIDDEN', `the API key "${grant.name}" has the role ${grant.role}, and add_documents needs write`, 'use a key with the write role');
      }
      const job = await workspace.jobs.submit({ kind: 'index', documents: labelApiSources(documents), paths: [] });
      return { jobId: job.id, message: `queued index job ${job.id} for ${documents.length} document(s); they become searchable when it ends (follow it with job_status)` };
    },
    async deleteDocuments(ids) {
      if (!roleAllows(grant.role, 'write')) {
        throw httpError(403, 'AUTH_ROLE_FORBIDDEN', `the API key "${grant.name}" has the role ${grant.role}, and delete_documents needs write`, 'use a key with the write role');
      }
      const documents = await workspace.kgrag.documents(ids);
      const job = await workspace.jobs.submit({ kind: 'delete', selectors: documents.map((document) => document.id), files: documents.flatMap((document) => uploadedFileOf(workspace, document.source) ?? []) });
      return { jobId: job.id, message: `queued delete job ${job.id} for ${documents.length} document(s); they are gone from the index when it ends (follow it with job_status)` };
    },
    jobs: { get: (id) => workspace.jobs.get(id), list: () => workspace.jobs.list() },
  };
}

/**
 * The explorer's first request — the default slice, laid out (web/src/views/graph-view.tsx) — computed when an index is opened or published rather than when the first browser
 * asks: on 2Wiki the generation's graph tables and the layout take ~1.5 s, which the browser would wait for. The
 * browser's request shares the computation if it comes while it runs; an index with nothing in it has no graph yet.
 */
function warmExplorerGraph(workspace: ServedWorkspace, logger: Logger, closing: () => boolean): void {
  setImmediate(() => {
    workspace.kgrag.graph.slice({ layout: true }).catch((error: unknown) => {
      // A server shutting down closes the store under a computation that a job's end started: nothing to say.
      if (closing()) return;
      if (!(error instanceof KgragError && error.code === 'STORE_NO_INDEX')) logger.warn({ workspace: workspace.name, err: error }, 'could not prepare the explorer graph');
    });
  });
}

/** Runs a workspace's jobs in processes of their own, with `server.jobMemoryMb` of heap and `server.shutdownGraceMs` to stop when asked to. */
export function jobProcessRunner(jobProcess: NonNullable<ServeWorkspacesOptions['jobProcess']>, config: ServerConfig, watched: boolean) {
  return (directory: string, kgrag: Kgrag) =>
    childProcessJobRunner({
      workspace: { ...jobProcess, workspace: directory },
      // A watched workspace's updates should be served seconds after a write: its next job's process is started ahead.
      keepSpare: watched,
      stopTimeoutMs: config.shutdownGraceMs,
      execArgv: config.jobMemoryMb === undefined ? [] : [`--max-old-space-size=${config.jobMemoryMb}`],
      discardDraft: async () => {
        await kgrag.discardDraft({ command: 'kgrag serve (dropping a cancelled job\'s draft)' });
      },
    });
}

/** Options of {@link serveWorkspaces}. */
export interface ServeWorkspacesOptions {
  /** `single`: one workspace folder; `folder`: a folder of named workspaces. */
  layout: 'single' | 'folder';
  directory: string;
  /** Opens a workspace folder with the server's settings (configuration overrides, test doubles). */
  openKgrag: (directory: string) => Promise<Kgrag>;
  config: ServerConfig;
  version: string;
  logger: Logger;
  /** The built web explorer served at `/` (default: the package's `dist/web`). */
  webDirectory?: string;
  /**
   * Runs each index job in a process of its own, which opens the workspace with these options (what `openKgrag`
   * passes, as plain data), so that the server's event loop never runs index work and a job cannot take the server
   * down. Without it jobs run in the server's process (for workspaces opened with objects that cannot cross a process
   * boundary, such as a scripted language model).
   */
  jobProcess?: Omit<JobWorkspaceOptions, 'workspace'>;
  /**
   * Files and folders to follow (`kgrag serve --watch`): each quiet period after changes queues one index job that
   * brings the index in line with them (single layout only).
   */
  watch?: WatchedPaths;
}

/** A running server with its parts, for tests and the CLI. */
export interface ServedWorkspaces extends RunningServer {
  readonly registry: WorkspaceRegistry;
  readonly app: ServerApp;
}

/**
 * Refuses an address beyond loopback without API keys (anyone who reaches the port could read the index, change it
 * and spend the LLM budget), or with a key that is a placeholder or too short to keep anyone out.
 */
function checkExposure(config: ServerConfig): void {
  if (isLoopback(config.host)) return;
  if (config.apiKeys.length === 0) {
    throw new KgragError(`refusing to listen on ${config.host} without an API key: anyone who reaches the port could read the index, change it and spend the LLM budget`, {
      code: 'SERVER_INSECURE_BIND',
      category: 'config',
      hint: 'set server.apiKeys (or KGRAG_API_KEYS, e.g. `KGRAG_API_KEYS=$(openssl rand -hex 32)`) and send the key as "Authorization: Bearer <key>" (a proxy in front can add it), or listen on 127.0.0.1',
    });
  }
  const weak = config.apiKeys.flatMap((entry, index) => {
    // A key given by its hash was generated (`kgrag keys create`) and is not in the file to judge.
    const key = typeof entry === 'string' ? entry : entry.key;
    const reason = key === undefined ? undefined : weakApiKeyReason(key);
    return reason === undefined ? [] : [`key-${index + 1} (number ${index + 1} of server.apiKeys) ${reason}`];
  });
  if (weak.length > 0) {
    throw new KgragError(`refusing to listen on ${config.host} with a weak API key: ${weak.join('; ')}`, {
      code: 'SERVER_WEAK_API_KEY',
      category: 'config',
      hint: 'generate a key with `openssl rand -hex 32` and set it in KGRAG_API_KEYS, or in kgrag.yaml as "${NAME}" with the variable NAME set to it',
    });
  }
}

/**
 * Starts `kgrag serve`: the HTTP API, the OpenAI-compatible chat endpoint and MCP over the workspaces. Beyond
 * loopback it needs API keys that are real keys ({@link checkExposure}); without keys, it answers only requests
 * addressed to this machine (see `sameMachineGuard`).
 */
export async function serveWorkspaces(options: ServeWorkspacesOptions): Promise<ServedWorkspaces> {
  const { config } = options;
  checkExposure(config);
  if (options.watch !== undefined && options.layout !== 'single') {
    throw new KgragError('--watch follows files into one workspace, and --workspaces serves a folder of them: which one the files belong to is not said', {
      code: 'SERVE_WATCH_WORKSPACES',
      category: 'input',
      hint: 'serve the workspace alone with `kgrag serve -w <workspace> --watch <folder>`, or run `kgrag index <folder> --watch -w <workspace>` beside this server (it answers from each update once it is published)',
    });
  }
  // The metrics read the registry's workspaces at each scrape; the registry tells them of its jobs.
  let workspaces: WorkspaceRegistry | undefined;
  let closing = false;
  const metrics = createServerMetrics(() => workspaces?.loaded() ?? []);
  const registry = createWorkspaceRegistry({
    layout: options.layout,
    directory: options.directory,
    openKgrag: options.openKgrag,
    onJobEvent: (name, job, event) => metrics.observeJobEvent(name, job, event),
    onJobEnded: (name, job) => metrics.observeJobEnded(name, job),
    onIndexReady: (workspace) => warmExplorerGraph(workspace, options.logger, () => closing),
    ...(options.jobProcess === undefined ? {} : { jobRunner: jobProcessRunner(options.jobProcess, config, options.watch !== undefined) }),
    sharedJobs: {
      runsJobs: config.indexJobs === 'here',
      leaseSeconds: config.jobLeaseSeconds,
      onError: (name, error) => options.logger.warn({ workspace: name, err: error }, 'index jobs: could not reach the database; retrying'),
      ...(config.indexJobs === 'workers'
        ? { refuseUnshared: { reason: 'server.indexJobs is workers, and no worker can run them', hint: 'set store.backend: postgres (every server and worker shares its jobs), or server.indexJobs: here' } }
        : {}),
    },
  });
  workspaces = registry;
  const app = createServerApp({
    registry,
    metrics,
    config,
    version: options.version,
    logger: options.logger,
    routes: servedRoutes,
    mcp: (workspace, grant) => createMcpHttpHandler(async () => mcpTargetOf(workspace, grant)),
    webDirectory: options.webDirectory,
  });
  let running: RunningServer;
  let follower: WatchedPathsFollower | undefined;
  try {
    const single = options.layout === 'single' ? await registry.open('default') : undefined;
    if (single !== undefined && options.watch !== undefined) follower = followWatchedPaths(single, options.watch, options.logger);
    running = await startServer({ server: app, registry, host: config.host, port: config.port, graceMs: config.shutdownGraceMs, logger: options.logger });
  } catch (error) {
    await follower?.stop();
    await registry.close();
    throw error;
  }
  return {
    ...running,
    // Watching stops first, so no update is queued while the running one is interrupted (kept, to resume).
    close: async () => {
      closing = true;
      await follower?.stop();
      await running.close();
    },
    registry,
    app,
  };
}
