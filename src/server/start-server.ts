import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
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

/** Whether `host` only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Serves the app on `host:port` with Node's HTTP server. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { server: served, registry, logger } = options;
  const http = await new Promise<Server>((resolve, reject) => {
    const listening = serve({ fetch: served.app.fetch, hostname: options.host, port: options.port }, () => resolve(listening as Server)) as Server;
    listening.once('error', reject);
  });
  // Long answers stream for minutes; Node's default request timeout (5 min) would cut them.
  http.requestTimeout = 0;
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
        await served.queries.drain(options.graceMs);
        await registry.close();
        http.closeAllConnections();
        await stopped;
        logger.info('stopped');
      })();
      return closing;
    },
  };
}
