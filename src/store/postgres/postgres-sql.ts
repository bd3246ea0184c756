import pg from 'pg';
import { explainPostgresError } from './explain-postgres-error.js';

/**
 * Statements run on a pool (each on whichever connection is free) or on the one connection of a transaction.
 * Every result parses `bigint` and `numeric` as numbers: counts, sums and `hid`s fit easily in a double, and the
 * `Store` contract speaks numbers.
 */
export interface SqlRunner {
  rows<R>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /** Rows of several `;`-separated statements without parameters (the simple protocol), one array per statement. */
  script<R>(text: string): Promise<R[][]>;
}

const int8Oid = 20;
const numericOid = 1700;

const numberTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === int8Oid || oid === numericOid) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/** Runs statements on `target` (a pool or one client), turning connection failures into a {@link KgragError}. */
export function sqlRunner(target: Queryable): SqlRunner {
  return {
    async rows<R>(text: string, values: readonly unknown[] = []): Promise<R[]> {
      try {
        const result = await (target as pg.Pool).query({ text, values: values as unknown[], types: numberTypes });
        return result.rows as R[];
      } catch (error) {
        throw explainPostgresError(error);
      }
    },
    async script<R>(text: string): Promise<R[][]> {
      try {
        const result = (await (target as pg.Pool).query({ text, types: numberTypes })) as unknown as pg.QueryResult | pg.QueryResult[];
        return (Array.isArray(result) ? result : [result]).map((part) => part.rows as R[]);
      } catch (error) {
        throw explainPostgresError(error);
      }
    },
  };
}

/** A quoted SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A string literal that reads the same whatever `standard_conforming_strings` is (for DDL, which takes no parameters). */
export function quoteLiteral(value: string): string {
  return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/**
 * Takes a transaction-scoped advisory lock on `key` (held until the outermost transaction ends): writers that
 * read, merge and rewrite shared postings must not interleave, or the later write would drop the earlier one's rows.
 */
export async function lockForWrite(run: SqlRunner, key: string): Promise<void> {
  await run.rows('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

/** Clients that already have the listener {@link connectClient} adds. */
const listening = new WeakSet<pg.PoolClient>();

/**
 * A connection of the pool for statements that must share one; a failure to connect is explained. The pool listens
 * for errors only on idle clients: a connection that drops while checked out (the server killed, the network cut)
 * emits an `'error'` nobody hears, and Node ends the process. The listener added here keeps it a failed statement —
 * the pending query rejects on its own, and the pool drops a client whose connection ended when it comes back.
 */
export async function connectClient(pool: pg.Pool): Promise<pg.PoolClient> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw explainPostgresError(error);
  }
  if (!listening.has(client)) {
    listening.add(client);
    client.on('error', () => undefined);
  }
  return client;
}

/**
 * Runs `work` as one transaction on one connection of the pool (`begin` opens it: a plain BEGIN, or one with an
 * isolation level). A connection whose rollback fails is broken and is not given back to the pool.
 */
export async function inPostgresTransaction<R>(pool: pg.Pool, work: (run: SqlRunner) => Promise<R>, begin = 'BEGIN'): Promise<R> {
  const client = await connectClient(pool);
  const run = sqlRunner(client);
  let broken = false;
  try {
    await run.rows(begin);
    const result = await work(run);
    await run.rows('COMMIT');
    return result;
  } catch (error) {
    broken = await client.query('ROLLBACK').then(
      () => false,
      () => true,
    );
    throw explainPostgresError(error);
  } finally {
    client.release(broken || undefined);
  }
}
