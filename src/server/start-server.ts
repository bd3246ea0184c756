import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { KgragError } from '../core/errors.js';
import { serve } from '@hono/node-server';
import type { Logger } from 'pino';
import type { ServerApp } from './create-server-app.js';
import type { WorkspaceRegistry } from './workspace-registry.js';

/** A listening server. */
export interface RunningServer {
  /** `http://host:port` as clients reach it. */
  readonly url: string;
  readonly port: number;
  /**
   * Graceful shutdown: stops accepting connections, lets running queries finish within `graceMs`, interrupts a
   * running index job (its draft is kept and the job stays queued, so the next start resumes it), closes the
   * workspaces, then drops the connections left (open event streams).
   */
  close(): Promise<void>;
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  server: ServerApp;
  registry: WorkspaceRegistry;
  host: string;
  port: number;
  graceMs: number;
  logger: Logger;
}

/** Why the server could not listen, as something the user can fix. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  if (error.code === 'EADDRINUSE') {
    return new KgragError(`cannot listen on ${where}: another program (or another kgrag serve) uses that port`, { code: 'SERVER_PORT_IN_USE', category: 'environment', hint: 'stop it, or choose another port with --port (0 picks a free one)', cause: error });
  }
  if (error.code === 'EACCES') {
    return new KgragError(`cannot listen on ${where}: permission denied`, { code: 'SERVER_PORT_DENIED', category: 'environment', hint: 'ports below 1024 need privileges; use a port such as 8080', cause: error });
  }
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
    return new KgragError(`cannot listen on ${where}: this machine has no such address`, { code: 'SERVER_BAD_HOST', category: 'environment', hint: 'use 127.0.0.1, 0.0.0.0 (every interface, with an API key) or one of the machine\'s addresses', cause: error });
  }
  return error;
}

/** Serves the app on `host:port` with Node's HTTP server. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { server: served, registry, logger } = options;
  const http = await new Promise<Server>((resolve, reject) => {
    const listening = serve({ fetch: served.app.fetch, hostname: options.host, port: options.port }, () => resolve(listening as Server)) as Server;
    listening.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options.host, options.port)));
  });
  // Long answers stream for minutes; Node's default request timeout (5 min) would cut them.
  http.requestTimeout = 0;
  // Node runs expired timers before it reads sockets: with the default 5 s keep-alive timeout, a client's next request
  // that arrived while queries kept the CPU busy for 5 s found its connection destroyed (ECONNRESET). 65 s outlasts
  // any such stall and the 60 s idle timeout of common load balancers; headers must be allowed a little longer.
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close() {
      closing ??= (async () => {
        logger.info({ running: served.queries.active() }, 'shutting down');
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        http.closeIdleConnections();
        // Running queries and the running index jobs stop side by side, each within the grace period.
        await Promise.all([served.queries.drain(options.graceMs), registry.stopJobs()]);
        await registry.close();
        http.closeAllConnections();
        await stopped;
        logger.info('stopped');
      })();
      return closing;
    },
  };
}
