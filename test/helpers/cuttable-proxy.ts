import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server that a test can cut: every open connection is destroyed and new ones are
 * refused (`ECONNREFUSED`, as from a server that is down) until it is restored on the same port. What a process sees
 * when its database is killed or the network drops, without stopping the database the other tests share.
 */
export interface CuttableProxy {
  readonly port: number;
  /** Connections made through the proxy since it started (a reconnecting pool makes new ones). */
  readonly connections: number;
  /** Destroys every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startCuttableProxy(target: { host: string; port: number }): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const serve = (port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const server = createServer((client) => {
        connections++;
        const upstream = connect(target.port, target.host);
        sockets.add(client);
        sockets.add(upstream);
        const end = (): void => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  let server: Server | undefined = await serve(0);
  const port = (server.address() as AddressInfo).port;
  const stop = async (): Promise<void> => {
    const running = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
  };
  return {
    port,
    get connections() {
      return connections;
    },
    cut: stop,
    async restore() {
      server ??= await serve(port);
    },
    close: stop,
  };
}
